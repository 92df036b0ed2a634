import { setTimeout as sleep } from 'node:timers/promises';
import { unavailable } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { KafkaClient, TopicDeclaration } from './client/types.ts';

export type { TopicDeclaration };

const MIB = 1024 * 1024;

const topic = (
  name: string,
  partitions: number,
  extra: Partial<Omit<TopicDeclaration, 'name' | 'partitions'>> = {},
): TopicDeclaration =>
  Object.freeze({
    name,
    partitions,
    cleanupPolicy: 'delete',
    retentionMs: -1,
    maxMessageBytes: MIB,
    ...extra,
  });

/** Every topic of the product: name, partitions (the unit of ordering and of scaling) and policy. */
export const TOPICS = Object.freeze({
  observations: topic('experiment.observations', 6, { maxMessageBytes: 32 * MIB }),
  trialStatus: topic('experiment.trial-status', 6),
  earlyStoppingRules: topic('experiment.early-stopping-rules', 3),
  suggestions: topic('experiment.suggestions', 3, { maxMessageBytes: 8 * MIB }),
  /** Latest enas controller per experiment (key): compacted, states up to 12 MiB plus history. */
  nasControllerState: topic('experiment.nas-controller-state', 3, {
    cleanupPolicy: 'compact',
    maxMessageBytes: 16 * MIB,
  }),
  /** Experiments to run and the trial controller's account of them: owned by partition (experiment key). */
  experiments: topic('experiment.experiments', 3),
  /** Runs of trials for the runners (one consumer group); key trial. */
  trialAssignments: topic('experiment.trial-assignments', 6),
  /** What became of each run (runners and the controller); key trial. */
  trialRuns: topic('experiment.trial-runs', 6),
  /** The latest heartbeat of each runner: its lease on the runs it holds. */
  runners: topic('experiment.runners', 3, { cleanupPolicy: 'compact' }),
  ratelimitConfig: topic('ratelimit.config', 1, { cleanupPolicy: 'compact', maxMessageBytes: 8 * MIB }),
  upgradeProgress: topic('kv.upgrade-progress', 1),
});

/** Where a consumer puts what it can never process: same partitions, kept forever. */
export function dlqOf(declaration: TopicDeclaration): TopicDeclaration {
  return topic(dlqName(declaration.name), declaration.partitions, {
    maxMessageBytes: declaration.maxMessageBytes,
  });
}

export const dlqName = (topicName: string): string => `${topicName}.dlq`;

/**
 * Creates the declared topics that do not exist yet (auto-creation is off on the broker). Safe to
 * run from many instances at once. An existing topic with fewer partitions than declared is
 * reported, not changed: adding partitions moves keys, which is an operator's decision.
 */
export async function ensureTopics(
  client: KafkaClient,
  declarations: readonly TopicDeclaration[],
  logger: Logger,
): Promise<void> {
  // Right after creation the broker may answer UNKNOWN_TOPIC_OR_PARTITION for a while (longer on
  // a loaded machine): a retriable error, so the whole (idempotent) step is tried again, for up to
  // ENSURE_TOPICS_RETRY_MS.
  const deadline = Date.now() + ENSURE_TOPICS_RETRY_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await ensureTopicsOnce(client, declarations, logger);
    } catch (error) {
      const retriable = (error as { cause?: { retriable?: unknown } }).cause?.retriable === true;
      if (!retriable || Date.now() >= deadline) throw error;
      logger.warn({ err: error, attempt }, 'creating topics failed; retrying');
      await sleep(Math.min(200 * attempt, 1_000));
    }
  }
}

const ENSURE_TOPICS_RETRY_MS = 15_000;

async function ensureTopicsOnce(
  client: KafkaClient,
  declarations: readonly TopicDeclaration[],
  logger: Logger,
): Promise<void> {
  try {
    const existing = new Set(await client.listTopics());
    const missing = declarations.filter((d) => !existing.has(d.name));
    if (missing.length > 0) {
      await client.createTopics(missing);
      logger.info({ topics: missing.map((d) => d.name) }, 'created topics');
    }
    // Created topics are done once the brokers' metadata knows them: a producer asks it for their
    // partitions at once.
    const counts = await client.partitionCounts(declarations.map((d) => d.name));
    const unknown = missing.filter((d) => (counts.get(d.name) ?? 0) === 0).map((d) => d.name);
    if (unknown.length > 0)
      throw Object.assign(new Error(`topics ${unknown.join(', ')} are not in the metadata yet`), {
        retriable: true,
      });
    for (const declared of declarations.filter((d) => existing.has(d.name))) {
      const partitions = counts.get(declared.name) ?? 0;
      if (partitions < declared.partitions) {
        logger.warn(
          { topic: declared.name, partitions, declared: declared.partitions },
          'topic has fewer partitions than declared',
        );
      }
    }
  } catch (error) {
    throw unavailable(
      `kafka: cannot create topics ${declarations.map((d) => d.name).join(', ')}: ${(error as Error).message}`,
      error,
    );
  }
}
