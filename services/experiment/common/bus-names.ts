// The names the experiment service uses on Kafka: its topics and its consumer groups, each with
// KAFKA_TOPIC_PREFIX before it, so that several deployments share one Kafka cluster without
// reading, judging or answering for each other's experiments. Resolved once from the settings by
// the wiring (main.ts, cli.ts) and handed to every component that reads or writes a topic.
import { TOPICS, type TopicDeclaration } from '../../../shared/bus/index.ts';

/** The rows of TOPICS that are the experiment service's (the others are ratelimit's and kvupgrade's). */
export const EXPERIMENT_TOPIC_KEYS = [
  'observations',
  'trialStatus',
  'earlyStoppingRules',
  'suggestions',
  'nasControllerState',
  'experiments',
  'trialAssignments',
  'trialRuns',
  'runners',
] as const;

export type ExperimentTopicKey = (typeof EXPERIMENT_TOPIC_KEYS)[number];
export type ExperimentTopics = { readonly [K in ExperimentTopicKey]: TopicDeclaration };

export interface ExperimentGroups {
  /** PERSISTENCE_GROUP: the persistence consumer's, whose offsets the read barriers wait for. */
  readonly persistence: string;
  /** EARLY_STOPPING_GROUP: the early-stopping judges'. */
  readonly earlyStopping: string;
  /** RUNNER_GROUP: the runners' (`experiment runner`). */
  readonly runners: string;
}

export interface ExperimentBusNames {
  readonly prefix: string;
  readonly topics: ExperimentTopics;
  readonly groups: ExperimentGroups;
}

/** The experiment topics as declared in TOPICS, each name after `prefix`. */
export function experimentTopics(prefix: string): ExperimentTopics {
  const rows = EXPERIMENT_TOPIC_KEYS.map((key) => [
    key,
    Object.freeze({ ...TOPICS[key], name: prefix + TOPICS[key].name }),
  ]);
  return Object.freeze(Object.fromEntries(rows)) as ExperimentTopics;
}

/** Every topic and group name of a deployment, from its settings. */
export function experimentBusNames(settings: {
  readonly kafkaTopicPrefix: string;
  readonly persistenceGroup: string;
  readonly earlyStoppingGroup: string;
  readonly runnerGroup: string;
}): ExperimentBusNames {
  const prefix = settings.kafkaTopicPrefix;
  return Object.freeze({
    prefix,
    topics: experimentTopics(prefix),
    groups: Object.freeze({
      persistence: prefix + settings.persistenceGroup,
      earlyStopping: prefix + settings.earlyStoppingGroup,
      runners: prefix + settings.runnerGroup,
    }),
  });
}
