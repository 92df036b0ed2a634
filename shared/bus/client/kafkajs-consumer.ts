// The bus's group consumer on kafkajs 2.2.4: batches handed over as fetched, commits made by the
// caller (those of one turn in one request), a linger once per fetch, seeks applied at the next fetch.
import type { Consumer, IHeaders, Kafka, TopicPartitionOffset } from 'kafkajs';
import { heartbeatIntervalFor, memberOutcome } from './group-member.ts';
import { createLinger } from './linger.ts';
import type { ConsumeOptions, GroupConsumer, RawRecord } from './types.ts';

function headerText(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) out[name] = Buffer.isBuffer(first) ? first.toString('utf8') : String(first);
  }
  return out;
}

/** Commits asked for in the same turn of the event loop (batches of one fetch) go in one request. */
function commitTogether(consumer: Consumer): (offset: TopicPartitionOffset) => Promise<void> {
  let pending: { offset: TopicPartitionOffset; resolve: () => void; reject: (error: unknown) => void }[] = [];
  const flush = (): void => {
    const batch = pending;
    pending = [];
    consumer.commitOffsets(batch.map((p) => p.offset)).then(
      () => {
        for (const p of batch) p.resolve();
      },
      (error: unknown) => {
        for (const p of batch) p.reject(error);
      },
    );
  };
  return (offset) =>
    new Promise<void>((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ offset, resolve, reject });
    });
}

export async function startConsumer(
  kafka: Kafka,
  options: ConsumeOptions,
  closing: Array<() => Promise<void>>,
): Promise<GroupConsumer> {
  const consumer: Consumer = kafka.consumer({
    groupId: options.groupId,
    allowAutoTopicCreation: false,
    maxWaitTimeInMs: options.maxWaitMs,
    minBytes: options.minBytes ?? 1,
    // New partitions of a topic are seen at the next metadata refresh, which then rebalances.
    metadataMaxAge: options.metadataMaxAgeMs ?? 30_000,
    sessionTimeout: options.sessionTimeoutMs,
    heartbeatInterval: heartbeatIntervalFor(options.sessionTimeoutMs),
    retry: { retries: 5, restartOnFailure: async () => true },
  });

  const { joined, markJoined, failed, markFailed } = memberOutcome();
  const commits = commitTogether(consumer);
  const linger = createLinger(options);
  // The linger is once per fetch: kafkajs hands a fetch's batches over one after another when
  // partitions are consumed one at a time, and a linger per batch would add up (6 partitions,
  // 120 ms where 20 were meant).
  let fetches = 0;
  let lingeredAt = -1;
  consumer.on(consumer.events.FETCH, () => {
    fetches += 1;
  });

  // A seek applies at the next fetch: records of a fetch made before it are dropped here.
  const floors = new Map<string, bigint>();
  const key = (topic: string, partition: number) => `${topic}:${partition}`;

  consumer.on(consumer.events.GROUP_JOIN, (event) => {
    const assignment = new Map<string, number[]>(Object.entries(event.payload.memberAssignment));
    for (const [topic, partitions] of assignment) {
      for (const partition of partitions) {
        const start = options.startAt(topic, partition);
        if (start === undefined) continue;
        floors.set(key(topic, partition), start);
        consumer.seek({ topic, partition, offset: start.toString() });
      }
    }
    options.onAssigned?.(assignment);
    markJoined();
  });
  consumer.on(consumer.events.CRASH, (event) => {
    if (!event.payload.restart) markFailed(event.payload.error);
  });
  // A fetch of only control records (transaction markers) reaches no batch handler. A fetch that
  // returned only records below the offset asked for (an older batch) is empty too, but its
  // lastOffset is the offset asked for, not one that was read: kafkajs says so by a null firstOffset.
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
    if (payload.batchSize === 0 && payload.firstOffset !== null)
      options.onPosition?.(payload.topic, payload.partition, BigInt(payload.lastOffset) + 1n);
  });

  await consumer.connect();
  for (const topic of options.topics) await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    partitionsConsumedConcurrently: options.concurrentPartitions ?? 1,
    // The fetch position moves past a batch once its handler returned; commits are the caller's.
    eachBatchAutoResolve: true,
    eachBatch: async ({ batch, heartbeat, isRunning, isStale }) => {
      const { topic, partition } = batch;
      const floor = floors.get(key(topic, partition));
      const records: RawRecord[] = [];
      for (const message of batch.messages) {
        const offset = BigInt(message.offset);
        if (floor !== undefined && offset < floor) continue;
        records.push({
          offset,
          timestamp: Number(message.timestamp),
          key: message.key,
          value: message.value,
          headers: headerText(message.headers),
        });
      }
      if (records.length > 0) {
        floors.delete(key(topic, partition));
        await options.onBatch(
          { topic, partition, records },
          {
            heartbeat,
            isActive: () => isRunning() && !isStale(),
            commit: (next) => commits({ topic, partition, offset: next.toString() }),
          },
        );
      }
      if (isRunning() && !isStale()) options.onPosition?.(topic, partition, BigInt(batch.lastOffset()) + 1n);
      // kafkajs fetches again only once every batch of the fetch returned: this is the linger, made
      // only at the partition's end (a reader catching up fetches on at once).
      const atEnd = BigInt(batch.lastOffset()) + 1n >= BigInt(batch.highWatermark);
      if (records.length > 0 && atEnd && isRunning() && lingeredAt !== fetches) {
        lingeredAt = fetches;
        await linger.wait();
      }
    },
  });

  const stop = () => consumer.disconnect();
  closing.push(stop);
  return {
    joined,
    failed,
    pause: (topic, partition) => consumer.pause([{ topic, partitions: [partition] }]),
    hurry: () => linger.hurry(),
    async stop() {
      const at = closing.indexOf(stop);
      if (at >= 0) closing.splice(at, 1);
      await stop();
    },
  };
}
