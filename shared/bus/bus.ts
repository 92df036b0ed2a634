// One connection to Kafka for a process: topics, offsets and the client that readers, workers and
// producers of this folder run on.
import { type EventCatalog, loadCatalog } from '../avro/catalog.ts';
import { notFound, unavailable } from '../errors.ts';
import type { Logger } from '../logger.ts';
import {
  type Failpoint,
  type KafkaClient,
  type KafkaClientName,
  openKafkaClient,
  type Watermarks,
} from './client/index.ts';
import { createKafkaLink, type KafkaLink } from './kafka-link.ts';
import { ensureTopics, type TopicDeclaration } from './topics.ts';

export interface Bus {
  readonly client: KafkaClient;
  readonly catalog: EventCatalog;
  readonly logger: Logger;
  readonly clientId: string;
  /** Whether Kafka answers; calls that need it fail fast through it while it does not. */
  readonly link: KafkaLink;
  /** Creates the declared topics that are missing (see topics.ts). */
  ensureTopics(declarations: readonly TopicDeclaration[]): Promise<void>;
  topicExists(topic: string): Promise<boolean>;
  /** Low and high watermarks of every partition; NOT_FOUND for a missing topic, UNAVAILABLE when Kafka does not answer. */
  watermarks(topic: string): Promise<Watermarks[]>;
  /** Per partition, the first offset at or after `ms` (the high watermark when there is none). */
  offsetsAtTime(topic: string, ms: number): Promise<Map<number, bigint>>;
  /** The offsets `groupId` committed on `topic`; partitions it never committed are absent. */
  committedOffsets(groupId: string, topic: string): Promise<Map<number, bigint>>;
  /**
   * Commits the topics' current ends for a group with no live member, so it consumes only what
   * comes next (a new group otherwise starts at the beginning).
   */
  commitTopicEnds(groupId: string, topics: readonly string[]): Promise<void>;
  /** Kafka answers (health checks). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface BusOptions {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly logger: Logger;
  /** The Kafka library (KAFKA_CLIENT). Default kafkajs. */
  readonly client?: KafkaClientName;
  /** Calls made to fail on purpose (KAFKA_FAILPOINTS, tests). */
  readonly failpoints?: readonly Failpoint[];
  /** Default: the product's schemas. */
  readonly catalog?: EventCatalog;
  /** Replaces the link to Kafka made from the brokers (tests). */
  readonly link?: KafkaLink;
}

const cannot = (what: string, error: unknown) =>
  unavailable(`kafka: cannot ${what}: ${(error as Error).message}`, error);

export function createBus(options: BusOptions): Bus {
  const logger = options.logger;
  const client = openKafkaClient(options.client ?? 'kafkajs', {
    brokers: options.brokers,
    clientId: options.clientId,
    logger,
    ...(options.failpoints ? { failpoints: options.failpoints } : {}),
  });

  const link =
    options.link ?? createKafkaLink({ brokers: options.brokers, clientId: options.clientId, logger });

  const topicExists = (topic: string): Promise<boolean> =>
    link.guard('listing topics', async () => {
      try {
        return (await client.listTopics()).includes(topic);
      } catch (error) {
        throw cannot('list topics', error);
      }
    });

  const watermarks = (topic: string): Promise<Watermarks[]> =>
    link.guard(`reading the offsets of ${topic}`, async () => {
      try {
        return await client.watermarks(topic);
      } catch (error) {
        if (!(await topicExists(topic))) throw notFound(`topic ${topic} does not exist`);
        throw cannot(`read the offsets of ${topic}`, error);
      }
    });

  return {
    client,
    catalog: options.catalog ?? loadCatalog(),
    logger,
    clientId: options.clientId,
    link,
    ensureTopics: (declarations) => ensureTopics(client, declarations, logger),
    topicExists,
    watermarks,
    offsetsAtTime: (topic, ms) =>
      link.guard(`finding the offsets of ${topic} at ${new Date(ms).toISOString()}`, async () => {
        try {
          return await client.offsetsAtTime(topic, ms);
        } catch (error) {
          throw cannot(`find the offsets of ${topic} at ${new Date(ms).toISOString()}`, error);
        }
      }),
    committedOffsets: (groupId, topic) =>
      link.guard(`reading the offsets group ${groupId} committed on ${topic}`, async () => {
        try {
          return await client.committedOffsets(groupId, topic);
        } catch (error) {
          throw cannot(`read the offsets group ${groupId} committed on ${topic}`, error);
        }
      }),
    async commitTopicEnds(groupId, topics) {
      for (const topic of topics) {
        const ends = await watermarks(topic);
        await client.setCommittedOffsets(groupId, topic, new Map(ends.map((w) => [w.partition, w.high])));
      }
    },
    ping: () =>
      link.guard('asking the cluster', async () => {
        try {
          await client.ping();
        } catch (error) {
          throw cannot('reach the cluster', error);
        }
      }),
    close: () => {
      link.close();
      return client.close();
    },
  };
}
