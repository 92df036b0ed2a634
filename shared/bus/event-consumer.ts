// An event consumer: a consumer group that applies events with a handler and commits each batch only after
// the handler's effect is done (at-least-once), retrying what may pass and dead-lettering what never will.
import { setTimeout as sleep } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { type AppError, toAppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Bus } from './bus.ts';
import { busMetrics } from './bus-metrics.ts';
import type { BatchContext, FetchedBatch } from './client/types.ts';
import { type ConsumedEvent, decodeRecord, type EventPayloads, type PlacedRecord } from './events.ts';
import type { EventProducer } from './producer.ts';

export interface EventConsumerOptions<E = EventPayloads> {
  readonly bus: Bus;
  /** Sends dead letters. */
  readonly producer: Pick<EventProducer, 'deadLetter'>;
  readonly logger?: Logger;
  /** One group per worker kind: each group sees every event once. A new group starts at the beginning. */
  readonly groupId: string;
  readonly topics: readonly string[];
  /**
   * Applies events of one partition, in order. Offsets are committed only after it resolves, so
   * it may see an event again after a crash: it must be idempotent (by `event_id`). Throw an
   * AppError: retriable ones are retried (then the consumer restarts without committing);
   * anything else marks the events as poison, and they go to `<topic>.dlq` one by one.
   */
  readonly handle: (events: readonly ConsumedEvent<E>[]) => Promise<void>;
  readonly maxBatchEvents?: number;
  /**
   * How long the group waits for a silent member before handing its partitions to another: the
   * window in which a crashed worker's partitions are not consumed. Default 10000 (the broker
   * accepts 6000 and up).
   */
  readonly sessionTimeoutMs?: number;
  /** How long a fetch waits for data; also bounds how long `stop` waits. Default 1000. */
  readonly maxWaitMs?: number;
  readonly retry?: {
    readonly attempts?: number;
    readonly initialDelayMs?: number;
    readonly maxDelayMs?: number;
  };
  readonly registry?: Registry;
}

export interface EventConsumer {
  /** Resolves once the consumer joined its group (partitions assigned). */
  readonly joined: Promise<void>;
  /** Rejects when the consumer stopped for good on an error (run it under a supervisor). */
  readonly ended: Promise<never>;
  /** Finishes the batch in hand, commits it, and leaves the group. */
  stop(): Promise<void>;
}

/** The client sends a heartbeat only when its interval has passed, so asking often costs nothing. */
const HEARTBEAT_WHILE_HANDLING_MS = 1_000;

interface Received<E> {
  readonly record: PlacedRecord;
  readonly event: ConsumedEvent<E>;
}

export async function startEventConsumer<E = EventPayloads>(
  options: EventConsumerOptions<E>,
): Promise<EventConsumer> {
  const { bus, producer, groupId, handle } = options;
  const logger = (options.logger ?? bus.logger).child({ group: groupId });
  const attempts = options.retry?.attempts ?? 5;
  const initialDelayMs = options.retry?.initialDelayMs ?? 100;
  const maxDelayMs = options.retry?.maxDelayMs ?? 5_000;
  const maxBatchEvents = options.maxBatchEvents ?? 500;
  const metrics = busMetrics(options.registry ?? new Registry());

  async function deadLetter(record: PlacedRecord, reason: string): Promise<void> {
    logger.warn(
      { topic: record.topic, partition: record.partition, offset: record.offset.toString(), reason },
      'dead-lettering a message that can never be processed',
    );
    await producer.deadLetter(record, reason, groupId);
    metrics.deadLettered.inc({ topic: record.topic, group: groupId });
  }

  async function handleWithRetries(items: readonly Received<E>[], context: BatchContext): Promise<void> {
    const topic = items[0]!.record.topic;
    for (let attempt = 1; ; attempt++) {
      let failure: AppError;
      // A long write must not look like a dead member to the group: keep telling it otherwise.
      const beating = setInterval(
        () => void context.heartbeat().catch(() => undefined),
        HEARTBEAT_WHILE_HANDLING_MS,
      );
      try {
        await handle(items.map((i) => i.event));
        return;
      } catch (error) {
        failure = toAppError(error);
      } finally {
        clearInterval(beating);
      }
      if (!failure.retriable) {
        if (items.length === 1) return deadLetter(items[0]!.record, failure.message);
        // Find the poison: every event alone, in order.
        for (const item of items) await handleWithRetries([item], context);
        return;
      }
      if (attempt >= attempts || !context.isActive()) {
        logger.error(
          { err: failure, attempt },
          'handler keeps failing; restarting the consumer without committing',
        );
        throw failure;
      }
      metrics.handlerRetries.inc({ topic, group: groupId });
      logger.warn({ err: failure, attempt }, 'handler failed; retrying');
      await sleep(Math.min(maxDelayMs, initialDelayMs * 2 ** (attempt - 1)));
      await context.heartbeat();
    }
  }

  const onBatch = async (batch: FetchedBatch, context: BatchContext): Promise<void> => {
    const { topic, partition } = batch;
    for (let start = 0; start < batch.records.length; start += maxBatchEvents) {
      if (!context.isActive()) return;
      const chunk = batch.records.slice(start, start + maxBatchEvents);
      const received: Received<E>[] = [];
      for (const raw of chunk) {
        const record = { ...raw, topic, partition };
        try {
          received.push({ record, event: decodeRecord<E>(bus.catalog, record) });
        } catch (error) {
          await deadLetter(record, `undecodable: ${toAppError(error).message}`);
        }
      }
      if (received.length > 0) await handleWithRetries(received, context);
      await context.commit(chunk.at(-1)!.offset + 1n);
      metrics.consumed.inc({ topic, group: groupId }, received.length);
      await context.heartbeat();
    }
  };

  const consumer = await bus.client.consume({
    groupId,
    topics: options.topics,
    sessionTimeoutMs: options.sessionTimeoutMs ?? 10_000,
    maxWaitMs: options.maxWaitMs ?? 1_000,
    startAt: () => undefined,
    onBatch,
    onAssigned: (assignment) => logger.info({ assignment: Object.fromEntries(assignment) }, 'joined group'),
  });
  consumer.failed.catch((error: unknown) => logger.error({ err: error }, 'consumer stopped on an error'));

  return { joined: consumer.joined, ended: consumer.failed, stop: () => consumer.stop() };
}
