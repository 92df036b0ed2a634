import type { Registry } from 'prom-client';
import {
  type Bus,
  type EventConsumer,
  type EventProducer,
  startEventConsumer,
} from '../../../../shared/bus/index.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { ExperimentTopics } from '../../common/bus-names.ts';
import type { ObservationStore } from '../../common/ports.ts';
import { toChange } from '../observation-events.ts';
import { readModelChanges } from '../read-model.ts';
import { rebuildReadModelIfEmpty } from './read-model-rebuild.ts';
import type { ReadModelStore } from './read-model-store.ts';

/** What the persistence consumer reads (the read model's topics only with a read model). */
export type PersistenceTopics = Pick<
  ExperimentTopics,
  'observations' | 'trialStatus' | 'suggestions' | 'earlyStoppingRules' | 'experiments'
>;

/**
 * The persistence consumer: applies experiment.observations and experiment.trial-status to the
 * store, the partitions' batches of one fetch in one transaction, then commits them in one request;
 * `toChange` routes each event by its type. With a read model it also reads
 * experiment.suggestions and experiment.early-stopping-rules, and keeps the read model's
 * experiments and trials (a trial's status only in the store, where the read model reads it).
 */
export async function startPersistenceConsumer(deps: {
  bus: Bus;
  producer: EventProducer;
  store: ObservationStore;
  readModel?: ReadModelStore | undefined;
  /** The deployment's topic names (KAFKA_TOPIC_PREFIX). */
  topics: PersistenceTopics;
  groupId: string;
  sessionTimeoutMs: number;
  logger: Logger;
  registry?: Registry;
  /**
   * After a batch, how long the next fetch waits, so that the events arriving meanwhile (on every
   * partition) are applied in one transaction and committed in one request. Default 0.
   */
  batchWaitMs?: number;
  /** After each commit: everything before `next` on the partition is in the store. */
  onCommitted?: (topic: string, partition: number, next: bigint) => void;
  /** Each time the group hands the consumer its partitions (by topic). */
  onAssigned?: (assignment: ReadonlyMap<string, readonly number[]>) => void;
  /** Rebuild the read model from the topics first when it is empty (READ_MODEL_REBUILD). */
  rebuildReadModel?: boolean;
}): Promise<EventConsumer> {
  const { store, readModel, topics } = deps;
  const storedTopics: ReadonlySet<string> = new Set([topics.observations.name, topics.trialStatus.name]);
  if (readModel && deps.rebuildReadModel)
    await rebuildReadModelIfEmpty({
      readModel,
      store,
      bus: deps.bus,
      topics,
      persistenceGroup: deps.groupId,
      logger: deps.logger,
    });
  return await startEventConsumer({
    bus: deps.bus,
    producer: deps.producer,
    logger: deps.logger.child({ component: 'persistence' }),
    groupId: deps.groupId,
    topics: [
      topics.observations.name,
      topics.trialStatus.name,
      ...(readModel
        ? [topics.suggestions.name, topics.earlyStoppingRules.name, topics.experiments.name]
        : []),
    ],
    maxBatchEvents: 1_000,
    handleTogether: true,
    ...(deps.batchWaitMs ? { lingerMs: deps.batchWaitMs } : {}),
    ...(deps.onCommitted ? { onCommitted: deps.onCommitted } : {}),
    ...(deps.onAssigned ? { onAssigned: deps.onAssigned } : {}),
    sessionTimeoutMs: deps.sessionTimeoutMs,
    ...(deps.registry ? { registry: deps.registry } : {}),
    handle: async (events) => {
      const stored = events.filter((e) => storedTopics.has(e.topic));
      if (stored.length > 0) await store.apply(stored.map(toChange));
      if (readModel) {
        const changes = events.flatMap((e) => readModelChanges(e));
        if (changes.length > 0) await readModel.apply(changes);
      }
    },
  });
}
