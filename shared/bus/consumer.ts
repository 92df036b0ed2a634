import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';
import { Registry } from 'prom-client';
import type { EventCatalog } from '../avro/catalog.ts';
import { type AppError, toAppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { busMetrics } from './bus-metrics.ts';
import { HEADERS, headersToStrings } from './headers.ts';
import type { EventProducer } from './producer.ts';
import { dlqName } from './topics.ts';

export interface ConsumedEvent {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string | null;
  /** Broker timestamp, ms since the epoch. */
  readonly timestamp: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly correlationId: string | undefined;
  readonly eventType: string;
  readonly writerVersion: number;
  readonly payload: Record<string, unknown>;
}

export interface WorkerOptions {
  readonly kafka: Kafka;
  readonly catalog: EventCatalog;
  /** Sends dead letters. */
  readonly producer: EventProducer;
  readonly logger: Logger;
  /** One group per worker kind: each group sees every event once. */
  readonly groupId: string;
  readonly topics: readonly string[];
  /** Where a group with no committed offset starts. Default: the beginning. */
  readonly fromBeginning?: boolean;
  /**
   * Applies events of one partition, in order. Offsets are committed only after it resolves, so
   * it may see an event again after a crash: it must be idempotent (by `event_id`). Throw an
   * AppError: retriable ones are retried (then the consumer restarts without committing);
   * anything else marks the events as poison, and they go to `<topic>.dlq` one by one.
   */
  readonly handle: (events: readonly ConsumedEvent[]) => Promise<void>;
  readonly maxBatchEvents?: number;
  /**
   * How long the group waits for a silent member before handing its partitions to another: the
   * window in which a crashed worker's partitions are not consumed. Default 10000 (the broker
   * accepts 6000 and up).
   */
  readonly sessionTimeoutMs?: number;
  /** How long a fetch waits for data; also bounds how long `stop` waits. Default 1000. */
  readonly maxWaitTimeInMs?: number;
  readonly retry?: {
    readonly attempts?: number;
    readonly initialDelayMs?: number;
    readonly maxDelayMs?: number;
  };
  readonly registry?: Registry;
}

export interface Worker {
  /** Resolves once the consumer joined its group (partitions assigned). */
  readonly joined: Promise<void>;
  /** Finishes the batch in hand, commits it, and leaves the group. */
  stop(): Promise<void>;
}

interface Received {
  readonly message: KafkaMessage;
  readonly event: ConsumedEvent;
}

/** kafkajs session and heartbeat settings for a session timeout (heartbeats at most a third of it). */
export function groupTimeouts(sessionTimeoutMs: number): {
  sessionTimeout: number;
  heartbeatInterval: number;
} {
  return {
    sessionTimeout: sessionTimeoutMs,
    heartbeatInterval: Math.min(3_000, Math.floor(sessionTimeoutMs / 3)),
  };
}

export async function startWorker(options: WorkerOptions): Promise<Worker> {
  const { catalog, producer, groupId, handle } = options;
  const logger = options.logger.child({ component: 'worker', group: groupId });
  const attempts = options.retry?.attempts ?? 5;
  const initialDelayMs = options.retry?.initialDelayMs ?? 100;
  const maxDelayMs = options.retry?.maxDelayMs ?? 5_000;
  const maxBatchEvents = options.maxBatchEvents ?? 500;
  const sessionTimeoutMs = options.sessionTimeoutMs ?? 10_000;
  const metrics = busMetrics(options.registry ?? new Registry());

  const consumer: Consumer = options.kafka.consumer({
    groupId,
    allowAutoTopicCreation: false,
    maxWaitTimeInMs: options.maxWaitTimeInMs ?? 1_000,
    ...groupTimeouts(sessionTimeoutMs),
    retry: { retries: 5, restartOnFailure: async () => true },
  });

  let markJoined: () => void = () => {};
  const joined = new Promise<void>((resolve) => {
    markJoined = resolve;
  });
  consumer.on(consumer.events.GROUP_JOIN, (e) => {
    logger.info({ assignment: e.payload.memberAssignment }, 'joined group');
    markJoined();
  });
  consumer.on(consumer.events.CRASH, (e) => {
    logger.error({ err: e.payload.error, restart: e.payload.restart }, 'consumer crashed');
  });

  async function deadLetter(
    topic: string,
    partition: number,
    message: KafkaMessage,
    reason: string,
  ): Promise<void> {
    logger.warn(
      { topic, partition, offset: message.offset, reason },
      'dead-lettering a message that can never be processed',
    );
    await producer.sendRaw(dlqName(topic), [
      {
        key: message.key,
        value: message.value,
        headers: {
          ...headersToStrings(message.headers),
          [HEADERS.dlqReason]: reason,
          [HEADERS.dlqTopic]: topic,
          [HEADERS.dlqPartition]: String(partition),
          [HEADERS.dlqOffset]: message.offset,
          [HEADERS.dlqGroup]: groupId,
        },
      },
    ]);
    metrics.deadLettered.inc({ topic, group: groupId });
  }

  function decode(topic: string, partition: number, message: KafkaMessage): ConsumedEvent {
    if (message.value === null) throw toAppError(new TypeError('empty value (tombstone)'));
    const decoded = catalog.decode(message.value);
    const headers = headersToStrings(message.headers);
    return {
      topic,
      partition,
      offset: message.offset,
      key: message.key?.toString('utf8') ?? null,
      timestamp: Number(message.timestamp),
      headers,
      correlationId: headers[HEADERS.correlationId],
      eventType: decoded.eventType,
      writerVersion: decoded.writerVersion,
      payload: decoded.payload,
    };
  }

  async function handleWithRetries(
    items: readonly Received[],
    context: { topic: string; partition: number; isRunning: () => boolean; heartbeat: () => Promise<void> },
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      let failure: AppError;
      try {
        await handle(items.map((i) => i.event));
        return;
      } catch (error) {
        failure = toAppError(error);
      }
      if (!failure.retriable) {
        if (items.length === 1)
          return deadLetter(context.topic, context.partition, items[0]!.message, failure.message);
        // Find the poison: every event alone, in order.
        for (const item of items) await handleWithRetries([item], context);
        return;
      }
      if (attempt >= attempts || !context.isRunning()) {
        logger.error(
          { err: failure, attempt },
          'handler keeps failing; restarting the consumer without committing',
        );
        throw failure;
      }
      metrics.handlerRetries.inc({ topic: context.topic, group: groupId });
      logger.warn({ err: failure, attempt }, 'handler failed; retrying');
      await sleep(Math.min(maxDelayMs, initialDelayMs * 2 ** (attempt - 1)));
      await context.heartbeat();
    }
  }

  await consumer.connect();
  for (const topic of options.topics)
    await consumer.subscribe({ topic, fromBeginning: options.fromBeginning ?? true });
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
      const { topic, partition } = batch;
      for (let start = 0; start < batch.messages.length; start += maxBatchEvents) {
        if (!isRunning() || isStale()) return;
        const chunk = batch.messages.slice(start, start + maxBatchEvents);
        const received: Received[] = [];
        for (const message of chunk) {
          try {
            received.push({ message, event: decode(topic, partition, message) });
          } catch (error) {
            await deadLetter(topic, partition, message, `undecodable: ${toAppError(error).message}`);
          }
        }
        if (received.length > 0)
          await handleWithRetries(received, { topic, partition, isRunning, heartbeat });
        const last = chunk.at(-1)!.offset;
        await consumer.commitOffsets([{ topic, partition, offset: (BigInt(last) + 1n).toString() }]);
        resolveOffset(last);
        metrics.consumed.inc({ topic, group: groupId }, received.length);
        await heartbeat();
      }
    },
  });

  return {
    joined,
    stop: () => consumer.disconnect(),
  };
}
