import { type Env, type Field, hostPorts, oneOf, str } from '../settings.ts';
import {
  FAILPOINT_METHODS,
  type Failpoint,
  parseFailpoints,
  RETRIABLE_KAFKA_ERRORS,
} from './client/failpoints.ts';
import { KAFKA_CLIENTS } from './client/names.ts';

/** KAFKA_FAILPOINTS: for tests only; empty (none) by default. */
const failpoints: Field<readonly Failpoint[]> = {
  variable: 'KAFKA_FAILPOINTS',
  allowed: `for tests: comma-separated method=ERROR*times, method one of ${FAILPOINT_METHODS.join(', ')}, ERROR one of ${Object.keys(RETRIABLE_KAFKA_ERRORS).join(', ')}`,
  defaultText: '(none)',
  read(env: Env) {
    const raw = env.KAFKA_FAILPOINTS ?? '';
    const parsed = parseFailpoints(raw);
    return parsed === undefined
      ? {
          ok: false,
          problem: `KAFKA_FAILPOINTS=${JSON.stringify(raw)} is not allowed: ${failpoints.allowed}`,
        }
      : { ok: true, value: Object.freeze(parsed) };
  },
};

/** Settings every Kafka user shares; services spread these into their own spec. */
export const kafkaSettings = {
  kafkaBrokers: hostPorts('KAFKA_BROKERS', ['127.0.0.1:9092']),
  kafkaClientId: str('KAFKA_CLIENT_ID', 'backbone'),
  kafkaClient: oneOf('KAFKA_CLIENT', KAFKA_CLIENTS, 'kafkajs'),
  kafkaFailpoints: failpoints,
};
