// The bus's Kafka client on kafkajs 2.2.4.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Admin,
  CompressionTypes,
  Kafka,
  type logCreator,
  logLevel,
  type Message,
  Partitioners,
  type Producer,
} from 'kafkajs';
import type { Logger } from '../../logger.ts';
import './kafkajs-idle-timer.ts';
import { startConsumer } from './kafkajs-consumer.ts';
import type { ClientOptions, ClientProducer, KafkaClient, OutgoingRecord } from './types.ts';
import { partitionKey, writtenEnds } from './written.ts';

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

const toMessage = (record: OutgoingRecord): Message => ({
  partition: record.partition,
  key: record.key,
  value: record.value,
  headers: { ...record.headers },
});

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
        // One sendBatch for every partition: kafkajs's idempotent producer holds one request per broker
        // at a time, so a request per partition took one round trip per partition (6 for a report
        // batch on one broker; one-log reports 3,304/s, with this 5,089/s). kafkajs 2.2.4 keeps one
        // answer per broker across the retries of a sendBatch, so when a partition's leader moves to a
        // broker that already answered for others, the retry skips it and reports records sent that
        // were never written (producer/sendMessages.js; tulios/kafkajs#1303); it also drops, silently,
        // the records of a partition its metadata does not list. Either way that partition is missing
        // from the answer: every partition must be in it, written, or the send fails.
        async send(records) {
          const written = await producer.sendBatch({
            acks: -1,
            compression: CompressionTypes.None,
            topicMessages: byTopic(records),
          });
          const ends = writtenEnds(
            records,
            written
              .filter((r) => r.errorCode === 0 && r.baseOffset !== undefined)
              .map((r) => ({ topic: r.topicName, partition: r.partition, offset: BigInt(r.baseOffset!) })),
          );
          const answered = new Set(ends.map((end) => partitionKey(end.topic, end.partition)));
          for (const { topic, partition } of records)
            if (!answered.has(partitionKey(topic, partition)))
              throw new Error(
                `kafkajs answered without ${topic}[${partition}]: its records were not written`,
              );
          return ends;
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
