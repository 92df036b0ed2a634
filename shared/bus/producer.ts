import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { AppError, invalidArgument, unavailable } from '../errors.ts';
import type { Bus } from './bus.ts';
import { producerMetrics } from './bus-metrics.ts';
import type { ClientProducer, OutgoingRecord, WrittenPartition } from './client/types.ts';
import type { OutgoingEvent, PlacedRecord, WritablePayloads } from './events.ts';
import { HEADERS } from './headers.ts';
import { partitionOf } from './partitioner.ts';

export interface EventProducer<E = WritablePayloads> {
  /**
   * Encodes every event first (a bad one rejects the whole call with INVALID_ARGUMENT and nothing
   * is sent), then resolves only after the broker acknowledged them all (acks=all). Broker
   * failures reject with UNAVAILABLE. Calls made while a request is in flight travel together in
   * the next one, each keeping its order.
   */
  publish(topic: string, events: readonly OutgoingEvent<E>[]): Promise<void>;
  /**
   * Publishes events already encoded in the version `schemaHeader` names (hot paths that write the
   * bytes themselves); resolves after acks=all like `publish`. A value of another version or type
   * rejects the whole call with INVALID_ARGUMENT, nothing sent.
   */
  publishEncoded(topic: string, events: readonly EncodedEvent[]): Promise<void>;
  /**
   * The first 10 bytes (marker and fingerprint) of every value of `eventType` this producer writes,
   * for a hand-written encoder of schema `version`: throws (INTERNAL) when `version` is not the
   * current one, so an encoder left behind by a schema change fails at start, not on a reader.
   */
  schemaHeader(eventType: keyof E & string, version: number): Buffer;
  /** Writes records as they are, to the partition of their key (tools, tests). */
  publishRaw(
    topic: string,
    records: readonly { key: string | null; value: Buffer | null; headers?: Record<string, string> }[],
  ): Promise<void>;
  /** Writes a record that can never be processed to `<topic>.dlq`, with the reason in its headers. */
  deadLetter(record: PlacedRecord, reason: string, group: string): Promise<void>;
  disconnect(): Promise<void>;
}

/** An event whose value is its Avro single-object encoding already. */
export interface EncodedEvent {
  readonly eventType: string;
  readonly key: string;
  readonly value: Buffer;
  readonly eventId: string;
  readonly correlationId?: string;
}

interface Pending {
  readonly records: OutgoingRecord[];
  readonly bytes: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** Bound on what one coalesced request carries; a single larger call still goes alone. */
const MAX_COALESCED_BYTES = 4 * 1024 * 1024;
/** How long a topic's partition count is trusted before it is asked again (partitions added later). */
const PARTITION_COUNT_TTL_MS = 30_000;

export async function createEventProducer<E = WritablePayloads>(
  bus: Bus,
  options: {
    registry?: Registry;
    /** Told where each acknowledged send ended on each partition (ingest admission reads it). */
    onWritten?: (written: WrittenPartition) => void;
  } = {},
): Promise<EventProducer<E>> {
  const { catalog, client, link } = bus;
  const metrics = producerMetrics(options.registry ?? new Registry());
  const connect = async (): Promise<ClientProducer> => {
    try {
      return await client.createProducer();
    } catch (error) {
      throw unavailable(`kafka: producer cannot connect: ${(error as Error).message}`, error);
    }
  };
  let producer = await connect();

  const failure = (topics: string, error: unknown): AppError =>
    error instanceof AppError
      ? error
      : unavailable(`kafka: publishing to ${topics} failed: ${(error as Error).message}`, error);

  // Every call awaits exactly one promise before it queues its records, so calls keep their order.
  const counts = new Map<string, { partitions: Promise<number>; until: number }>();
  function partitionsOf(topic: string): Promise<number> {
    const known = counts.get(topic);
    if (known && known.until > Date.now()) return known.partitions;
    const partitions = client.partitionCounts([topic]).then(
      (found) => {
        const count = found.get(topic);
        if (count === undefined) throw unavailable(`kafka: topic ${topic} does not exist`);
        return count;
      },
      (error: unknown) => {
        throw failure(topic, error);
      },
    );
    counts.set(topic, { partitions, until: Date.now() + PARTITION_COUNT_TTL_MS });
    partitions.catch(() => {
      if (counts.get(topic)?.partitions === partitions) counts.delete(topic);
    });
    return partitions;
  }

  // Without this, one call per request would cap the rate at one round trip per call (an
  // idempotent producer keeps one request in flight): calls that arrive meanwhile go together.
  const queue: Pending[] = [];
  let sending = false;
  // A new generation begins when Kafka is lost: the send then in flight may keep retrying in the
  // client library, so what comes after the return goes through a producer of its own.
  let generation = 0;
  // Set after any failed send (and when Kafka is lost): the next send goes through a new producer.
  // A failed send may still have been written, and the client keeps its idempotence sequence
  // numbers where they were: the next records would carry the same numbers, and the partition's
  // leader would take them for a retry of the failed ones and answer "written" without writing
  // them. (Seen: a broker leading partitions SIGKILLed under 50 reporters on a loaded machine; 49
  // refused logs stored, 23 acknowledged ones lost.) A new producer has a new producer id.
  let replaceProducer = false;

  /** The producer to send through now, a new one when the last send failed. */
  async function current(): Promise<ClientProducer> {
    if (!replaceProducer) return producer;
    const old = producer;
    producer = await connect();
    replaceProducer = false;
    metrics.replaced.inc();
    // Closed once its last send settles (or at once: a send still retrying then fails).
    void old.close().catch(() => undefined);
    return producer;
  }

  async function sendQueued(): Promise<void> {
    const mine = generation;
    sending = true;
    try {
      while (queue.length > 0 && mine === generation) {
        const through = await current();
        const batch: Pending[] = [queue.shift()!];
        let bytes = batch[0]!.bytes;
        while (queue.length > 0 && bytes + queue[0]!.bytes <= MAX_COALESCED_BYTES) {
          bytes += queue[0]!.bytes;
          batch.push(queue.shift()!);
        }
        await sendTogether(through, batch);
      }
    } catch (error) {
      for (const call of queue.splice(0)) call.reject(failure(topicsOf(call.records), error));
    } finally {
      if (mine === generation) sending = false;
    }
  }

  async function sendTogether(through: ClientProducer, batch: Pending[]): Promise<void> {
    const records = batch.length === 1 ? batch[0]!.records : batch.flatMap((call) => call.records);
    let ends: readonly WrittenPartition[];
    try {
      metrics.requests.inc();
      metrics.calls.inc(batch.length);
      metrics.events.inc(records.length);
      ends = await through.send(records);
    } catch (error) {
      if (through === producer) replaceProducer = true;
      if (batch.length === 1) return batch[0]!.reject(failure(topicsOf(records), error));
      // One call's fault (an oversized batch, a deleted topic) must not fail its neighbours: each
      // goes again alone. A neighbour that was in fact written is then written twice, which the
      // consumers absorb: every event carries an event_id and consumers apply idempotently.
      for (const call of batch) {
        let alone: ClientProducer;
        try {
          alone = await current();
        } catch (connectError) {
          call.reject(failure(topicsOf(call.records), connectError));
          continue;
        }
        await sendTogether(alone, [call]);
      }
      return;
    }
    // Written: told after the send, so that a listener's fault can neither resend nor fail a call.
    for (const call of batch) call.resolve();
    if (options.onWritten)
      for (const end of ends) {
        try {
          options.onWritten(end);
        } catch {
          // The listener's own concern (ingest admission): the records are written.
        }
      }
  }

  link.onChange((up) => {
    if (up) return;
    // Queued calls were never sent: they fail now and are never written.
    for (const call of queue.splice(0))
      call.reject(link.unreachable(`publishing to ${topicsOf(call.records)}`) ?? failure('kafka', 'lost'));
    if (sending) {
      generation += 1;
      sending = false;
      replaceProducer = true;
      // At once: the send still retrying in the client library then fails.
      void producer.close().catch(() => undefined);
    }
  });

  const enqueue = (records: OutgoingRecord[]): Promise<void> => {
    const bytes = records.reduce((sum, r) => sum + (r.value?.length ?? 0), 0);
    return new Promise<void>((resolve, reject) => {
      queue.push({ records, bytes, resolve, reject });
      if (!sending) void sendQueued();
    });
  };

  const placed = (
    topic: string,
    partitions: number,
    event: { eventType: string; key: string; correlationId?: string | undefined },
    value: Buffer,
    eventId: unknown,
  ): OutgoingRecord => ({
    topic,
    partition: partitionOf(event.key, partitions),
    key: event.key,
    value,
    headers: {
      [HEADERS.eventType]: event.eventType,
      [HEADERS.schemaVersion]: String(catalog.current(event.eventType).version),
      [HEADERS.correlationId]: event.correlationId ?? randomUUID(),
      ...(typeof eventId === 'string' ? { [HEADERS.eventId]: eventId } : {}),
    },
  });

  const toRecord = (topic: string, partitions: number, event: OutgoingEvent<E>): OutgoingRecord =>
    placed(
      topic,
      partitions,
      event,
      catalog.encode(event.eventType, event.payload as object),
      (event.payload as { event_id?: unknown }).event_id,
    );

  const encodedRecord = (topic: string, partitions: number, event: EncodedEvent): OutgoingRecord => {
    const header = catalog.current(event.eventType).header;
    if (event.value.length < header.length || !header.equals(event.value.subarray(0, header.length)))
      throw invalidArgument(
        `${event.eventType}: the value is not v${catalog.current(event.eventType).version} single-object encoded`,
      );
    return placed(topic, partitions, event, event.value, event.eventId);
  };

  return {
    publish: (topic, events) =>
      link.guard(`publishing to ${topic}`, async () => {
        const partitions = await partitionsOf(topic);
        await enqueue(events.map((event) => toRecord(topic, partitions, event)));
      }),
    publishEncoded: (topic, events) =>
      link.guard(`publishing to ${topic}`, async () => {
        const partitions = await partitionsOf(topic);
        await enqueue(events.map((event) => encodedRecord(topic, partitions, event)));
      }),
    schemaHeader: (eventType, version) => {
      const current = catalog.current(eventType);
      if (current.version !== version)
        throw new AppError(
          'INTERNAL',
          `${eventType}: a hand-written encoder writes v${version}, but the current schema is v${current.version}`,
        );
      return current.header;
    },
    publishRaw: (topic, records) =>
      link.guard(`publishing to ${topic}`, async () => {
        const partitions = await partitionsOf(topic);
        await enqueue(
          records.map((r) => ({
            topic,
            partition:
              r.key === null ? Math.floor(Math.random() * partitions) : partitionOf(r.key, partitions),
            key: r.key,
            value: r.value,
            headers: r.headers ?? {},
          })),
        );
      }),
    deadLetter: (record, reason, group) =>
      link.guard(`dead-lettering to ${record.topic}.dlq`, async () => {
        const topic = `${record.topic}.dlq`;
        // The dead-letter topic is declared with its source's partitions: same partition, same order.
        const partition = record.partition % (await partitionsOf(topic));
        await enqueue([
          {
            topic,
            partition,
            key: record.key,
            value: record.value,
            headers: {
              ...record.headers,
              [HEADERS.dlqReason]: reason,
              [HEADERS.dlqTopic]: record.topic,
              [HEADERS.dlqPartition]: String(record.partition),
              [HEADERS.dlqOffset]: record.offset.toString(),
              [HEADERS.dlqGroup]: group,
            },
          },
        ]);
      }),
    disconnect: () => producer.close(),
  };
}

const topicsOf = (records: readonly OutgoingRecord[]): string =>
  [...new Set(records.map((r) => r.topic))].join(', ');
