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
import { watchDependencies } from '../../shared/health-checks.ts';
import { createLifecycle } from '../../shared/lifecycle.ts';
import { createLogger } from '../../shared/logger.ts';
import { createMetricsRegistry, startMetricsServer } from '../../shared/metrics.ts';
import { SettingsError } from '../../shared/settings.ts';
import type { ObservationStore } from './common/ports.ts';
import { createReadBarrier } from './common/read-barrier.ts';
import { createDbManagerHandlers } from './dbmanager/adapters/grpc-handlers.ts';
import { withObservationLogEncoder } from './dbmanager/adapters/observation-log-encoding.ts';
import { startPersistenceConsumer } from './dbmanager/adapters/persistence-consumer.ts';
import { openPostgresObservationStore } from './dbmanager/adapters/postgres-observation-store.ts';
import { rebuildReadModelIfEmpty } from './dbmanager/adapters/read-model-rebuild.ts';
import { openReadModel } from './dbmanager/adapters/read-model-store.ts';
import { openSqliteObservationStore } from './dbmanager/adapters/sqlite-observation-store.ts';
import { startEarlyStoppingJudge } from './earlystopping/adapters/early-stopping-judge.ts';
import { createEarlyStoppingHandlers } from './earlystopping/adapters/grpc-handlers.ts';
import { createRemoteCurves } from './earlystopping/adapters/remote-curves.ts';
import { readExperimentSettings } from './settings.ts';
import { createSuggestionHandlers } from './suggestion/adapters/grpc-handlers.ts';
import { openKafkaControllerStateStore } from './suggestion/adapters/kafka-controller-state-store.ts';
import { createSuggestionThreads } from './suggestion/adapters/suggestion-threads.ts';
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
  await bus.ensureTopics(
    [TOPICS.observations, TOPICS.trialStatus, TOPICS.earlyStoppingRules, TOPICS.suggestions].flatMap(
      (topic) => [topic, dlqOf(topic)],
    ),
  );
  // Read, never consumed by a group: no dead-letter topic.
  if (settings.services.includes('suggestion')) await bus.ensureTopics([TOPICS.nasControllerState]);

  const producer = await createEventProducer(bus);
  lifecycle.onStop('producer', () => producer.disconnect());

  const store: ObservationStore =
    settings.store === 'sqlite'
      ? openSqliteObservationStore({ file: settings.sqliteFile })
      : await openPostgresObservationStore({
          url: settings.postgresUrl,
          schema: settings.postgresSchema,
          poolSize: settings.postgresPoolSize,
          logger,
        });
  lifecycle.onStop('observation store', () => store.close());

  // The read model is kept by the persistence consumer and read by the web side: opened when either runs.
  const readModel =
    settings.persistenceConsumer || settings.http
      ? await openReadModel(
          settings.store === 'sqlite'
            ? { kind: 'sqlite', file: settings.sqliteFile }
            : { kind: 'postgres', url: settings.postgresUrl, schema: settings.postgresSchema },
          store,
        )
      : undefined;
  if (readModel) lifecycle.onStop('read model', () => readModel.close());
  if (readModel && settings.persistenceConsumer && settings.readModelRebuild)
    await rebuildReadModelIfEmpty({
      readModel,
      store,
      bus,
      persistenceGroup: settings.persistenceGroup,
      logger,
    });
  if (settings.persistenceConsumer) {
    const persistence = await startPersistenceConsumer({
      bus,
      producer,
      store,
      ...(readModel ? { readModel } : {}),
      groupId: settings.persistenceGroup,
      sessionTimeoutMs: settings.consumerSessionTimeoutMs,
      logger,
      registry,
    });
    lifecycle.onStop('persistence consumer', () => persistence.stop());
  }

  const root = loadPackageDefinition(['api/v1beta1/api.proto']);
  const hosted: GrpcServiceRegistration[] = [];
  // Health answers for each hosted service under every name a caller may probe.
  const healthNames = ['', 'grpc.health.v1.Health'];

  if (settings.services.includes('dbmanager')) {
    const barrier = createReadBarrier({
      bus,
      topic: TOPICS.observations.name,
      groupId: settings.persistenceGroup,
      timeoutMs: settings.readBarrierTimeoutMs,
    });
    hosted.push({
      definition: withObservationLogEncoder(lookupService(root, 'api.v1.beta1.DBManager').service),
      implementation: createDbManagerHandlers({ producer, store, barrier, clock: systemClock, logger }),
    });
    healthNames.push('api.v1.beta1.DBManager');
  }

  if (settings.services.includes('suggestion')) {
    const controllerStates = await openKafkaControllerStateStore({
      bus,
      producer,
      clock: systemClock,
      logger,
      catchUpTimeoutMs: settings.readBarrierTimeoutMs,
      cacheBytes: settings.nasStateCacheMb * 1024 * 1024,
    });
    lifecycle.onStop('controller state store', () => controllerStates.close());
    const threads =
      settings.suggestionThreads > 0
        ? createSuggestionThreads({ size: settings.suggestionThreads, logger })
        : undefined;
    if (threads) lifecycle.onStop('suggestion threads', () => threads.close());
    hosted.push({
      definition: lookupService(root, 'api.v1.beta1.Suggestion').service,
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

  if (settings.services.includes('earlystopping')) {
    const barrierFor = (topic: string) =>
      createReadBarrier({
        bus,
        topic,
        groupId: settings.persistenceGroup,
        timeoutMs: settings.readBarrierTimeoutMs,
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
    const judge = await startEarlyStoppingJudge({
      bus,
      producer,
      clock: systemClock,
      logger,
      groupId: settings.earlyStoppingGroup,
      sessionTimeoutMs: settings.consumerSessionTimeoutMs,
      catchUpTimeoutMs: settings.readBarrierTimeoutMs,
      lookbackMs: settings.earlyStoppingLookbackMs,
      registry,
    });
    lifecycle.onStop('early-stopping judge', () => judge.stop());
  }

  const health = createHealthService();
  const server = await startGrpcServer({
    host: settings.grpcHost,
    port: settings.grpcPort,
    maxMessageBytes: settings.grpcMaxMessageBytes,
    logger,
    services: [...hosted, health],
  });
  lifecycle.onStop('grpc server', async () => {
    health.shutdown();
    await server.stop(settings.shutdownDeadlineMs / 2);
  });

  const web =
    settings.http && readModel
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

  const stopWatching = await watchDependencies({
    health,
    services: healthNames,
    checks: [
      { name: 'kafka', check: () => bus.ping() },
      { name: `${settings.store} observation store`, check: () => store.ping() },
    ],
    intervalMs: 2_000,
    timeoutMs: 1_500,
    logger,
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
