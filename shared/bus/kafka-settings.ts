import { documented, type Env, type Field, hostPorts, oneOf, str } from '../settings.ts';
import {
  FAILPOINT_METHODS,
  type Failpoint,
  parseFailpoints,
  RETRIABLE_KAFKA_ERRORS,
} from './client/failpoints.ts';
import { KAFKA_CLIENTS } from './client/names.ts';
import { dlqName, TOPICS } from './topics.ts';

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

/** Kafka refuses a topic name longer than this, or with another character than these. */
const TOPIC_NAME_MAX = 249;
const TOPIC_CHARACTER = /[a-zA-Z0-9._-]/;
const SEPARATORS = ['.', '_', '-'];
/** The longest name the product gives a topic (a dead-letter topic's): a prefix leaves room for it. */
const LONGEST_TOPIC_NAME = Object.values(TOPICS)
  .map((topic) => dlqName(topic.name))
  .reduce((longest, name) => (name.length > longest.length ? name : longest));
export const MAX_TOPIC_PREFIX_LENGTH = TOPIC_NAME_MAX - LONGEST_TOPIC_NAME.length;

/**
 * A prefix for a service's topic and consumer-group names: empty (the default), or Kafka's topic
 * characters ending in a separator, short enough that every topic name stays within Kafka's limit.
 */
export function topicPrefix(variable: string): Field<string> {
  const allowed = `empty, or up to ${MAX_TOPIC_PREFIX_LENGTH} of Kafka's topic characters (letters, digits, \`.\`, \`_\`, \`-\`) ending in \`.\`, \`_\` or \`-\``;
  return {
    variable,
    allowed,
    defaultText: '(empty)',
    read(env: Env) {
      const raw = env[variable] ?? '';
      const refused = (why: string) => ({
        ok: false as const,
        problem: `${variable}=${JSON.stringify(raw)} is not allowed: ${why}`,
      });
      const bad = [...raw].find((character) => !TOPIC_CHARACTER.test(character));
      if (bad !== undefined)
        return refused(
          `${JSON.stringify(bad)} is not one of Kafka's topic characters (letters, digits, ".", "_", "-")`,
        );
      if (raw.length > MAX_TOPIC_PREFIX_LENGTH)
        return refused(
          `it has ${raw.length} characters, at most ${MAX_TOPIC_PREFIX_LENGTH} (Kafka's topic names have at most ${TOPIC_NAME_MAX}, and the longest here is ${LONGEST_TOPIC_NAME})`,
        );
      if (raw !== '' && !SEPARATORS.includes(raw.at(-1)!))
        return refused(`it must end with a separator (".", "_" or "-"), as in ${JSON.stringify(`${raw}.`)}`);
      return { ok: true as const, value: raw };
    },
  };
}

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
