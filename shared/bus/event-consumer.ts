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
  /** Events per call of `handle` from one partition (default 500). */
  readonly maxBatchEvents?: number;
  /**
   * Handle the batches of several partitions that one fetch hands over in one call of `handle`
   * (each partition's events in order, partitions one after another): one store transaction and
   * one commit request for them all instead of one per partition. Default false.
   */
  readonly handleTogether?: boolean;
  /** Called after the group committed `next` on a partition (everything before it is applied). */
  readonly onCommitted?: (topic: string, partition: number, next: bigint) => void;
  /** Each time the group hands this member its partitions (by topic). */
  readonly onAssigned?: (assignment: ReadonlyMap<string, readonly number[]>) => void;
  /**
   * How long the group waits for a silent member before handing its partitions to another: the
   * window in which a crashed worker's partitions are not consumed. Default 10000 (the broker
   * accepts 6000 and up).
   */
  readonly sessionTimeoutMs?: number;
  /** How long a fetch waits for data; also bounds how long `stop` waits. Default 1000. */
  readonly maxWaitMs?: number;
  /** A fetch answers once this many bytes are there, or after `maxWaitMs` (see ConsumeOptions). Default 1. */
  readonly minBytes?: number;
  /** After a batch, the next fetch waits this long (see ConsumeOptions). Default 0. */
  readonly lingerMs?: number;
  /** Checked before each linger: false skips it (see ConsumeOptions). */
  readonly lingerIf?: () => boolean;
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

/** Partitions whose batches one consumer hands over at once when they are handled together. */
const TOGETHER_PARTITIONS = 64;

/**
 * Gathers the batches handed over in one turn of the event loop (the partitions of one fetch)
 * and handles them in one call; resolves each with false when its partition was taken away first.
 */
function handleTogether<E>(
  handle: (items: readonly Received<E>[], context: BatchContext) => Promise<void>,
): (items: Received<E>[], context: BatchContext) => Promise<boolean> {
  type Waiting = {
    items: Received<E>[];
    context: BatchContext;
    resolve(ok: boolean): void;
    reject(e: unknown): void;
  };
  let waiting: Waiting[] = [];
  const flush = async (): Promise<void> => {
    const batch = waiting;
    waiting = [];
    const live = batch.filter((w) => w.context.isActive());
    for (const w of batch) if (!live.includes(w)) w.resolve(false);
    if (live.length === 0) return;
    const together: BatchContext = {
      heartbeat: () => live[0]!.context.heartbeat(),
      isActive: () => live.every((w) => w.context.isActive()),
      commit: () => Promise.reject(new Error('commits are made per partition')),
    };
    try {
      await handle(
        live.flatMap((w) => w.items),
        together,
      );
      for (const w of live) w.resolve(true);
    } catch (error) {
      for (const w of live) w.reject(error);
    }
  };
  return (items, context) =>
    new Promise<boolean>((resolve, reject) => {
      if (waiting.length === 0) setImmediate(() => void flush());
      waiting.push({ items, context, resolve, reject });
    });
}

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

  const handled = options.handleTogether
    ? handleTogether(handleWithRetries)
    : async (items: Received<E>[], context: BatchContext) => {
        await handleWithRetries(items, context);
        return true;
      };

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
      if (received.length > 0 && !(await handled(received, context))) return;
      const next = chunk.at(-1)!.offset + 1n;
      await context.commit(next);
      options.onCommitted?.(topic, partition, next);
      metrics.consumed.inc({ topic, group: groupId }, received.length);
      await context.heartbeat();
    }
  };

  const consumer = await bus.client.consume({
    groupId,
    topics: options.topics,
    sessionTimeoutMs: options.sessionTimeoutMs ?? 10_000,
    maxWaitMs: options.maxWaitMs ?? 1_000,
    ...(options.handleTogether ? { concurrentPartitions: TOGETHER_PARTITIONS } : {}),
    ...(options.minBytes === undefined ? {} : { minBytes: options.minBytes }),
    ...(options.lingerMs === undefined ? {} : { lingerMs: options.lingerMs }),
    ...(options.lingerIf === undefined ? {} : { lingerIf: options.lingerIf }),
    startAt: () => undefined,
    onBatch,
    onAssigned: (assignment) => {
      logger.info({ assignment: Object.fromEntries(assignment) }, 'joined group');
      options.onAssigned?.(assignment);
    },
  });
  consumer.failed.catch((error: unknown) => logger.error({ err: error }, 'consumer stopped on an error'));

  return { joined: consumer.joined, ended: consumer.failed, stop: () => consumer.stop() };
}
