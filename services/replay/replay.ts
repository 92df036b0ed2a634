import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Kafka, KafkaMessage } from 'kafkajs';
import type { EventCatalog } from '../../shared/avro/catalog.ts';
import { HEADERS, headersToStrings } from '../../shared/bus/headers.ts';
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
  readonly kafka: Kafka;
  readonly catalog: EventCatalog;
  readonly options: ReplayOptions;
  readonly out: LineWriter;
  readonly logger: Logger;
  /** The throwaway consumer group; deleted at the end. */
  readonly groupId: string;
  /** Stops reading (SIGINT/SIGTERM); the only way a --follow replay ends. */
  readonly signal?: AbortSignal;
}

export type ReplayOutcome =
  | { readonly kind: 'missing-topic' }
  | { readonly kind: 'done'; readonly printed: number; readonly undecodable: number };

/** A message as a record: decoded with the catalog, or kept raw with the reason it did not decode. */
export function toRecord(
  catalog: EventCatalog,
  topic: string,
  partition: number,
  message: KafkaMessage,
): ReplayRecord {
  const headers = headersToStrings(message.headers);
  const base = {
    topic,
    partition,
    offset: message.offset,
    timestamp: Number(message.timestamp),
    key: message.key?.toString('utf8') ?? null,
    correlationId: headers[HEADERS.correlationId] ?? null,
  };
  try {
    if (message.value === null) throw new Error('empty value (tombstone)');
    const decoded = catalog.decode(message.value);
    return {
      ...base,
      decoded: true,
      eventType: decoded.eventType,
      schemaVersion: decoded.writerVersion,
      event: decoded.payload,
    };
  } catch (error) {
    const version = headers[HEADERS.schemaVersion];
    return {
      ...base,
      decoded: false,
      eventType: headers[HEADERS.eventType] ?? null,
      schemaVersion: version !== undefined && /^\d+$/.test(version) ? Number(version) : null,
      error: (error as Error).message,
      value: message.value,
    };
  }
}

/**
 * Prints the topic's records from the computed start offsets. Within a partition records come in
 * the partition's order; partitions are read concurrently, so their records interleave in no
 * particular order. Without --follow every partition ends at its high watermark taken at start
 * (or at the first record after --until). Offsets are never committed.
 */
export async function replay(deps: ReplayDeps): Promise<ReplayOutcome> {
  const { kafka, catalog, options, out, groupId, signal } = deps;
  const { topic, follow, untilMs, key } = options;
  const logger = deps.logger.child({ component: 'replay', topic });

  const admin = kafka.admin();
  await admin.connect();
  try {
    if (!(await admin.listTopics()).includes(topic)) return { kind: 'missing-topic' };

    const watermarks = await admin.fetchTopicOffsets(topic);
    const starts = new Map<number, bigint>(
      options.start.kind === 'beginning'
        ? watermarks.map((w) => [w.partition, BigInt(w.low)])
        : (await admin.fetchTopicOffsetsByTimestamp(topic, options.start.ms)).map((o) => [
            o.partition,
            BigInt(o.offset),
          ]),
    );
    // Without --follow: partition → high watermark at start; a partition leaves the map when done.
    const ends = new Map<number, bigint>();
    if (!follow) {
      for (const w of watermarks) {
        if ((starts.get(w.partition) ?? 0n) < BigInt(w.high)) ends.set(w.partition, BigInt(w.high));
      }
    }
    logger.debug({ starts: [...starts], ends: [...ends] }, 'offsets');

    const header = headerFor(options.format);
    if (header) await out.write(header);
    let printed = 0;
    let undecodable = 0;
    if ((!follow && ends.size === 0) || signal?.aborted) return { kind: 'done', printed, undecodable };

    let finish: (error?: unknown) => void = () => {};
    const finished = new Promise<void>((resolve, reject) => {
      finish = (error) => (error === undefined ? resolve() : reject(error));
    });
    const onAbort = (): void => finish();
    signal?.addEventListener('abort', onAbort, { once: true });

    // A short fetch wait keeps a stop quick: disconnecting waits for the fetch in flight.
    const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false, maxWaitTimeInMs: 500 });
    consumer.on(consumer.events.CRASH, (e) => {
      if (!e.payload.restart) finish(e.payload.error);
    });
    const partitionDone = (partition: number): void => {
      if (!ends.delete(partition)) return;
      consumer.pause([{ topic, partitions: [partition] }]);
      if (ends.size === 0) finish();
    };
    // A batch of only control records never reaches eachBatch, yet may hold the partition's last offset.
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
      const end = ends.get(payload.partition);
      if (payload.batchSize === 0 && end !== undefined && BigInt(payload.lastOffset) + 1n >= end) {
        partitionDone(payload.partition);
      }
    });

    try {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatch: async ({ batch, isRunning, isStale, heartbeat }) => {
          const { partition } = batch;
          try {
            for (const message of batch.messages) {
              if (!isRunning() || isStale() || signal?.aborted) return;
              const offset = BigInt(message.offset);
              if (offset < (starts.get(partition) ?? 0n)) continue; // fetched before the seek applied
              const end = ends.get(partition);
              if (!follow && (end === undefined || offset >= end)) return partitionDone(partition);
              if (untilMs !== undefined && Number(message.timestamp) > untilMs) {
                if (!follow) return partitionDone(partition);
                continue;
              }
              if (key === undefined || message.key?.toString('utf8') === key) {
                const record = toRecord(catalog, topic, partition, message);
                if (!record.decoded) {
                  undecodable++;
                  logger.warn(
                    { partition, offset: record.offset, reason: record.error },
                    'record does not decode; printed raw',
                  );
                }
                await out.write(formatRecord(options.format, record));
                printed++;
              }
              if (!follow && offset + 1n >= (end ?? 0n)) return partitionDone(partition);
            }
            // The batch's last offset counts control records (transaction markers), which are not messages.
            if (!follow && BigInt(batch.lastOffset()) + 1n >= (ends.get(partition) ?? 0n))
              partitionDone(partition);
            await heartbeat();
          } catch (error) {
            finish(error);
          }
        },
      });
      // kafkajs applies seeks only after run(), once the partitions are assigned.
      for (const [partition, offset] of starts) {
        if (follow || ends.has(partition)) consumer.seek({ topic, partition, offset: offset.toString() });
        else consumer.pause([{ topic, partitions: [partition] }]);
      }
      await finished;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      await consumer.disconnect();
      await admin.deleteGroups([groupId]).catch((error: unknown) => {
        logger.debug({ err: error, groupId }, 'could not delete the consumer group');
      });
    }
    return { kind: 'done', printed, undecodable };
  } finally {
    await admin.disconnect();
  }
}
