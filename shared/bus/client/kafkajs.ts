// The bus's Kafka client on kafkajs 2.2.4.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Admin,
  CompressionTypes,
  type Consumer,
  type IHeaders,
  Kafka,
  type logCreator,
  logLevel,
  type Message,
  Partitioners,
  type Producer,
  type TopicPartitionOffset,
} from 'kafkajs';
import type { Logger } from '../../logger.ts';
import { heartbeatIntervalFor, memberOutcome } from './group-member.ts';
import { createLinger } from './linger.ts';
import type {
  ClientOptions,
  ClientProducer,
  ConsumeOptions,
  GroupConsumer,
  KafkaClient,
  OutgoingRecord,
  RawRecord,
} from './types.ts';

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

function pinoLogCreator(logger: Logger): logCreator {
  return () =>
    ({ level, log }) => {
      const { message, ...extra } = log;
      // kafkajs logs every error answer of the broker at ERROR, also the retriable ones it then
      // retries (a fresh broker's "group coordinator is not available"); a real failure reaches
      // the caller as an exception, so these are only debug detail.
      const retriedAnswer = level === logLevel.ERROR && message.startsWith('Response ');
      // Our producer's retries are bounded on purpose (a call that cannot be written within them
      // is answered UNAVAILABLE, never acknowledged); kafkajs warns of it at every start.
      const knownChoice = message.startsWith('Limiting retries for the idempotent producer');
      logger[retriedAnswer || knownChoice ? 'debug' : (LEVELS[level] ?? 'info')]({ kafka: extra }, message);
    };
}

/** Header values as text; kafkajs gives Buffers, possibly arrays. */
function headerText(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) out[name] = Buffer.isBuffer(first) ? first.toString('utf8') : String(first);
  }
  return out;
}

const toMessage = (record: OutgoingRecord): Message => ({
  partition: record.partition,
  key: record.key,
  value: record.value,
  headers: { ...record.headers },
});

function byPartition(records: readonly OutgoingRecord[]): Map<string, OutgoingRecord[]> {
  const groups = new Map<string, OutgoingRecord[]>();
  for (const record of records) {
    const key = `${record.topic}\u0000${record.partition}`;
    const group = groups.get(key);
    if (group) group.push(record);
    else groups.set(key, [record]);
  }
  return groups;
}

function byTopic(records: readonly OutgoingRecord[]): { topic: string; messages: Message[] }[] {
  const topics = new Map<string, Message[]>();
  for (const record of records) {
    const messages = topics.get(record.topic);
    if (messages) messages.push(toMessage(record));
    else topics.set(record.topic, [toMessage(record)]);
  }
  return [...topics].map(([topic, messages]) => ({ topic, messages }));
}

const PRODUCER_RETRY = { retries: 5, initialRetryTime: 100, maxRetryTime: 1_000 };

let timeoutWarningsQuiet = false;

/**
 * kafkajs 2.2.4 sets negative timeouts (Node clamps them to 1 ms) and Node 24 warns on each one:
 * the process prints every other warning as before, this one not at all.
 */
function quietNegativeTimeoutWarnings(): void {
  if (timeoutWarningsQuiet) return;
  timeoutWarningsQuiet = true;
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name !== 'TimeoutNegativeWarning')
      process.stderr.write(`${warning.name}: ${warning.message}\n`);
  });
}

export function createKafkajsClient(options: ClientOptions): KafkaClient {
  quietNegativeTimeoutWarnings();
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: [...options.brokers],
    // kafkajs logs a rebalance as an ERROR; WARN keeps real trouble visible without the noise.
    logLevel: logLevel.WARN,
    logCreator: pinoLogCreator(options.logger.child({ component: 'kafka' })),
    retry: { initialRetryTime: 200, retries: 8 },
  });

  // One admin connection for every metadata and offset question, opened on first use.
  let admin: Promise<Admin> | undefined;
  const adminClient = (): Promise<Admin> => {
    admin ??= (async () => {
      const created = kafka.admin();
      try {
        await created.connect();
      } catch (error) {
        admin = undefined;
        throw error;
      }
      return created;
    })();
    return admin;
  };
  const closing: Array<() => Promise<void>> = [];

  return {
    name: 'kafkajs',
    listTopics: async () => (await adminClient()).listTopics(),
    async createTopics(declarations) {
      await (await adminClient()).createTopics({
        waitForLeaders: true,
        topics: declarations.map((d) => ({
          topic: d.name,
          numPartitions: d.partitions,
          replicationFactor: -1,
          configEntries: [
            { name: 'cleanup.policy', value: d.cleanupPolicy },
            { name: 'retention.ms', value: String(d.retentionMs) },
            { name: 'max.message.bytes', value: String(d.maxMessageBytes) },
          ],
        })),
      });
    },
    async deleteTopics(names) {
      await (await adminClient()).deleteTopics({ topics: [...names] });
    },
    async addPartitions(topic, count) {
      await (await adminClient()).createPartitions({ topicPartitions: [{ topic, count }] });
    },
    async partitionCounts(names) {
      const { topics } = await (await adminClient()).fetchTopicMetadata({ topics: [...names] });
      return new Map(topics.map((t) => [t.name, t.partitions.length]));
    },
    async partitionStates(topic) {
      const { topics } = await (await adminClient()).fetchTopicMetadata({ topics: [topic] });
      return (topics[0]?.partitions ?? [])
        .map((p) => ({ partition: p.partitionId, leader: p.leader, replicas: p.replicas, isr: p.isr }))
        .sort((a, b) => a.partition - b.partition);
    },
    async watermarks(topic) {
      // kafkajs 2.2.4 throws a TypeError ("Cannot destructure property 'partitions' of
      // 'low.pop(...)'") when its metadata for the topic is momentarily empty, as when several
      // readers start at once on one admin: asked again, it answers.
      for (let attempt = 1; ; attempt++) {
        try {
          const offsets = await (await adminClient()).fetchTopicOffsets(topic);
          return offsets.map((o) => ({ partition: o.partition, low: BigInt(o.low), high: BigInt(o.high) }));
        } catch (error) {
          if (!(error instanceof TypeError) || attempt >= 5) throw error;
          await sleep(100 * attempt);
        }
      }
    },
    async offsetsAtTime(topic, ms) {
      // kafkajs answers the high watermark for a partition with nothing at or after `ms`.
      const offsets = await (await adminClient()).fetchTopicOffsetsByTimestamp(topic, ms);
      return new Map(offsets.map((o) => [o.partition, BigInt(o.offset)]));
    },
    async committedOffsets(groupId, topic) {
      const [offsets] = await (await adminClient()).fetchOffsets({ groupId, topics: [topic] });
      return new Map(
        (offsets?.partitions ?? [])
          .filter((p) => BigInt(p.offset) >= 0n)
          .map((p) => [p.partition, BigInt(p.offset)]),
      );
    },
    async setCommittedOffsets(groupId, topic, offsets) {
      await (await adminClient()).setOffsets({
        groupId,
        topic,
        partitions: [...offsets].map(([partition, offset]) => ({ partition, offset: offset.toString() })),
      });
    },
    async deleteGroups(groupIds) {
      await (await adminClient()).deleteGroups([...groupIds]);
    },
    async ping() {
      await (await adminClient()).describeCluster();
    },
    async createProducer(): Promise<ClientProducer> {
      const producer: Producer = kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
        createPartitioner: Partitioners.DefaultPartitioner,
        // ~2.5 s of retries: enough for a partition's leader to move, short enough that a send
        // given up on (its call answered UNAVAILABLE) does not linger and land much later.
        retry: PRODUCER_RETRY,
      });
      await producer.connect();
      return {
        // One request per partition: kafkajs 2.2.4 keeps one answer per broker across the retries of a
        // sendBatch, so when a partition's leader moves to a broker that already answered for others,
        // the retry skips that broker and the records are reported sent but never written
        // (producer/sendMessages.js; tulios/kafkajs#1303). A request for one partition cannot lose so.
        // kafkajs also drops, silently, the records of a partition its metadata does not list
        // (cluster.findLeaderForPartitions): a partition missing from the answer was not written.
        async send(records) {
          await Promise.all(
            [...byPartition(records).values()].map(async (group) => {
              const { topic, partition } = group[0]!;
              const written = await producer.sendBatch({
                acks: -1,
                compression: CompressionTypes.None,
                topicMessages: byTopic(group),
              });
              if (
                !written.some((r) => r.topicName === topic && r.partition === partition && r.errorCode === 0)
              )
                throw new Error(
                  `kafkajs answered without ${topic}[${partition}]: its records were not written`,
                );
            }),
          );
        },
        close: () => producer.disconnect(),
      };
    },
    async sendInTransaction(records) {
      const producer = kafka.producer({
        transactionalId: `${options.clientId}-tx-${process.pid}-${Date.now()}`,
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      await producer.connect();
      try {
        const transaction = await producer.transaction();
        try {
          for (const { topic, messages } of byTopic(records)) await transaction.send({ topic, messages });
          await transaction.commit();
        } catch (error) {
          await transaction.abort();
          throw error;
        }
      } finally {
        await producer.disconnect();
      }
    },
    consume: (consumeOptions) => startConsumer(kafka, consumeOptions, closing),
    async close() {
      for (const stop of closing.splice(0)) await stop().catch(() => undefined);
      const connected = admin;
      admin = undefined;
      if (connected) await (await connected.catch(() => undefined))?.disconnect();
    },
  };
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

async function startConsumer(
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
