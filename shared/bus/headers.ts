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
