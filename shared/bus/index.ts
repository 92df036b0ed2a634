export { busMetrics } from './bus-metrics.ts';
export { type ConsumedEvent, startWorker, type Worker, type WorkerOptions } from './consumer.ts';
export { HEADERS, headersToStrings } from './headers.ts';
export { createKafka, kafkaSettings } from './kafka.ts';
export {
  createEventProducer,
  type EventProducer,
  type OutgoingEvent,
} from './producer.ts';
export { dlqName, dlqOf, ensureTopics, TOPICS, type TopicDeclaration } from './topics.ts';
