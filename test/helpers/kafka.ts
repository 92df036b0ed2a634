import { randomBytes } from 'node:crypto';
import type { KafkaClientName } from '../../shared/bus/index.ts';
import { type Bus, createBus, type TopicDeclaration } from '../../shared/bus/index.ts';
import { kafkaSettings } from '../../shared/bus/kafka-settings.ts';
import { silentLogger } from '../../shared/logger.ts';
import { readSettings } from '../../shared/settings.ts';

/** A name no other test run uses: topics, groups and keys never collide between runs. */
export const uniqueName = (prefix: string): string => `${prefix}-${randomBytes(5).toString('hex')}`;

/** The Kafka client the tests run the bus on: KAFKA_CLIENT, as the services read it. */
export const testKafkaClient = readSettings(
  { kafkaClient: kafkaSettings.kafkaClient },
  process.env,
).kafkaClient;

/** A bus for a test's own reads and writes; close it in afterAll. */
export const openTestBus = (brokers: string, client: KafkaClientName = testKafkaClient): Bus =>
  createBus({
    brokers: brokers.split(','),
    clientId: uniqueName('test'),
    client,
    logger: silentLogger,
  });

export function testTopic(
  prefix: string,
  partitions = 1,
  extra: Partial<TopicDeclaration> = {},
): TopicDeclaration {
  return {
    name: uniqueName(`test.${prefix}`),
    partitions,
    cleanupPolicy: 'delete',
    retentionMs: -1,
    maxMessageBytes: 1048576,
    ...extra,
  };
}

/** Total over the topic's partitions of high minus low watermark: how many records it holds. */
export async function topicSize(bus: Bus, topic: string): Promise<number> {
  const offsets = await bus.watermarks(topic);
  return offsets.reduce((sum, p) => sum + Number(p.high - p.low), 0);
}
