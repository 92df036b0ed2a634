// The experiment service's wiring: the only place that reads the environment, creates clients,
// starts servers and consumers, and registers how to stop them (in reverse order) on SIGTERM.

import { createBus, createEventProducer, dlqOf, TOPICS } from '../../shared/bus/index.ts';
import { systemClock } from '../../shared/clock.ts';
import {
  createHealthService,
  type GrpcServiceRegistration,
  loadPackageDefinition,
  lookupService,
  startGrpcServer,
} from '../../shared/grpc.ts';
import { startH2GrpcServer } from '../../shared/grpc-server/grpc-js-services.ts';
import { componentChecks, type DependencyCheck, watchDependencies } from '../../shared/health-checks.ts';
import { createLifecycle } from '../../shared/lifecycle.ts';
import { createLogger } from '../../shared/logger.ts';
import { createMetricsRegistry, startMetricsServer } from '../../shared/metrics.ts';
import { SettingsError } from '../../shared/settings.ts';
import { createSupervisor, type Running } from '../../shared/supervisor.ts';
import { createLocalCommits } from './common/local-commits.ts';
import { createReadBarrier } from './common/read-barrier.ts';
import { watchStore } from './common/store-watch.ts';
import { createDbManagerHandlers } from './dbmanager/adapters/grpc-handlers.ts';
import { createIngestAdmission, type IngestAdmission } from './dbmanager/adapters/ingest-admission.ts';
import { withObservationLogEncoder } from './dbmanager/adapters/observation-log-encoding.ts';
import {
  openObservationStore,
  readModelDatabaseOf,
  storeConfigOf,
  storeName,
} from './dbmanager/adapters/observation-store-config.ts';
import { startPersistenceConsumer } from './dbmanager/adapters/persistence-consumer.ts';
import { startPersistenceThread } from './dbmanager/adapters/persistence-thread.ts';
import { openReadModel } from './dbmanager/adapters/read-model-store.ts';
import { withReportReader } from './dbmanager/adapters/report-request.ts';
import { startEarlyStoppingJudge } from './earlystopping/adapters/early-stopping-judge.ts';
import { createEarlyStoppingHandlers } from './earlystopping/adapters/grpc-handlers.ts';
import { startJudgeThread } from './earlystopping/adapters/judge-thread.ts';
import { createRemoteCurves } from './earlystopping/adapters/remote-curves.ts';
import { readExperimentSettings } from './settings.ts';
import { createSuggestionHandlers } from './suggestion/adapters/grpc-handlers.ts';
import {
  type KafkaControllerStateStore,
  openKafkaControllerStateStore,
} from './suggestion/adapters/kafka-controller-state-store.ts';
import { createSuggestionThreads } from './suggestion/adapters/suggestion-threads.ts';
import { withSuggestionsRequestReader } from './suggestion/adapters/suggestions-request.ts';
import type { ControllerStateStore } from './suggestion/ports.ts';
import { startWeb } from './web/adapters/start-web.ts';

let settings: ReturnType<typeof readExperimentSettings>;
try {
  settings = readExperimentSettings(process.env);
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  process.stderr.write(`experiment: ${error.message}\n`);
  process.exit(2);
}

const logger = createLogger({ name: 'experiment', level: settings.logLevel });
const lifecycle = createLifecycle({ logger, deadlineMs: settings.shutdownDeadlineMs });
lifecycle.stopOnSignals();

try {
  const registry = createMetricsRegistry('experiment');
  const metricsServer = await startMetricsServer({
    host: settings.grpcHost,
    port: settings.metricsPort,
    registry,
    logger,
  });
  lifecycle.onStop('metrics server', () => metricsServer.stop());

  const bus = createBus({
    brokers: settings.kafkaBrokers,
    clientId: settings.kafkaClientId,
    client: settings.kafkaClient,
    logger,
  });
  lifecycle.onStop('kafka', () => bus.close());
  const hosts = (service: (typeof settings.services)[number]) => settings.services.includes(service);
  // What reads observations or statuses: a suggestion-only instance opens neither them nor a store.
  const usesObservations =
    hosts('dbmanager') ||
    hosts('earlystopping') ||
    settings.persistenceConsumer ||
    settings.earlyStoppingJudge ||
    settings.http;
  await bus.ensureTopics(
    [
      ...(usesObservations ? [TOPICS.observations, TOPICS.trialStatus, TOPICS.earlyStoppingRules] : []),
      TOPICS.suggestions,
    ].flatMap((topic) => [topic, dlqOf(topic)]),
  );
  // Read, never consumed by a group: no dead-letter topic.
  if (hosts('suggestion')) await bus.ensureTopics([TOPICS.nasControllerState]);

  // Created once the store is open; the producer tells it where acknowledged reports landed.
  let admission: IngestAdmission | undefined;
  const producer = await createEventProducer(bus, {
    registry,
    onWritten: (written) => admission?.written(written),
  });
  lifecycle.onStop('producer', () => producer.disconnect());

  // Long-lived consumers are restarted when they stop on an error; the process gives up (exit 1,
  // for its own supervisor to restart it) when one cannot run again within two minutes.
  const supervisor = createSupervisor({
    logger,
    registry,
    onGiveUp: () => void lifecycle.stop('a component could not be restarted').then(() => process.exit(1)),
  });

  const storeConfig = storeConfigOf(settings);
  const opened = usesObservations ? await openObservationStore(storeConfig, logger) : undefined;
  // Reads fail at once with the store's reason while it is lost (a PostgreSQL outage).
  const storeWatch = opened ? watchStore(opened, { name: storeName(storeConfig) }) : undefined;
  const store = storeWatch?.store;
  if (store) lifecycle.onStop('observation store', () => store.close());

  // The read model is kept by the persistence consumer (the thread's on its own connection) and
  // read here by the web side.
  const readModel =
    store && (settings.http || (settings.persistenceConsumer && !settings.persistenceThread))
      ? await openReadModel(readModelDatabaseOf(storeConfig), store)
      : undefined;
  if (readModel) lifecycle.onStop('read model', () => readModel.close());
  // Persistence runs on a thread of its own unless PERSISTENCE_THREAD=false (~30 MiB less, one
  // thread for everything). Its commits let the read barriers pass without asking Kafka.
  // Threads (persistence, early stopping) open Kafka clients of their own.
  const kafkaOfThreads = {
    brokers: settings.kafkaBrokers,
    clientId: settings.kafkaClientId,
    client: settings.kafkaClient,
  };
  const localCommits = createLocalCommits();
  if (store && settings.persistenceConsumer && hosts('dbmanager') && settings.reportLagBudgetMs > 0)
    admission = createIngestAdmission({
      topic: TOPICS.observations.name,
      budgetMs: settings.reportLagBudgetMs,
      maxWaitMs: settings.reportLagMaxWaitMs,
      now: () => systemClock.now(),
      storeLost: () => storeWatch?.unreachable('') !== undefined,
      registry,
    });
  // Reports held for a store that is now lost go at once.
  if (admission && storeWatch) storeWatch.onChange(() => admission?.recheck());
  const onCommitted = (topic: string, partition: number, next: bigint) => {
    localCommits.record(topic, partition, next);
    admission?.committed(topic, partition, next);
  };
  const onAssigned = (assignment: ReadonlyMap<string, readonly number[]>) => admission?.assigned(assignment);
  // A consumer that ended applies nothing until it runs again: reports do not wait for it.
  const unassignedOnEnd = async (running: Promise<Running>): Promise<Running> => {
    const started = await running;
    started.ended.catch(() => onAssigned(new Map()));
    return started;
  };
  const persistence = {
    groupId: settings.persistenceGroup,
    sessionTimeoutMs: settings.consumerSessionTimeoutMs,
    batchWaitMs: settings.persistenceBatchWaitMs,
    rebuildReadModel: settings.readModelRebuild,
  };
  if (store && settings.persistenceConsumer)
    await supervisor.supervise('persistence consumer', () =>
      unassignedOnEnd(
        settings.persistenceThread
          ? startPersistenceThread({
              config: {
                kafka: kafkaOfThreads,
                store: storeConfig,
                readModel: true,
                ...persistence,
                logLevel: settings.logLevel,
              },
              logger,
              registry,
              observeStore: (error) => storeWatch?.observe(error),
              onCommitted,
              onAssigned,
              stopDeadlineMs: settings.shutdownDeadlineMs / 2,
            })
          : startPersistenceConsumer({
              bus,
              producer,
              store,
              readModel,
              ...persistence,
              onCommitted,
              onAssigned,
              logger,
              registry,
            }),
      ),
    );

  const root = loadPackageDefinition(['api/v1beta1/api.proto']);
  const hosted: GrpcServiceRegistration[] = [];
  // Health answers for each hosted service under every name a caller may probe.
  const healthNames = ['', 'grpc.health.v1.Health'];

  if (store && hosts('dbmanager')) {
    const barrier = createReadBarrier({
      bus,
      topic: TOPICS.observations.name,
      groupId: settings.persistenceGroup,
      timeoutMs: settings.readBarrierTimeoutMs,
      storeLost: (what) => storeWatch?.unreachable(what),
      ...(settings.persistenceConsumer ? { localCommits } : {}),
    });
    hosted.push({
      definition: withReportReader(
        withObservationLogEncoder(lookupService(root, 'api.v1.beta1.DBManager').service),
      ),
      implementation: createDbManagerHandlers({
        producer,
        store,
        barrier,
        ...(admission ? { admission } : {}),
        clock: systemClock,
        logger,
      }),
    });
    healthNames.push('api.v1.beta1.DBManager');
  }

  if (hosts('suggestion')) {
    // Restarted as a whole (it rebuilds from its topic): the handlers keep asking the current one.
    let following: KafkaControllerStateStore | undefined;
    await supervisor.supervise('NAS controller-state follower', async () => {
      following = await openKafkaControllerStateStore({
        bus,
        producer,
        clock: systemClock,
        logger,
        catchUpTimeoutMs: settings.readBarrierTimeoutMs,
        cacheBytes: settings.nasStateCacheMb * 1024 * 1024,
      });
      return { ended: following.ended, stop: () => following!.close() };
    });
    const controllerStates: ControllerStateStore = {
      latest: (experiment) => following!.latest(experiment),
      save: (experiment, state) => following!.save(experiment, state),
    };
    const threads =
      settings.suggestionThreads > 0
        ? createSuggestionThreads({ size: settings.suggestionThreads, logger })
        : undefined;
    if (threads) lifecycle.onStop('suggestion threads', () => threads.close());
    hosted.push({
      definition: withSuggestionsRequestReader(lookupService(root, 'api.v1.beta1.Suggestion').service),
      implementation: createSuggestionHandlers({
        producer,
        clock: systemClock,
        logger,
        registry,
        controllerStates,
        ...(threads ? { threads } : {}),
      }),
    });
    // Katib's suggestion pods are probed as manager.v1beta1.Suggestion.
    healthNames.push('api.v1.beta1.Suggestion', 'manager.v1beta1.Suggestion');
  }

  if (store && hosts('earlystopping')) {
    const barrierFor = (topic: string) =>
      createReadBarrier({
        bus,
        topic,
        groupId: settings.persistenceGroup,
        timeoutMs: settings.readBarrierTimeoutMs,
        storeLost: (what) => storeWatch?.unreachable(what),
        ...(settings.persistenceConsumer ? { localCommits } : {}),
      });
    const remote = createRemoteCurves({ deadlineMs: settings.dbManagerDeadlineMs });
    lifecycle.onStop('remote DBManager clients', () => remote.close());
    hosted.push({
      definition: lookupService(root, 'api.v1.beta1.EarlyStopping').service,
      implementation: createEarlyStoppingHandlers({
        producer,
        store,
        observationsBarrier: barrierFor(TOPICS.observations.name),
        statusBarrier: barrierFor(TOPICS.trialStatus.name),
        remoteCurves: remote.reader,
        clock: systemClock,
        logger,
      }),
    });
    healthNames.push('api.v1.beta1.EarlyStopping');
  }

  if (settings.earlyStoppingJudge) {
    const judge = {
      groupId: settings.earlyStoppingGroup,
      sessionTimeoutMs: settings.consumerSessionTimeoutMs,
      catchUpTimeoutMs: settings.readBarrierTimeoutMs,
      lookbackMs: settings.earlyStoppingLookbackMs,
    };
    await supervisor.supervise('early-stopping judge', () =>
      settings.earlyStoppingThread
        ? startJudgeThread({
            config: { kafka: kafkaOfThreads, ...judge, logLevel: settings.logLevel },
            logger,
            registry,
            stopDeadlineMs: settings.shutdownDeadlineMs / 2,
          })
        : startEarlyStoppingJudge({ bus, producer, clock: systemClock, logger, ...judge, registry }),
    );
  }
  lifecycle.onStop('consumers and followers', () => supervisor.stop());

  const health = createHealthService();
  const startServer = settings.grpcServer === 'own' ? startH2GrpcServer : startGrpcServer;
  const server = await startServer({
    host: settings.grpcHost,
    port: settings.grpcPort,
    maxMessageBytes: settings.grpcMaxMessageBytes,
    // Replies are ours: a trial's whole log may be larger than any request.
    maxSendMessageBytes: 256 * 1024 * 1024,
    logger,
    services: [...hosted, health],
  });
  lifecycle.onStop('grpc server', async () => {
    health.shutdown();
    await server.stop(settings.shutdownDeadlineMs / 2);
  });

  const web =
    store && settings.http && readModel
      ? await startWeb({
          host: settings.grpcHost,
          port: settings.httpPort,
          maxBodyBytes: settings.grpcMaxMessageBytes,
          sseMaxBufferedBytes: settings.sseMaxBufferedBytes,
          bus,
          store,
          readModel,
          services: hosted,
          lifecycle,
          logger,
          registry,
        })
      : undefined;

  // Kafka matters to every service; the store and the consumers to the services reading them.
  const readers = ['api.v1.beta1.DBManager', 'api.v1.beta1.EarlyStopping'];
  const checks: DependencyCheck[] = [
    {
      name: 'kafka',
      check: async () => {
        const lost = bus.link.unreachable('serving');
        if (lost) throw lost;
      },
    },
    ...(store
      ? [{ name: `${settings.store} observation store`, services: readers, check: () => store.ping() }]
      : []),
    ...componentChecks(supervisor, [
      { name: 'persistence consumer', services: readers },
      { name: 'early-stopping judge', services: ['api.v1.beta1.EarlyStopping'] },
      {
        name: 'NAS controller-state follower',
        services: ['api.v1.beta1.Suggestion', 'manager.v1beta1.Suggestion'],
      },
    ]),
  ];
  const stopWatching = await watchDependencies({
    health,
    services: healthNames,
    checks,
    intervalMs: 2_000,
    timeoutMs: 1_500,
    logger,
    changes: [
      (listener) => bus.link.onChange(listener),
      (listener) => supervisor.onChange(listener),
      ...(storeWatch ? [(listener: () => void) => storeWatch.onChange(listener)] : []),
    ],
  });
  lifecycle.onStop('health watch', stopWatching);

  logger.info(
    {
      grpc: `${settings.grpcHost}:${server.port}`,
      metrics: `${settings.grpcHost}:${metricsServer.port}`,
      web,
      store: settings.store,
      services: settings.services,
    },
    'experiment service listening',
  );
} catch (error) {
  logger.fatal({ err: error }, 'experiment service failed to start');
  await lifecycle.stop('start-up failure');
  process.exit(1);
}
