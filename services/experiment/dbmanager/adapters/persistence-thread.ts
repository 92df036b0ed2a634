// The persistence consumer on a thread of its own (node:worker_threads), seen from the request
// thread as one supervised component: started when the thread's consumer runs, ended (rejected)
// when the thread reports a failure, throws or exits unasked, stopped by asking the thread to
// finish its batch and close (terminated when it does not within the deadline).
import { Worker } from 'node:worker_threads';
import { Counter, type Registry } from 'prom-client';
import { AppError, internal, unavailable } from '../../../../shared/errors.ts';
import type { Logger } from '../../../../shared/logger.ts';
import { moduleFile } from '../../../../shared/module-file.ts';
import type { Running } from '../../../../shared/supervisor.ts';
import type {
  CounterDelta,
  FromThread,
  PersistenceThreadConfig,
  ToThread,
} from './persistence-thread-protocol.ts';

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
  const logger = deps.logger.child({ component: 'persistence-thread' });
  const worker = new Worker(deps.entry ?? ENTRY, { workerData: deps.config, name: 'persistence' });
  let stopping = false;
  let failed = false;
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  let settleStart: { resolve: () => void; reject: (error: Error) => void } | undefined;
  const started = new Promise<void>((resolve, reject) => {
    settleStart = { resolve, reject };
  });
  let endWith: (error: Error) => void = () => undefined;
  const ended = new Promise<never>((_, reject) => {
    endWith = reject;
  });
  ended.catch(() => undefined);
  const fail = (error: Error): void => {
    if (!failed) {
      // The thread closes its connections and ends by itself; one that lingers is ended here.
      const linger = setTimeout(() => void worker.terminate(), 5_000);
      linger.unref();
      void exited.then(() => clearTimeout(linger));
    }
    failed = true;
    settleStart?.reject(error);
    settleStart = undefined;
    endWith(error);
  };

  worker.on('message', (message: FromThread) => {
    switch (message.kind) {
      case 'started':
        settleStart?.resolve();
        settleStart = undefined;
        return;
      case 'failed':
        return fail(internal(`persistence thread: ${message.message}`));
      case 'store':
        return deps.observeStore?.(
          message.lost ? new AppError(message.lost.code as 'UNAVAILABLE', message.lost.message) : undefined,
        );
      case 'committed':
        for (const [topic, partition, next] of message.commits) deps.onCommitted?.(topic, partition, next);
        return;
      case 'assigned':
        deps.onAssigned?.(new Map(message.assignment));
        return;
      case 'counters':
        if (deps.registry) addCounters(deps.registry, message.deltas);
        return;
      case 'stopped':
        return;
    }
  });
  worker.on('error', (error) => {
    logger.error({ err: error }, 'persistence thread failed');
    fail(error);
  });
  void exited.then((code) => {
    if (!stopping) fail(unavailable(`persistence thread exited (code ${code})`));
  });

  const running: Running = {
    ended,
    async stop() {
      if (stopping) return void (await exited);
      stopping = true;
      // A thread that failed has no batch to finish.
      if (failed) await worker.terminate();
      else worker.postMessage({ kind: 'stop' } satisfies ToThread);
      const deadline = setTimeout(() => {
        logger.warn('persistence thread did not stop in time; terminating it');
        void worker.terminate();
      }, deps.stopDeadlineMs ?? 15_000);
      await exited;
      clearTimeout(deadline);
    },
  };
  return started.then(
    () => running,
    async (error: unknown) => {
      stopping = true;
      await worker.terminate();
      throw error;
    },
  );
}

/** Adds the thread's counter increases to the same counters here (created on first sight). */
function addCounters(registry: Registry, deltas: readonly CounterDelta[]): void {
  for (const { name, help, labels, delta } of deltas) {
    const counter =
      (registry.getSingleMetric(name) as Counter | undefined) ??
      new Counter({ name, help, labelNames: Object.keys(labels), registers: [registry] });
    counter.inc(labels, delta);
  }
}
