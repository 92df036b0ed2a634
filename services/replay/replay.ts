import { once } from 'node:events';
import type { Writable } from 'node:stream';
import {
  type Bus,
  type ConsumedEvent,
  HEADERS,
  type PlacedRecord,
  readTopic,
} from '../../shared/bus/index.ts';
import type { Logger } from '../../shared/logger.ts';
import type { ReplayOptions } from './args.ts';
import { formatRecord, headerFor, type ReplayRecord } from './format.ts';

/** Where lines go; `write` resolves when the destination can take more. */
export interface LineWriter {
  write(text: string): Promise<void>;
}

/** A writer that waits for 'drain' whenever the stream's buffer is full, and fails once it errored. */
export function streamWriter(stream: Writable): LineWriter {
  let failure: Error | undefined;
  stream.on('error', (error) => {
    failure ??= error;
  });
  return {
    async write(text) {
      if (failure) throw failure;
      if (!stream.write(text)) await once(stream, 'drain');
    },
  };
}

export interface ReplayDeps {
  readonly bus: Bus;
  readonly options: ReplayOptions;
  readonly out: LineWriter;
  readonly logger: Logger;
  /** Stops reading (SIGINT/SIGTERM); the only way a --follow replay ends. */
  readonly signal?: AbortSignal;
}

export type ReplayOutcome =
  | { readonly kind: 'missing-topic' }
  | { readonly kind: 'done'; readonly printed: number; readonly undecodable: number };

const base = (record: PlacedRecord) => ({
  topic: record.topic,
  partition: record.partition,
  offset: record.offset.toString(),
  timestamp: record.timestamp,
  key: record.key?.toString('utf8') ?? null,
  correlationId: record.headers[HEADERS.correlationId] ?? null,
});

/** A record that did not decode, kept raw with the reason. */
export function undecodableRecord(record: PlacedRecord, reason: string): ReplayRecord {
  const version = record.headers[HEADERS.schemaVersion];
  return {
    ...base(record),
    decoded: false,
    eventType: record.headers[HEADERS.eventType] ?? null,
    schemaVersion: version !== undefined && /^\d+$/.test(version) ? Number(version) : null,
    error: reason,
    value: record.value,
  };
}

const decodedRecord = (event: ConsumedEvent): ReplayRecord => ({
  topic: event.topic,
  partition: event.partition,
  offset: event.offset.toString(),
  timestamp: event.timestamp,
  key: event.key,
  correlationId: event.correlationId ?? null,
  decoded: true,
  eventType: event.eventType,
  schemaVersion: event.writerVersion,
  event: event.payload as unknown as Record<string, unknown>,
});

/**
 * Prints the topic's records from the chosen start. Within a partition records come in the
 * partition's order; partitions are read concurrently, so their records interleave in no
 * particular order. Without --follow every partition ends at its high watermark taken at start
 * (or at the first record after --until). Offsets are never committed.
 */
export async function replay(deps: ReplayDeps): Promise<ReplayOutcome> {
  const { bus, options, out, signal } = deps;
  const logger = deps.logger.child({ component: 'replay', topic: options.topic });
  if (!(await bus.topicExists(options.topic))) return { kind: 'missing-topic' };

  const header = headerFor(options.format);
  if (header) await out.write(header);
  let printed = 0;
  let undecodable = 0;
  if (signal?.aborted) return { kind: 'done', printed, undecodable };

  const reader = await readTopic(bus, {
    topic: options.topic,
    from: options.start.kind === 'beginning' ? 'beginning' : { time: options.start.ms },
    until: options.follow ? 'follow' : 'end',
    ...(options.untilMs === undefined ? {} : { untilTime: options.untilMs }),
    ...(options.key === undefined ? {} : { key: options.key }),
    // A short fetch wait keeps a stop quick: stopping waits for the fetch in flight.
    maxWaitMs: 500,
    onEvent: async (event) => {
      await out.write(formatRecord(options.format, decodedRecord(event)));
      printed++;
    },
    onUndecodable: async (record, reason) => {
      undecodable++;
      logger.warn(
        { partition: record.partition, offset: record.offset.toString(), reason },
        'record does not decode; printed raw',
      );
      await out.write(formatRecord(options.format, undecodableRecord(record, reason)));
      printed++;
    },
  });
  const onAbort = (): void => void reader.stop();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await reader.done;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await reader.stop();
  }
  return { kind: 'done', printed, undecodable };
}
