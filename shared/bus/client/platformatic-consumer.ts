// A consumer group member on @platformatic/kafka: the library's message stream, read in batches
// per partition, with each partition's own start, pause and commit.
import { Consumer, type Message, type MessagesStream } from '@platformatic/kafka';
import { heartbeatIntervalFor, memberOutcome } from './group-member.ts';
import { createLinger, type Linger } from './linger.ts';
import { PartitionBook, partitionKey } from './platformatic-partitions.ts';
import { asRetriable, toRawRecord, translated } from './platformatic-records.ts';
import type { BatchContext, ConsumeOptions, GroupConsumer, RawRecord } from './types.ts';

/** How many records one batch hands over at most (the worker's transaction size is its own). */
const MAX_BATCH_RECORDS = 2_000;

type Stream = MessagesStream<Buffer, Buffer, Buffer, Buffer>;
type StreamMessage = Message<Buffer, Buffer, Buffer, Buffer>;

export interface ConnectionBase {
  readonly clientId: string;
  readonly bootstrapBrokers: string[];
  readonly retries: number;
  readonly retryDelay: number;
}

/**
 * Reads the stream in batches of at most MAX_BATCH_RECORDS and hands each to `handle`, one at a
 * time, until the stream ends or `stopped()`. The stream fetches only while someone listens for
 * 'readable' (without a listener it stops for good), so one listener stays for the stream's life
 * and wakes the loop. `done` rejects with the error of `handle`.
 */
function pump(
  stream: Stream,
  handle: (messages: StreamMessage[]) => Promise<void>,
  stopped: () => boolean,
  linger: Linger,
): { done: Promise<void>; wake: () => void } {
  let signalled = false;
  let waiting: (() => void) | undefined;
  const wake = () => {
    signalled = true;
    const w = waiting;
    waiting = undefined;
    w?.();
  };
  stream.on('readable', wake);
  stream.on('close', wake);
  const done = (async () => {
    while (!stopped()) {
      signalled = false;
      const messages: StreamMessage[] = [];
      while (messages.length < MAX_BATCH_RECORDS) {
        const m: StreamMessage | null = stream.read();
        if (m === null) break;
        messages.push(m);
      }
      if (messages.length === 0) {
        if (stream.destroyed || stream.readableEnded) return;
        if (!signalled) await new Promise<void>((resolve) => (waiting = resolve));
        continue;
      }
      await handle(messages);
      // Records arriving meanwhile are read together at the next turn; a reader with more already
      // fetched (catching up) goes on at once.
      const drained = messages.length < MAX_BATCH_RECORDS && stream.readableLength === 0;
      if (drained && !stopped()) await linger.wait();
    }
  })();
  return { done, wake };
}

interface FetchedRecords {
  readonly topic: string;
  readonly partition: number;
  readonly records: RawRecord[];
}

export async function startConsumer(
  base: ConnectionBase,
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
    minBytes: options.minBytes ?? 1,
    metadataMaxAge: options.metadataMaxAgeMs ?? 30_000,
    autocommit: false,
  });
  const { joined, markJoined, failed, markFailed } = memberOutcome();
  const book = new PartitionBook();
  const linger = createLinger(options);
  let stream: Stream | undefined;
  let stopped = false;

  const partitionCounts = async (forceUpdate: boolean) => {
    const topics = [...options.topics];
    const metadata = await consumer.metadata(forceUpdate ? { topics, forceUpdate } : { topics });
    return new Map(options.topics.map((t) => [t, metadata.topics.get(t)?.partitionsCount ?? 0]));
  };
  const rememberCounts = () => {
    partitionCounts(false).then(
      (counts) => book.rememberCounts(counts),
      () => undefined,
    );
  };
  // The stream sets every assigned partition's position (committed, or the earliest offset) and
  // then says 'offsets': that is where a partition's own start replaces it.
  const applyStarts = () => {
    if (stream) book.applyStarts(options.startAt, stream.offsetsToFetch);
  };

  let assignmentSeen = false;
  consumer.on('consumer:group:join', (payload) => {
    const assignment = book.assign(payload.assignments ?? [], true);
    assignmentSeen = true;
    rememberCounts();
    options.onAssigned?.(assignment);
    markJoined();
  });

  stream = await consumer.consume({
    topics: [...options.topics],
    mode: 'committed',
    fallbackMode: 'earliest',
    autocommit: false,
    maxWaitTime: options.maxWaitMs,
    minBytes: options.minBytes ?? 1,
  });
  stream.on('offsets', applyStarts);
  applyStarts();

  let processing = false;
  // Positions include control records (transaction markers) that no message shows, so they are
  // reported only when everything fetched so far was handed over.
  const reportPositions = () => {
    if (!stream || processing || stream.readableLength > 0 || !options.onPosition) return;
    for (const [topic, partition, next] of book.positions(stream.offsetsToFetch))
      options.onPosition(topic, partition, next);
  };
  stream.on('fetch', () => setImmediate(reportPositions));
  stream.on('error', (error) => {
    if (!stopped) markFailed(asRetriable(error));
  });

  const dispatch = async (messages: StreamMessage[]): Promise<void> => {
    // The stream interleaves partitions; each partition's records travel as one batch, in order
    // (a batch per consecutive run would cost a transaction and a commit per record or two).
    const byPartition = new Map<string, FetchedRecords>();
    for (const m of messages) {
      const key = partitionKey(m.topic, m.partition);
      if (!book.keep(key, m.offset, m.leaderEpoch)) continue;
      let batch = byPartition.get(key);
      if (batch === undefined) {
        batch = { topic: m.topic, partition: m.partition, records: [] };
        byPartition.set(key, batch);
      }
      batch.records.push(toRawRecord(m));
    }
    const handOver = async ([key, { topic, partition, records }]: [string, FetchedRecords]) => {
      book.clearFloor(key);
      const generation = consumer.generationId;
      const context: BatchContext = {
        heartbeat: async () => {},
        isActive: () => !stopped && book.isAssigned(key) && consumer.generationId === generation,
        commit: (next) =>
          translated(() =>
            consumer.commit({ offsets: [{ topic, partition, offset: next, leaderEpoch: book.epoch(key) }] }),
          ),
      };
      await options.onBatch({ topic, partition, records }, context);
    };
    // Each partition appears once here, so handing several over at once keeps every partition's order.
    const batches = [...byPartition];
    const atOnce = Math.max(1, options.concurrentPartitions ?? 1);
    for (let i = 0; i < batches.length; i += atOnce)
      await Promise.all(batches.slice(i, i + atOnce).map(handOver));
  };

  const reading = pump(
    stream,
    async (messages) => {
      processing = true;
      try {
        await dispatch(messages);
      } finally {
        processing = false;
      }
      reportPositions();
    },
    () => stopped,
    linger,
  );
  reading.done.catch(markFailed);

  if (!assignmentSeen && consumer.assignments) {
    // Joined before the listener saw it (the join happens inside consume()).
    const assignment = book.assign(consumer.assignments, false);
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
      if (book.grew(await partitionCounts(true)) && !stopped) await consumer.joinGroup({});
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
      reading.wake();
      await reading.done.catch(() => undefined);
      await stream?.close().catch(() => undefined);
      await consumer.close().catch(() => undefined);
    })();
    return stopping;
  };
  closing.push(stop);
  return {
    joined,
    failed,
    pause: (topic, partition) => book.pause(topic, partition),
    hurry: () => linger.hurry(),
    async stop() {
      const at = closing.indexOf(stop);
      if (at >= 0) closing.splice(at, 1);
      await stop();
    },
  };
}
