// Events as the bus hands them over and takes them: typed by event name from the generated schema
// types (schemas/gen/events.ts), so narrowing on `eventType` types the payload.
import type { EventPayloads, EventType } from '../../schemas/gen/events.ts';
import type { EventCatalog } from '../avro/catalog.ts';
import { invalidArgument } from '../errors.ts';
import type { RawRecord } from './client/types.ts';
import { HEADERS } from './headers.ts';

export type { EventPayloads, EventType };

/** What a producer may write: timestamps as Date or epoch milliseconds. */
export type WritablePayloads = EventPayloads<Date | number>;

/** An event to publish; `E` maps event names to payloads (the product's events unless a test brings its own). */
export type OutgoingEvent<E = WritablePayloads> = {
  [T in keyof E & string]: {
    readonly eventType: T;
    /** Partition key: whatever must stay in order (trial, experiment, domain, cluster). */
    readonly key: string;
    readonly payload: E[T];
    /** Ties the event to the request that caused it; a new one is made when absent. */
    readonly correlationId?: string;
  };
}[keyof E & string];

/** Where a record was read. */
export interface RecordPlace {
  readonly topic: string;
  readonly partition: number;
}

export type PlacedRecord = RawRecord & RecordPlace;

interface EventMeta extends RecordPlace {
  readonly offset: bigint;
  readonly key: string | null;
  /** Broker timestamp, ms since the epoch. */
  readonly timestamp: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly correlationId: string | undefined;
  /** The schema version the producer wrote; the payload is in the version this code reads. */
  readonly writerVersion: number;
}

/** A decoded event; `E` maps event names to payloads. */
export type ConsumedEvent<E = EventPayloads> = {
  [T in keyof E & string]: EventMeta & { readonly eventType: T; readonly payload: E[T] };
}[keyof E & string];

/** Decodes a record with the catalog; throws INVALID_ARGUMENT (a tombstone, corrupt or unknown data). */
export function decodeRecord<E = EventPayloads>(
  catalog: EventCatalog,
  record: PlacedRecord,
): ConsumedEvent<E> {
  if (record.value === null) throw invalidArgument('empty value (tombstone)');
  const decoded = catalog.decode(record.value);
  return {
    topic: record.topic,
    partition: record.partition,
    offset: record.offset,
    key: record.key?.toString('utf8') ?? null,
    timestamp: record.timestamp,
    headers: record.headers,
    correlationId: record.headers[HEADERS.correlationId],
    eventType: decoded.eventType,
    writerVersion: decoded.writerVersion,
    payload: decoded.payload,
  } as ConsumedEvent<E>;
}
