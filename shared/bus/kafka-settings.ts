import { hostPorts, oneOf, str } from '../settings.ts';
import { KAFKA_CLIENTS } from './client/names.ts';

/** Settings every Kafka user shares; services spread these into their own spec. */
export const kafkaSettings = {
  kafkaBrokers: hostPorts('KAFKA_BROKERS', ['127.0.0.1:9092']),
  kafkaClientId: str('KAFKA_CLIENT_ID', 'backbone'),
  kafkaClient: oneOf('KAFKA_CLIENT', KAFKA_CLIENTS, 'kafkajs'),
};
