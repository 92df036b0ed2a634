// The persistence consumer on a thread of its own (shared/component-thread): besides starting and
// stopping, the thread tells how the store answers it, its commits and its partitions.
import type { Registry } from 'prom-client';
import { startComponentThread } from '../../../../shared/component-thread/parent-side.ts';
import { AppError } from '../../../../shared/errors.ts';
import type { Logger } from '../../../../shared/logger.ts';
import { moduleFile } from '../../../../shared/module-file.ts';
import type { Running } from '../../../../shared/supervisor.ts';
import type { FromThread, PersistenceThreadConfig } from './persistence-thread-protocol.ts';

const ENTRY = moduleFile(import.meta.url, './persistence-thread-entry');

export interface PersistenceThreadDeps {
  readonly config: PersistenceThreadConfig;
  readonly logger: Logger;
  /** The thread's counters are added to these on the request thread's /metrics. */
  readonly registry?: Registry;
  /** Told how the store answers the thread (an UNAVAILABLE failure, or an answer after one). */
  readonly observeStore?: (error?: unknown) => void;
  /** Told each offset the thread's consumer committed (the read barrier's local knowledge). */
  readonly onCommitted?: (topic: string, partition: number, next: bigint) => void;
  /** Told the partitions the thread's consumer applies each time the group hands them out. */
  readonly onAssigned?: (assignment: ReadonlyMap<string, readonly number[]>) => void;
  /** How long `stop` waits for the thread to finish its batch and close. Default 15000. */
  readonly stopDeadlineMs?: number;
  /** The thread's entry module; tests point it elsewhere. */
  readonly entry?: string | URL;
}

export function startPersistenceThread(deps: PersistenceThreadDeps): Promise<Running> {
  return startComponentThread<FromThread>({
    name: 'persistence',
    entry: deps.entry ?? ENTRY,
    workerData: deps.config,
    logger: deps.logger,
    ...(deps.registry ? { registry: deps.registry } : {}),
    ...(deps.stopDeadlineMs === undefined ? {} : { stopDeadlineMs: deps.stopDeadlineMs }),
    onMessage(message) {
      switch (message.kind) {
        case 'store':
          return deps.observeStore?.(
            message.lost ? new AppError(message.lost.code as 'UNAVAILABLE', message.lost.message) : undefined,
          );
        case 'committed':
          for (const [topic, partition, next] of message.commits) deps.onCommitted?.(topic, partition, next);
          return;
        case 'assigned':
          return deps.onAssigned?.(new Map(message.assignment));
      }
    },
  });
}
