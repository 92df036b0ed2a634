import { documented, type Env, type Field, hostPorts, oneOf, str } from '../settings.ts';
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
export const kafkaSettings = documented(
  {
    kafkaBrokers: hostPorts('KAFKA_BROKERS', ['127.0.0.1:9092']),
    kafkaClientId: str('KAFKA_CLIENT_ID', 'backbone'),
    kafkaClient: oneOf('KAFKA_CLIENT', KAFKA_CLIENTS, 'kafkajs'),
    kafkaFailpoints: failpoints,
  },
  {
    kafkaBrokers: 'bootstrap brokers, comma-separated `host:port`',
    kafkaClientId: 'Kafka client id',
    kafkaClient:
      'the Kafka library under `shared/bus`: `kafkajs` or `platformatic` (`@platformatic/kafka`; see [the bus](../architecture.md#the-bus-sharedbus))',
    kafkaFailpoints:
      "for tests only: the first calls of a Kafka client's method fail with a retriable error of Kafka's protocol (`method=ERROR*times`), as a broker whose coordinator is still moving or whose topic was just created would answer",
  },
);
