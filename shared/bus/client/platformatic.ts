// The bus's Kafka client on @platformatic/kafka (pure TypeScript, maintained).
import { setTimeout as sleep } from 'node:timers/promises';
import {
  Admin,
  Consumer,
  FetchIsolationLevels,
  type Message,
  type MessagesStream,
  type MessageToProduce,
  Producer,
} from '@platformatic/kafka';
import { heartbeatIntervalFor, memberOutcome } from './group-member.ts';
import type {
  BatchContext,
  ClientOptions,
  ClientProducer,
  ConsumeOptions,
  GroupConsumer,
  KafkaClient,
  OutgoingRecord,
  RawRecord,
} from './types.ts';

/** How many records one batch hands over at most (the worker's transaction size is its own). */
const MAX_BATCH_RECORDS = 2_000;

type Failure = Error & { canRetry?: boolean; apiId?: string; errors?: Failure[] };

/** Every protocol error id inside an error (a ResponseError carries several). */
function apiIds(error: Failure): string[] {
  return [...(error.apiId ? [error.apiId] : []), ...(error.errors ?? []).flatMap(apiIds)];
}

/**
 * The library says `canRetry`; the rest of the code (errors.ts, ensureTopics, the worker) reads
 * `retriable`, as the Kafka clients before it set it.
 */
function asRetriable(error: unknown): unknown {
  if (error instanceof Error) {
    const failure = error as Failure;
    const retriable =
      failure.canRetry === true ||
      (failure.errors ?? []).some((e) => e.canRetry === true && !e.apiId?.includes('TOPIC_ALREADY'));
    Object.defineProperty(error, 'retriable', { value: retriable, configurable: true });
  }
  return error;
}

async function translated<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw asRetriable(error);
  }
}

function headerText(headers: Map<Buffer, Buffer>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    const key = name.toString('utf8');
    if (!(key in out)) out[key] = value.toString('utf8');
  }
  return out;
}

function toMessage(record: OutgoingRecord): MessageToProduce {
  return {
    topic: record.topic,
    partition: record.partition,
    ...(record.key === null
      ? {}
      : { key: Buffer.isBuffer(record.key) ? record.key : Buffer.from(record.key) }),
    ...(record.value === null ? {} : { value: record.value }),
    headers: new Map(Object.entries(record.headers).map(([k, v]) => [Buffer.from(k), Buffer.from(v)])),
  };
}

export function createPlatformaticClient(options: ClientOptions): KafkaClient {
  const base = {
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
            const ids = apiIds(error as Failure);
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
          translated(async () => void (await producer.send({ messages: records.map(toMessage) }))),
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

async function startConsumer(
  base: { clientId: string; bootstrapBrokers: string[]; retries: number; retryDelay: number },
  options: ConsumeOptions,
  closing: Array<() => Promise<void>>,
): Promise<GroupConsumer> {
  const sessionTimeout = options.sessionTimeoutMs;
  const consumer = new Consumer({
    ...base,
    groupId: options.groupId,
    sessionTimeout,
    rebalanceTimeout: Math.max(sessionTimeout, 10_000),
    heartbeatInterval: heartbeatIntervalFor(sessionTimeout),
    maxWaitTime: options.maxWaitMs,
    metadataMaxAge: options.metadataMaxAgeMs ?? 30_000,
    autocommit: false,
  });

  const { joined, markJoined, failed, markFailed } = memberOutcome();

  const key = (topic: string, partition: number) => `${topic}:${partition}`;
  const assigned = new Set<string>();
  // Partitions whose start (options.startAt) was applied since the last assignment.
  const started = new Set<string>();
  // A start set while a fetch was in flight: records of that fetch below it are dropped here.
  const floors = new Map<string, bigint>();
  const paused = new Set<string>();
  const epochs = new Map<string, number>();
  let assignmentSeen = false;
  const knownCounts = new Map<string, number>();
  const rememberCounts = () => {
    consumer.metadata({ topics: [...options.topics] }).then(
      (metadata) => {
        for (const topic of options.topics)
          knownCounts.set(topic, metadata.topics.get(topic)?.partitionsCount ?? 0);
      },
      () => undefined,
    );
  };
  let stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | undefined;

  consumer.on('consumer:group:join', (payload) => {
    assigned.clear();
    started.clear();
    paused.clear();
    const assignment = new Map<string, number[]>();
    for (const { topic, partitions } of payload.assignments ?? []) {
      assignment.set(topic, [...partitions]);
      for (const p of partitions) assigned.add(key(topic, p));
    }
    assignmentSeen = true;
    rememberCounts();
    options.onAssigned?.(assignment);
    markJoined();
  });

  // The stream sets every assigned partition's position (committed, or the earliest offset) and
  // then says 'offsets': that is where a partition's own start replaces it.
  const applyStarts = () => {
    if (!stream) return;
    for (const k of assigned) {
      if (started.has(k)) continue;
      started.add(k);
      const at = k.lastIndexOf(':');
      const start = options.startAt(k.slice(0, at), Number(k.slice(at + 1)));
      if (start === undefined) continue;
      stream.offsetsToFetch.set(k, start);
      floors.set(k, start);
    }
  };

  stream = await consumer.consume({
    topics: [...options.topics],
    mode: 'committed',
    fallbackMode: 'earliest',
    autocommit: false,
    maxWaitTime: options.maxWaitMs,
  });
  stream.on('offsets', applyStarts);
  applyStarts();

  let stopped = false;
  let processing = false;
  // Positions include control records (transaction markers) that no message shows, so they are
  // reported only when everything fetched so far was handed over.
  const reportPositions = () => {
    if (!stream || processing || stream.readableLength > 0 || !options.onPosition) return;
    for (const k of assigned) {
      const next = stream.offsetsToFetch.get(k);
      if (next === undefined || paused.has(k)) continue;
      const floor = floors.get(k);
      if (floor !== undefined && next < floor) continue;
      const at = k.lastIndexOf(':');
      options.onPosition(k.slice(0, at), Number(k.slice(at + 1)), next);
    }
  };
  stream.on('fetch', () => setImmediate(reportPositions));
  stream.on('error', (error) => {
    if (!stopped) markFailed(asRetriable(error));
  });

  const dispatch = async (messages: Message<Buffer, Buffer, Buffer, Buffer>[]): Promise<void> => {
    // The stream interleaves partitions; each partition's records travel as one batch, in order
    // (a batch per consecutive run would cost a transaction and a commit per record or two).
    const byPartition = new Map<string, { topic: string; partition: number; records: RawRecord[] }>();
    for (const m of messages) {
      const k = key(m.topic, m.partition);
      const floor = floors.get(k);
      if ((floor !== undefined && m.offset < floor) || paused.has(k) || !assigned.has(k)) continue;
      epochs.set(k, m.leaderEpoch);
      let batch = byPartition.get(k);
      if (batch === undefined) {
        batch = { topic: m.topic, partition: m.partition, records: [] };
        byPartition.set(k, batch);
      }
      batch.records.push({
        offset: m.offset,
        timestamp: Number(m.timestamp),
        key: m.key ?? null,
        value: m.value ?? null,
        headers: headerText(m.headers),
      });
    }
    for (const [k, { topic, partition, records }] of byPartition) {
      floors.delete(k);
      const generation = consumer.generationId;
      const context: BatchContext = {
        heartbeat: async () => {},
        isActive: () => !stopped && assigned.has(k) && consumer.generationId === generation,
        commit: (next) =>
          translated(() =>
            consumer.commit({
              offsets: [{ topic, partition, offset: next, leaderEpoch: epochs.get(k) ?? -1 }],
            }),
          ),
      };
      await options.onBatch({ topic, partition, records }, context);
    }
  };

  // The stream fetches only while someone listens for 'readable' (without a listener it stops
  // for good), so one listener stays for the stream's life and wakes the loop below.
  const live = stream;
  let signalled = false;
  let wake: (() => void) | undefined;
  const signal = () => {
    signalled = true;
    const w = wake;
    wake = undefined;
    w?.();
  };
  live.on('readable', signal);
  live.on('close', signal);

  const loop = (async () => {
    while (!stopped) {
      signalled = false;
      const messages: Message<Buffer, Buffer, Buffer, Buffer>[] = [];
      while (messages.length < MAX_BATCH_RECORDS) {
        const m: Message<Buffer, Buffer, Buffer, Buffer> | null = live.read();
        if (m === null) break;
        messages.push(m);
      }
      if (messages.length === 0) {
        if (live.destroyed || live.readableEnded) return;
        if (!signalled) await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      processing = true;
      try {
        await dispatch(messages);
      } catch (error) {
        markFailed(error);
        return;
      } finally {
        processing = false;
      }
      reportPositions();
    }
  })();

  if (!assignmentSeen && consumer.assignments) {
    // Joined before the listener saw it (the join happens inside consume()).
    const assignment = new Map<string, number[]>();
    for (const { topic, partitions } of consumer.assignments) {
      assignment.set(topic, [...partitions]);
      for (const p of partitions) assigned.add(key(topic, p));
    }
    applyStarts();
    rememberCounts();
    options.onAssigned?.(assignment);
    markJoined();
  }

  // The library does not rebalance when a topic gains partitions; Kafka's own clients do, at the
  // next metadata refresh. So does this: a member that sees more partitions than at its last join
  // joins again.
  let rejoining = false;
  const watchPartitions = setInterval(async () => {
    if (stopped || rejoining) return;
    rejoining = true;
    try {
      const metadata = await consumer.metadata({ topics: [...options.topics], forceUpdate: true });
      let grew = false;
      for (const topic of options.topics) {
        const count = metadata.topics.get(topic)?.partitionsCount ?? 0;
        const before = knownCounts.get(topic);
        if (before !== undefined && count > before) grew = true;
      }
      if (grew && !stopped) await consumer.joinGroup({});
    } catch {
      // The next round asks again; a lasting failure shows in the stream's own error.
    } finally {
      rejoining = false;
    }
  }, options.metadataMaxAgeMs ?? 30_000);
  watchPartitions.unref();

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped = true;
    clearInterval(watchPartitions);
    stopping ??= (async () => {
      signal();
      await loop.catch(() => undefined);
      await stream?.close().catch(() => undefined);
      await consumer.close().catch(() => undefined);
    })();
    return stopping;
  };
  closing.push(stop);
  return {
    joined,
    failed,
    pause: (topic, partition) => paused.add(key(topic, partition)),
    async stop() {
      const at = closing.indexOf(stop);
      if (at >= 0) closing.splice(at, 1);
      await stop();
    },
  };
}
