// The bus's Kafka client on @platformatic/kafka (pure TypeScript, maintained).
import { setTimeout as sleep } from 'node:timers/promises';
import { Admin, FetchIsolationLevels, Producer } from '@platformatic/kafka';
import { type ConnectionBase, startConsumer } from './platformatic-consumer.ts';
import { apiIds, toMessage, translated } from './platformatic-records.ts';
import type { ClientOptions, ClientProducer, KafkaClient } from './types.ts';
import { writtenEnds } from './written.ts';

export function createPlatformaticClient(options: ClientOptions): KafkaClient {
  const base: ConnectionBase = {
    clientId: options.clientId,
    bootstrapBrokers: [...options.brokers],
    retries: 8,
    retryDelay: 200,
  };
  const admin = new Admin(base);
  const closing: Array<() => Promise<void>> = [];

  const offsetsAt = async (topic: string, timestamp: bigint): Promise<Map<number, bigint>> => {
    const counts = await admin.metadata({ topics: [topic] });
    const partitions = counts.topics.get(topic)?.partitionsCount ?? 0;
    const [listed] = await admin.listOffsets({
      topics: [
        {
          name: topic,
          partitions: Array.from({ length: partitions }, (_, p) => ({ partitionIndex: p, timestamp })),
        },
      ] as never,
      isolationLevel: FetchIsolationLevels.READ_UNCOMMITTED,
    });
    return new Map((listed?.partitions ?? []).map((p) => [p.partitionIndex, p.offset]));
  };

  // A created topic is usable once every partition has a leader (kafkajs's waitForLeaders).
  const leadersOf = async (names: readonly string[]): Promise<void> => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        const metadata = await admin.metadata({ topics: [...names], forceUpdate: true });
        const ready = names.every((n) => {
          const topic = metadata.topics.get(n);
          return topic?.partitions.every((p) => p !== undefined && p.leader >= 0) === true;
        });
        if (ready) return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
      }
      if (Date.now() > deadline) throw new Error(`topics ${names.join(', ')} have no leader after 15 s`);
      await sleep(100);
    }
  };

  return {
    name: 'platformatic',
    listTopics: () => translated(() => admin.listTopics()),
    createTopics: (declarations) =>
      translated(async () => {
        for (const d of declarations) {
          try {
            await admin.createTopics({
              topics: [d.name],
              partitions: d.partitions,
              replicas: -1,
              configs: [
                { name: 'cleanup.policy', value: d.cleanupPolicy },
                { name: 'retention.ms', value: String(d.retentionMs) },
                { name: 'max.message.bytes', value: String(d.maxMessageBytes) },
              ],
            });
          } catch (error) {
            // Another instance created it first: what it wanted exists.
            const ids = apiIds(error);
            if (ids.length === 0 || ids.some((id) => id !== 'TOPIC_ALREADY_EXISTS')) throw error;
          }
        }
        await leadersOf(declarations.map((d) => d.name));
      }),
    deleteTopics: (names) => translated(() => admin.deleteTopics({ topics: [...names] })),
    addPartitions: (topic, count) =>
      translated(() => admin.createPartitions({ topics: [{ name: topic, count, assignments: null }] })),
    partitionCounts: (names) =>
      translated(async () => {
        const existing = new Set(await admin.listTopics());
        const wanted = names.filter((n) => existing.has(n));
        if (wanted.length === 0) return new Map();
        const metadata = await admin.metadata({ topics: wanted, forceUpdate: true });
        return new Map(wanted.map((n) => [n, metadata.topics.get(n)?.partitionsCount ?? 0]));
      }),
    partitionStates: (topic) =>
      translated(async () => {
        const metadata = await admin.metadata({ topics: [topic], forceUpdate: true });
        return (metadata.topics.get(topic)?.partitions ?? []).map((p, partition) => ({
          partition,
          leader: p.leader,
          replicas: p.replicas,
          isr: p.isr,
        }));
      }),
    watermarks: (topic) =>
      translated(async () => {
        const [low, high] = await Promise.all([offsetsAt(topic, -2n), offsetsAt(topic, -1n)]);
        return [...high]
          .sort(([a], [b]) => a - b)
          .map(([partition, h]) => ({ partition, low: low.get(partition) ?? 0n, high: h }));
      }),
    offsetsAtTime: (topic, ms) =>
      translated(async () => {
        const [at, high] = await Promise.all([offsetsAt(topic, BigInt(ms)), offsetsAt(topic, -1n)]);
        // The broker answers -1 for a partition with nothing at or after `ms`: read from its end.
        return new Map([...high].map(([p, h]) => [p, (at.get(p) ?? -1n) >= 0n ? at.get(p)! : h]));
      }),
    committedOffsets: (groupId, topic) =>
      translated(async () => {
        const [group] = await admin.listConsumerGroupOffsets({ groups: [groupId] });
        const found = group?.topics.find((t) => t.name === topic);
        return new Map(
          (found?.partitions ?? [])
            .filter((p) => p.committedOffset >= 0n)
            .map((p) => [p.partitionIndex, p.committedOffset]),
        );
      }),
    setCommittedOffsets: (groupId, topic, offsets) =>
      translated(() =>
        admin.alterConsumerGroupOffsets({
          groupId,
          topics: [
            {
              name: topic,
              partitionOffsets: [...offsets].map(([partition, offset]) => ({ partition, offset })),
            },
          ],
        }),
      ),
    deleteGroups: (groupIds) => translated(() => admin.deleteGroups({ groups: [...groupIds] })),
    ping: () => translated(async () => void (await admin.metadata({ topics: [], forceUpdate: true }))),
    async createProducer(): Promise<ClientProducer> {
      const producer = new Producer({ ...base, idempotent: true, acks: -1, autocreateTopics: false });
      await translated(() => producer.metadata({ topics: [] }));
      const stop = () => producer.close();
      closing.push(stop);
      return {
        send: (records) =>
          translated(async () => {
            const result = await producer.send({ messages: records.map(toMessage) });
            return writtenEnds(
              records,
              (result.offsets ?? []).map((o) => ({ ...o, offset: BigInt(o.offset) })),
            );
          }),
        async close() {
          const at = closing.indexOf(stop);
          if (at >= 0) closing.splice(at, 1);
          await stop();
        },
      };
    },
    sendInTransaction: (records) =>
      translated(async () => {
        const producer = new Producer({
          ...base,
          transactionalId: `${options.clientId}-tx-${process.pid}-${Date.now()}`,
          idempotent: true,
          acks: -1,
          autocreateTopics: false,
        });
        try {
          const transaction = await producer.beginTransaction();
          try {
            await transaction.send({ messages: records.map(toMessage) });
            await transaction.commit();
          } catch (error) {
            await transaction.abort().catch(() => undefined);
            throw error;
          }
        } finally {
          await producer.close();
        }
      }),
    consume: (consumeOptions) => translated(() => startConsumer(base, consumeOptions, closing)),
    async close() {
      for (const stop of closing.splice(0)) await stop().catch(() => undefined);
      await admin.close().catch(() => undefined);
    },
  };
}
