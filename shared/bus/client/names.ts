// Kept apart from index.ts so that reading settings does not load a Kafka library.

/** The Kafka client libraries the bus can run on (KAFKA_CLIENT). */
export const KAFKA_CLIENTS = ['kafkajs', 'platformatic'] as const;
export type KafkaClientName = (typeof KAFKA_CLIENTS)[number];
