export { type Bus, type BusOptions, createBus } from './bus.ts';
export { busMetrics } from './bus-metrics.ts';
export {
  FAILPOINT_METHODS,
  type Failpoint,
  KAFKA_CLIENTS,
  type KafkaClientName,
  RETRIABLE_KAFKA_ERRORS,
} from './client/index.ts';
export type { RawRecord, Watermarks, WrittenPartition } from './client/types.ts';
export { type EventConsumer, type EventConsumerOptions, startEventConsumer } from './event-consumer.ts';
export {
  type ConsumedEvent,
  decodeRecord,
  type EventPayloads,
  type EventType,
  type OutgoingEvent,
  type PlacedRecord,
  type WritablePayloads,
} from './events.ts';
export { HEADERS } from './headers.ts';
export { unprobedKafkaLink } from './kafka-link.ts';
export { kafkaSettings } from './kafka-settings.ts';
export { partitionOf } from './partitioner.ts';
export { createEventProducer, type EncodedEvent, type EventProducer } from './producer.ts';
export { type ReadFrom, type ReadTopicOptions, readTopic, type TopicReader } from './read-topic.ts';
export { dlqName, dlqOf, TOPICS, type TopicDeclaration } from './topics.ts';
