import { randomBytes } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import type { EventCatalog } from '../../../shared/avro/catalog.ts';
import type { EventProducer } from '../../../shared/bus/producer.ts';
import { unavailable } from '../../../shared/errors.ts';
import type { Logger } from '../../../shared/logger.ts';
import { PROGRESS_EVENT_TYPE, type UpgradeProgress } from '../domain/progress.ts';
import type { ProgressLog } from '../ports.ts';

/** kv.upgrade-progress through the shared bus: Avro single-object values, keyed by cluster. */
export function createProgressTopic(options: {
  readonly kafka: Kafka;
  /** May still be connecting: publishing waits for it. */
  readonly producer: EventProducer | Promise<EventProducer>;
  readonly catalog: EventCatalog;
  readonly topic: string;
  readonly logger: Logger;
}): ProgressLog {
  const { kafka, producer, catalog, topic, logger } = options;
  return {
    async publish(events) {
      if (events.length === 0) return;
      await (await producer).publish(
        topic,
        events.map((payload) => ({
          eventType: PROGRESS_EVENT_TYPE,
          key: payload.cluster,
          payload,
          correlationId: payload.run_id ?? payload.session_id,
        })),
      );
    },
    read: (cluster) => readProgressEvents({ kafka, catalog, topic, key: cluster, logger }),
  };
}

/**
 * Every record with `key` (none when the topic does not exist yet), from the start of each partition to its high watermark at the time of
 * the call. Reads through a throwaway consumer group that commits nothing and is deleted after.
 */
export async function readProgressEvents(options: {
  kafka: Kafka;
  catalog: EventCatalog;
  topic: string;
  key: string;
  logger: Logger;
}): Promise<UpgradeProgress[]> {
  const { kafka, catalog, topic, key, logger } = options;
  const admin = kafka.admin();
  await admin.connect();
  const groupId = `kvupgrade-read-${randomBytes(6).toString('hex')}`;
  try {
    if (!(await admin.listTopics()).includes(topic)) return [];
    const offsets = await admin.fetchTopicOffsets(topic).catch((error: Error) => {
      throw unavailable(`kafka: cannot read the offsets of ${topic}: ${error.message}`, error);
    });
    const ends = new Map(
      offsets.filter((o) => BigInt(o.high) > BigInt(o.low)).map((o) => [o.partition, BigInt(o.high)]),
    );
    const events = new Map<number, UpgradeProgress[]>();
    if (ends.size === 0) return [];

    const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false, maxWaitTimeInMs: 200 });
    let done: (error?: unknown) => void = () => {};
    const finished = new Promise<void>((resolve, reject) => {
      done = (error) => (error === undefined ? resolve() : reject(error));
    });
    const partitionDone = (partition: number) => {
      if (ends.delete(partition) && ends.size === 0) done();
    };
    consumer.on(consumer.events.CRASH, (e) => done(e.payload.error));
    try {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          const end = ends.get(batch.partition);
          if (end === undefined) return;
          for (const message of batch.messages) {
            if (BigInt(message.offset) >= end) break;
            if (message.key?.toString('utf8') === key && message.value) {
              try {
                const decoded = catalog.decode(message.value);
                if (decoded.eventType === PROGRESS_EVENT_TYPE) {
                  const list = events.get(batch.partition) ?? [];
                  list.push(decoded.payload as unknown as UpgradeProgress);
                  events.set(batch.partition, list);
                }
              } catch (error) {
                logger.warn(
                  { offset: message.offset, err: error },
                  'undecodable record on the progress topic; skipped',
                );
              }
            }
          }
          if (BigInt(batch.lastOffset()) + 1n >= end) partitionDone(batch.partition);
        },
      });
      for (const o of offsets) consumer.seek({ topic, partition: o.partition, offset: o.low });
      await finished;
    } finally {
      await consumer.disconnect();
      await admin.deleteGroups([groupId]).catch(() => undefined);
    }
    // One key lives on one partition, so its events are already in order.
    return [...events.values()].flat();
  } finally {
    await admin.disconnect();
  }
}
