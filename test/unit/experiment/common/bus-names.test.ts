import { describe, expect, it } from 'vitest';
import {
  EXPERIMENT_TOPIC_KEYS,
  experimentBusNames,
  experimentTopics,
} from '../../../../services/experiment/common/bus-names.ts';
import { readExperimentSettings } from '../../../../services/experiment/settings.ts';
import { dlqName, TOPICS } from '../../../../shared/bus/index.ts';
import { MAX_TOPIC_PREFIX_LENGTH } from '../../../../shared/bus/kafka-settings.ts';
import { SettingsError } from '../../../../shared/settings.ts';

const names = (env: Record<string, string>) => experimentBusNames(readExperimentSettings(env));

const problemsOf = (env: Record<string, string>): readonly string[] => {
  try {
    readExperimentSettings(env);
  } catch (error) {
    if (error instanceof SettingsError) return error.problems;
    throw error;
  }
  return [];
};

describe('experimentBusNames: the topics and groups of a deployment', () => {
  it('without KAFKA_TOPIC_PREFIX are the fixed names of TOPICS and the group settings', () => {
    const { prefix, topics, groups } = names({});
    expect(prefix).toBe('');
    expect(topics.observations).toEqual(TOPICS.observations);
    expect(Object.values(topics).map((t) => t.name)).toEqual([
      'experiment.observations',
      'experiment.trial-status',
      'experiment.early-stopping-rules',
      'experiment.suggestions',
      'experiment.nas-controller-state',
      'experiment.experiments',
      'experiment.trial-assignments',
      'experiment.trial-runs',
      'experiment.runners',
    ]);
    expect(groups).toEqual({
      persistence: 'experiment-persistence',
      earlyStopping: 'experiment-early-stopping',
      runners: 'experiment-runners',
    });
  });

  it('put the prefix before every topic and group name, keeping each topic’s declaration', () => {
    const { topics, groups } = names({ KAFKA_TOPIC_PREFIX: 'team-a.', PERSISTENCE_GROUP: 'store' });
    for (const key of EXPERIMENT_TOPIC_KEYS)
      expect(topics[key]).toEqual({ ...TOPICS[key], name: `team-a.${TOPICS[key].name}` });
    expect(dlqName(topics.trialStatus.name)).toBe('team-a.experiment.trial-status.dlq');
    expect(groups).toEqual({
      persistence: 'team-a.store',
      earlyStopping: 'team-a.experiment-early-stopping',
      runners: 'team-a.experiment-runners',
    });
  });

  it('are every experiment topic of TOPICS (the ratelimit and kvupgrade ones are not the service’s)', () => {
    expect(Object.keys(experimentTopics(''))).toEqual(
      Object.keys(TOPICS).filter((key) => key !== 'ratelimitConfig' && key !== 'upgradeProgress'),
    );
    expect(Object.isFrozen(experimentTopics('x.').runners)).toBe(true);
  });
});

describe('KAFKA_TOPIC_PREFIX', () => {
  it('takes Kafka’s topic characters ending in a separator', () => {
    for (const prefix of [
      'a.',
      'Team_2-',
      'prod.eu-west_',
      '.',
      `${'p'.repeat(MAX_TOPIC_PREFIX_LENGTH - 1)}.`,
    ])
      expect(names({ KAFKA_TOPIC_PREFIX: prefix }).prefix).toBe(prefix);
  });

  it('keeps the longest topic name within Kafka’s 249 characters', () => {
    expect(MAX_TOPIC_PREFIX_LENGTH).toBe(249 - 'experiment.early-stopping-rules.dlq'.length);
    const longest = `${'p'.repeat(MAX_TOPIC_PREFIX_LENGTH - 1)}.`;
    const topics = names({ KAFKA_TOPIC_PREFIX: longest }).topics;
    expect(Math.max(...Object.values(topics).map((t) => dlqName(t.name).length))).toBe(249);
  });

  it('refuses a character Kafka does not take in a topic name, naming it', () => {
    expect(problemsOf({ KAFKA_TOPIC_PREFIX: 'team a.' })).toEqual([
      'KAFKA_TOPIC_PREFIX="team a." is not allowed: " " is not one of Kafka\'s topic characters (letters, digits, ".", "_", "-")',
    ]);
    expect(problemsOf({ KAFKA_TOPIC_PREFIX: 'équipe.' })[0]).toContain(
      '"é" is not one of Kafka\'s topic characters',
    );
    expect(problemsOf({ KAFKA_TOPIC_PREFIX: 'a/b.' })[0]).toContain('"/" is not one of');
  });

  it('refuses a prefix that does not end with a separator, showing one that does', () => {
    expect(problemsOf({ KAFKA_TOPIC_PREFIX: 'team-a' })).toEqual([
      'KAFKA_TOPIC_PREFIX="team-a" is not allowed: it must end with a separator (".", "_" or "-"), as in "team-a."',
    ]);
  });

  it('refuses a prefix too long for the longest topic name', () => {
    const long = `${'p'.repeat(MAX_TOPIC_PREFIX_LENGTH)}.`;
    expect(problemsOf({ KAFKA_TOPIC_PREFIX: long })).toEqual([
      `KAFKA_TOPIC_PREFIX=${JSON.stringify(long)} is not allowed: it has ${MAX_TOPIC_PREFIX_LENGTH + 1} characters, at most ${MAX_TOPIC_PREFIX_LENGTH} (Kafka's topic names have at most 249, and the longest here is experiment.early-stopping-rules.dlq)`,
    ]);
  });

  it('is named with the other bad variables in one error', () => {
    expect(problemsOf({ KAFKA_TOPIC_PREFIX: 'x', EXPERIMENT_GRPC_PORT: 'high' })).toEqual([
      'KAFKA_TOPIC_PREFIX="x" is not allowed: it must end with a separator (".", "_" or "-"), as in "x."',
      'EXPERIMENT_GRPC_PORT="high" is not allowed: an integer from 0 to 65535',
    ]);
  });
});
