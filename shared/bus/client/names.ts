// Kept apart from index.ts so that reading settings does not load a Kafka library.

/**
 * The Kafka client libraries the bus can run on (KAFKA_CLIENT); the first is the default. kafkajs
 * stays the default by measurement (npm run bench:bus and bench:dbmanager, side by side): it reads
 * faster and holds less memory; @platformatic/kafka produces with less CPU per event.
 */
export const KAFKA_CLIENTS = ['kafkajs', 'platformatic'] as const;
export type KafkaClientName = (typeof KAFKA_CLIENTS)[number];
