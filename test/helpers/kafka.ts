import { randomBytes } from 'node:crypto';
import type { Admin, Kafka } from 'kafkajs';
import { ensureTopics, type TopicDeclaration } from '../../shared/bus/topics.ts';
import { silentLogger } from '../../shared/logger.ts';

/** A name no other test run uses: topics, groups and keys never collide between runs. */
export const uniqueName = (prefix: string): string => `${prefix}-${randomBytes(5).toString('hex')}`;

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

export async function createTopics(kafka: Kafka, ...declarations: TopicDeclaration[]): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await ensureTopics(admin, declarations, silentLogger);
  } finally {
    await admin.disconnect();
  }
}

/** Total of high watermarks over the topic's partitions: how many records it holds. */
export async function topicSize(admin: Admin, topic: string): Promise<number> {
  const offsets = await admin.fetchTopicOffsets(topic);
  return offsets.reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
}

/**
 * Commits the topics' current end offsets for `groupId`, so the group consumes only what comes next
 * (the shared topics hold every earlier run's events). Setting offsets joins the group briefly.
 */
export async function commitTopicEnds(
  admin: Admin,
  groupId: string,
  topics: readonly string[],
): Promise<void> {
  for (const topic of topics) {
    const ends = await admin.fetchTopicOffsets(topic);
    await admin.setOffsets({
      groupId,
      topic,
      partitions: ends.map(({ partition, high }) => ({ partition, offset: high })),
    });
  }
}
