// Failpoints (as etcd's gofail): the first calls of a Kafka client's method fail with a retriable
// error of Kafka's protocol, as the library would throw it, so that tests can play a broker whose
// coordinator is still moving or whose topic was just created (KAFKA_FAILPOINTS). Off unless set.
import type { KafkaClient } from './types.ts';

/** Kafka's retriable error codes (org.apache.kafka.common.protocol.Errors), by name. */
export const RETRIABLE_KAFKA_ERRORS = {
  UNKNOWN_TOPIC_OR_PARTITION: { code: 3, message: 'This server does not host this topic-partition' },
  LEADER_NOT_AVAILABLE: {
    code: 5,
    message: 'There is no leader for this topic-partition as we are in the middle of a leadership election',
  },
  NOT_LEADER_OR_FOLLOWER: {
    code: 6,
    message:
      'For requests intended only for the leader, this error indicates that the broker is not the current leader',
  },
  REQUEST_TIMED_OUT: { code: 7, message: 'The request timed out' },
  COORDINATOR_LOAD_IN_PROGRESS: {
    code: 14,
    message: "The coordinator is loading and hence can't process requests",
  },
  COORDINATOR_NOT_AVAILABLE: { code: 15, message: 'The coordinator is not available' },
  NOT_COORDINATOR: { code: 16, message: 'This is not the correct coordinator' },
  REBALANCE_IN_PROGRESS: { code: 27, message: 'The group is rebalancing, so a rejoin is needed' },
} as const;
export type RetriableKafkaError = keyof typeof RETRIABLE_KAFKA_ERRORS;

/** Methods a failpoint can be set on: every call that asks a broker something. */
export const FAILPOINT_METHODS = [
  'listTopics',
  'createTopics',
  'partitionCounts',
  'watermarks',
  'offsetsAtTime',
  'committedOffsets',
  'setCommittedOffsets',
  'createProducer',
  'consume',
] as const satisfies readonly (keyof KafkaClient)[];
export type FailpointMethod = (typeof FAILPOINT_METHODS)[number];

export interface Failpoint {
  readonly method: FailpointMethod;
  readonly error: RetriableKafkaError;
  /** How many of the first calls fail. */
  readonly times: number;
  /**
   * How many are left to fail, shared by every client of the process: a component restarted on a
   * thread of its own opens a new client, which must not fail the first calls again.
   */
  readonly left: Int32Array;
}

/** `method=ERROR*times` items, comma-separated; undefined for text that is not one. */
export function parseFailpoints(text: string): Failpoint[] | undefined {
  const points: Failpoint[] = [];
  for (const item of text
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '')) {
    const match = /^(\w+)=(\w+)\*(\d{1,6})$/.exec(item);
    if (!match) return undefined;
    const [, method, error, times] = match;
    if (!FAILPOINT_METHODS.includes(method as FailpointMethod) || !(error! in RETRIABLE_KAFKA_ERRORS))
      return undefined;
    const left = new Int32Array(new SharedArrayBuffer(4));
    left[0] = Number(times);
    points.push({
      method: method as FailpointMethod,
      error: error as RetriableKafkaError,
      times: Number(times),
      left,
    });
  }
  return points;
}

/** The error a Kafka library throws for the code: its protocol name and `retriable`, as kafkajs sets them. */
export function kafkaProtocolError(name: RetriableKafkaError): Error {
  const { code, message } = RETRIABLE_KAFKA_ERRORS[name];
  return Object.assign(new Error(message), {
    name: 'KafkaJSProtocolError',
    type: name,
    code,
    retriable: true,
  });
}

/** The client with each failpoint's first calls failing; the client itself when there are none. */
export function withFailpoints(client: KafkaClient, points: readonly Failpoint[]): KafkaClient {
  if (points.length === 0) return client;
  const wrapped: Record<string, unknown> = { ...client };
  for (const point of points) {
    const real = (client as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[
      point.method
    ]!;
    wrapped[point.method] = async (...args: unknown[]) => {
      if (Atomics.sub(point.left, 0, 1) > 0) throw kafkaProtocolError(point.error);
      return real.apply(client, args);
    };
  }
  return wrapped as unknown as KafkaClient;
}
