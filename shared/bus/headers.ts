import type { IHeaders } from 'kafkajs';

/** Header names on every event the bus writes; consumers and kcat users can rely on them. */
export const HEADERS = Object.freeze({
  eventType: 'event-type',
  schemaVersion: 'schema-version',
  correlationId: 'correlation-id',
  eventId: 'event-id',
  dlqReason: 'dlq-reason',
  dlqTopic: 'dlq-topic',
  dlqPartition: 'dlq-partition',
  dlqOffset: 'dlq-offset',
  dlqGroup: 'dlq-group',
});

/** Kafka headers as plain strings (kafkajs gives Buffers, possibly arrays). */
export function headersToStrings(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) out[name] = Buffer.isBuffer(first) ? first.toString('utf8') : String(first);
  }
  return out;
}
