// The dbmanager feature's wiring: the observation store (with its watch and the read model), the
// persistence consumer that fills it, the admission that holds reports while it is behind, the read
// barriers, and the api.v1.beta1.DBManager service.
import { systemClock } from '../../../shared/clock.ts';
import { lookupService } from '../../../shared/grpc.ts';
import { protoService } from '../../../shared/rpc/proto-service.ts';
import type { Running } from '../../../shared/supervisor.ts';
import { createLocalCommits, type LocalCommits } from '../common/local-commits.ts';
import type { ObservationStore } from '../common/ports.ts';
import { createReadBarrier, type ReadBarrier } from '../common/read-barrier.ts';
import type { ReadModel } from '../common/read-model.ts';
import { type StoreWatch, watchStore } from '../common/store-watch.ts';
import type { HostedFeature, WiringDeps } from '../common/wiring.ts';
import { createDbManagerHandlers } from './adapters/grpc-handlers.ts';
import { createIngestAdmission, type IngestAdmission } from './adapters/ingest-admission.ts';
import { withObservationLogEncoder } from './adapters/observation-log-encoding.ts';
import {
  type ObservationStoreConfig,
  openObservationStore,
  readModelDatabaseOf,
  storeName,
} from './adapters/observation-store-config.ts';
import { startPersistenceConsumer } from './adapters/persistence-consumer.ts';
import { startPersistenceThread } from './adapters/persistence-thread.ts';
import { openReadModel } from './adapters/read-model-store.ts';
import { withReportReader } from './adapters/report-request.ts';

export interface ObservationsOptions {
  readonly store: ObservationStoreConfig;
  /** Keep the read model here (the web side reads it). */
  readonly readModel: boolean;
  /** Run the persistence consumer, on a thread of its own or on this one. */
  readonly persistence:
    | false
    | {
        readonly thread: boolean;
        readonly groupId: string;
        readonly sessionTimeoutMs: number;
        readonly batchWaitMs: number;
        readonly rebuildReadModel: boolean;
      };
  /** Back-pressure on reports (REPORT_LAG_*); none when absent. */
  readonly admission?: { readonly budgetMs: number; readonly maxWaitMs: number };
  /** The persistence group the read barriers wait for, and how long. */
  readonly barrier: { readonly groupId: string; readonly timeoutMs: number };
}

export interface Observations {
  readonly store: ObservationStore;
  readonly storeWatch: StoreWatch;
  readonly readModel: ReadModel | undefined;
  readonly admission: IngestAdmission | undefined;
  readonly localCommits: LocalCommits;
  /** A read barrier on one of the persistence consumer's topics. */
  barrierFor(topic: string): ReadBarrier;
}

/** Opens the store and starts the persistence consumer under the supervisor. */
export async function openObservations(
  deps: WiringDeps,
  options: ObservationsOptions,
): Promise<Observations> {
  const { lifecycle, logger, supervisor, registry } = deps;
  // Reads fail at once with the store's reason while it is lost (a PostgreSQL outage).
  const storeWatch = watchStore(await openObservationStore(options.store, logger), {
    name: storeName(options.store),
  });
  const store = storeWatch.store;
  lifecycle.onStop('observation store', () => store.close());
  const persistence = options.persistence;
  // The read model is kept by the persistence consumer (the thread's on its own connection) and
  // read here by the web side.
  const readModel =
    options.readModel || (persistence && !persistence.thread)
      ? await openReadModel(readModelDatabaseOf(options.store), store)
      : undefined;
  if (readModel) lifecycle.onStop('read model', () => readModel.close());

  const localCommits = createLocalCommits();
  const admission =
    persistence && options.admission
      ? createIngestAdmission({
          topic: deps.topics.observations.name,
          budgetMs: options.admission.budgetMs,
          maxWaitMs: options.admission.maxWaitMs,
          now: () => systemClock.now(),
          storeLost: () => storeWatch.unreachable('') !== undefined,
          registry,
        })
      : undefined;
  // Reports held for a store that is now lost go at once.
  if (admission) storeWatch.onChange(() => admission.recheck());

  if (persistence) {
    const onCommitted = (topic: string, partition: number, next: bigint) => {
      localCommits.record(topic, partition, next);
      admission?.committed(topic, partition, next);
    };
    const onAssigned = (assignment: ReadonlyMap<string, readonly number[]>) =>
      admission?.assigned(assignment);
    // A consumer that ended applies nothing until it runs again: reports do not wait for it.
    const unassignedOnEnd = async (running: Promise<Running>): Promise<Running> => {
      const started = await running;
      started.ended.catch(() => onAssigned(new Map()));
      return started;
    };
    const consumer = {
      topics: deps.topics,
      groupId: persistence.groupId,
      sessionTimeoutMs: persistence.sessionTimeoutMs,
      batchWaitMs: persistence.batchWaitMs,
      rebuildReadModel: persistence.rebuildReadModel,
    };
    // Its commits let the read barriers pass without asking Kafka.
    await supervisor.supervise('persistence consumer', () =>
      unassignedOnEnd(
        persistence.thread
          ? startPersistenceThread({
              config: {
                kafka: deps.kafkaOfThreads,
                store: options.store,
                readModel: true,
                ...consumer,
                logLevel: deps.logLevel,
              },
              logger,
              registry,
              observeStore: (error) => storeWatch.observe(error),
              onCommitted,
              onAssigned,
              stopDeadlineMs: deps.shutdownDeadlineMs / 2,
            })
          : startPersistenceConsumer({
              bus: deps.bus,
              producer: deps.producer,
              store,
              readModel,
              ...consumer,
              onCommitted,
              onAssigned,
              logger,
              registry,
            }),
      ),
    );
  }

  return {
    store,
    storeWatch,
    readModel,
    admission,
    localCommits,
    barrierFor: (topic) =>
      createReadBarrier({
        bus: deps.bus,
        topic,
        groupId: options.barrier.groupId,
        timeoutMs: options.barrier.timeoutMs,
        storeLost: (what) => storeWatch.unreachable(what),
        ...(persistence ? { localCommits } : {}),
      }),
  };
}

/** api.v1.beta1.DBManager: ReportObservationLog read from its bytes, GetObservationLog written as the store reads. */
export function wireDbManager(
  deps: Pick<WiringDeps, 'producer' | 'topics'>,
  observations: Observations,
  api: Parameters<typeof lookupService>[0],
): HostedFeature {
  const definition = withReportReader(
    withObservationLogEncoder(lookupService(api, 'api.v1.beta1.DBManager').service),
  );
  return {
    service: protoService(definition, {
      unary: createDbManagerHandlers({
        producer: deps.producer,
        store: observations.store,
        topic: deps.topics.observations.name,
        barrier: observations.barrierFor(deps.topics.observations.name),
        ...(observations.admission ? { admission: observations.admission } : {}),
        clock: systemClock,
      }),
    }),
    healthNames: ['api.v1.beta1.DBManager'],
  };
}
