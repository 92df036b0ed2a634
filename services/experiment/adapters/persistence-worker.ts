import type { Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';
import type { EventCatalog } from '../../../shared/avro/catalog.ts';
import { startWorker, type Worker } from '../../../shared/bus/consumer.ts';
import type { EventProducer } from '../../../shared/bus/producer.ts';
import { TOPICS } from '../../../shared/bus/topics.ts';
import type { Logger } from '../../../shared/logger.ts';
import { toChange } from '../domain/observations.ts';
import type { ObservationStore } from '../ports.ts';

/**
 * Applies experiment.observations and experiment.trial-status to the store, a partition's batch per
 * transaction, then commits. A batch comes from one partition of one topic; `toChange` routes each
 * event by its type.
 */
export function startPersistenceWorker(deps: {
  kafka: Kafka;
  catalog: EventCatalog;
  producer: EventProducer;
  store: ObservationStore;
  groupId: string;
  sessionTimeoutMs: number;
  logger: Logger;
  registry?: Registry;
}): Promise<Worker> {
  const { store } = deps;
  return startWorker({
    kafka: deps.kafka,
    catalog: deps.catalog,
    producer: deps.producer,
    logger: deps.logger.child({ component: 'persistence' }),
    groupId: deps.groupId,
    topics: [TOPICS.observations.name, TOPICS.trialStatus.name],
    maxBatchEvents: 1_000,
    sessionTimeoutMs: deps.sessionTimeoutMs,
    ...(deps.registry ? { registry: deps.registry } : {}),
    handle: async (events) => {
      await store.apply(events.map((e) => toChange(e.eventType, e.payload)));
    },
  });
}
