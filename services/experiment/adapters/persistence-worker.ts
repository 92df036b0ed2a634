import type { Registry } from 'prom-client';
import { type Bus, type EventProducer, startWorker, TOPICS, type Worker } from '../../../shared/bus/index.ts';
import type { Logger } from '../../../shared/logger.ts';
import { toChange } from '../domain/observations.ts';
import type { ObservationStore } from '../ports.ts';

/**
 * Applies experiment.observations and experiment.trial-status to the store, a partition's batch per
 * transaction, then commits. A batch comes from one partition of one topic; `toChange` routes each
 * event by its type.
 */
export function startPersistenceWorker(deps: {
  bus: Bus;
  producer: EventProducer;
  store: ObservationStore;
  groupId: string;
  sessionTimeoutMs: number;
  logger: Logger;
  registry?: Registry;
}): Promise<Worker> {
  const { store } = deps;
  return startWorker({
    bus: deps.bus,
    producer: deps.producer,
    logger: deps.logger.child({ component: 'persistence' }),
    groupId: deps.groupId,
    topics: [TOPICS.observations.name, TOPICS.trialStatus.name],
    maxBatchEvents: 1_000,
    sessionTimeoutMs: deps.sessionTimeoutMs,
    ...(deps.registry ? { registry: deps.registry } : {}),
    handle: async (events) => {
      await store.apply(events.map(toChange));
    },
  });
}
