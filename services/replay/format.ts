import type { Format } from './args.ts';

interface RecordBase {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  /** Broker timestamp, ms since the epoch. */
  readonly timestamp: number;
  readonly key: string | null;
  readonly correlationId: string | null;
}

/** A record as read from the topic: decoded, or the reason it did not decode and its raw value. */
export type ReplayRecord =
  | (RecordBase & {
      readonly decoded: true;
      readonly eventType: string;
      /** The version the producer wrote. */
      readonly schemaVersion: number;
      readonly event: Record<string, unknown>;
    })
  | (RecordBase & {
      readonly decoded: false;
      /** From the headers, when the producer set them. */
      readonly eventType: string | null;
      readonly schemaVersion: number | null;
      readonly error: string;
      readonly value: Buffer | null;
    });

export const CSV_HEADER = 'topic,partition,offset,timestamp,key,event_type,correlation_id,event';

/** Avro values as JSON: Dates as ISO 8601 UTC, bigints as strings, bytes as base64. */
export function toJsonValue(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (value instanceof Map) return toJsonValue(Object.fromEntries(value));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(value)) {
      if (field !== undefined) out[name] = toJsonValue(field);
    }
    return out;
  }
  return value;
}

const isoTime = (ms: number): string | null =>
  Number.isFinite(ms) && ms >= 0 ? new Date(ms).toISOString() : null;

function eventColumn(record: ReplayRecord): unknown {
  return record.decoded
    ? toJsonValue(record.event)
    : { error: record.error, valueBase64: record.value?.toString('base64') ?? null };
}

/** One JSON object, without the line break. */
export function toJsonLine(record: ReplayRecord): string {
  const base = {
    topic: record.topic,
    partition: record.partition,
    offset: record.offset,
    timestamp: isoTime(record.timestamp),
    key: record.key,
    eventType: record.eventType,
    schemaVersion: record.schemaVersion,
    correlationId: record.correlationId,
  };
  return JSON.stringify({
    ...base,
    ...(record.decoded ? { event: eventColumn(record) } : (eventColumn(record) as object)),
  });
}

/** RFC 4180: a field with a comma, quote, CR or LF is quoted, and its quotes doubled. */
export function csvField(value: string | number | null): string {
  const text = value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV row, without the line break; `event` holds the payload (or the decoding error) as JSON. */
export function toCsvRow(record: ReplayRecord): string {
  return [
    record.topic,
    record.partition,
    record.offset,
    isoTime(record.timestamp),
    record.key,
    record.eventType,
    record.correlationId,
    JSON.stringify(eventColumn(record)),
  ]
    .map(csvField)
    .join(',');
}

/** RFC 4180 ends CSV lines with CRLF; JSON lines end with LF. */
export const LINE_END: Readonly<Record<Format, string>> = Object.freeze({ jsonl: '\n', csv: '\r\n' });

/** What to print before the first record, if anything. */
export const headerFor = (format: Format): string | undefined =>
  format === 'csv' ? CSV_HEADER + LINE_END.csv : undefined;

/** A record as one output line, line break included. */
export const formatRecord = (format: Format, record: ReplayRecord): string =>
  (format === 'csv' ? toCsvRow(record) : toJsonLine(record)) + LINE_END[format];
