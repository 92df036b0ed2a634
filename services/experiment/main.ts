// The experiment service's entry: reads the settings once, creates the process's clients, composes
// the features (each wires itself: dbmanager/wiring.ts, suggestion/wiring.ts,
// earlystopping/wiring.ts, web/adapters/start-web.ts), serves them on one gRPC server, keeps their
// health, and registers how to stop everything (in reverse order) on SIGTERM.
import { createBus, createEventProducer, dlqOf } from '../../shared/bus/index.ts';
import { systemClock } from '../../shared/clock.ts';
import { loadPackageDefinition } from '../../shared/grpc.ts';
import { startGrpcServer } from '../../shared/grpc-server/grpc-server.ts';
import { componentChecks, type DependencyCheck, watchDependencies } from '../../shared/health-checks.ts';
import { createLifecycle } from '../../shared/lifecycle.ts';
import { createLogger } from '../../shared/logger.ts';
import { createMetricsRegistry, startMetricsServer } from '../../shared/metrics.ts';
import { createHealthService } from '../../shared/rpc/health.ts';
import { SettingsError } from '../../shared/settings.ts';
import { createSupervisor } from '../../shared/supervisor.ts';
import { experimentBusNames } from './common/bus-names.ts';
import type { HostedFeature, WiringDeps } from './common/wiring.ts';
import { storeConfigOf } from './dbmanager/adapters/observation-store-config.ts';
import { type Observations, openObservations, wireDbManager } from './dbmanager/wiring.ts';
import { EARLY_STOPPING_JUDGE, startJudge, wireEarlyStopping } from './earlystopping/wiring.ts';
import { readExperimentSettings } from './settings.ts';
import { createObjectiveAnalysis } from './suggestion/objective-views/analysis.ts';
import { SUGGESTION_FOLLOWER, wireSuggestion } from './suggestion/wiring.ts';
import { followExperimentStatuses } from './trials/adapters/experiment-statuses.ts';
import { createExperimentSubmissions } from './trials/adapters/experiment-submissions.ts';
import { createInProcessCalls } from './trials/adapters/in-process-calls.ts';
import { startTrialController } from './trials/adapters/trial-controller.ts';
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
// Every topic and group name, KAFKA_TOPIC_PREFIX before it: the components are handed these.
const { topics, groups } = experimentBusNames(settings);
const lifecycle = createLifecycle({ logger, deadlineMs: settings.shutdownDeadlineMs });
lifecycle.stopOnSignals();
const hosts = (service: (typeof settings.services)[number]) => settings.services.includes(service);
// What reads observations or statuses: a suggestion-only instance opens neither them nor a store.
const usesObservations =
  hosts('dbmanager') ||
  hosts('earlystopping') ||
  settings.persistenceConsumer ||
  settings.earlyStoppingJudge ||
  settings.http;

try {
  const registry = createMetricsRegistry('experiment');
  const metricsServer = await startMetricsServer({
    host: settings.grpcHost,
    port: settings.metricsPort,
    registry,
    logger,
  });
  lifecycle.onStop('metrics server', () => metricsServer.stop());

  const kafka = {
    brokers: settings.kafkaBrokers,
    clientId: settings.kafkaClientId,
    client: settings.kafkaClient,
    failpoints: settings.kafkaFailpoints,
  };
  const bus = createBus({ ...kafka, logger });
  lifecycle.onStop('kafka', () => bus.close());
  // Long-lived consumers are restarted when they stop on an error, and the start's steps and
  // components are tried again while Kafka answers with a retriable error; the process gives up
  // (exit 1, for its own supervisor to restart it) when one cannot run within two minutes.
  const supervisor = createSupervisor({
    logger,
    registry,
    onGiveUp: () => void lifecycle.stop('a component could not be restarted').then(() => process.exit(1)),
  });
  await supervisor.retryStep('creating the topics', async () => {
    await bus.ensureTopics(
      [
        ...(usesObservations ? [topics.observations, topics.trialStatus, topics.earlyStoppingRules] : []),
        topics.suggestions,
        // Submissions (POST /api/experiments) are written whether or not a trial controller runs yet,
        // and the persistence consumer's read model follows the controller's trials there.
        ...(settings.http || usesObservations ? [topics.experiments] : []),
      ].flatMap((topic) => [topic, dlqOf(topic)]),
    );
    // Read, never consumed by a group: no dead-letter topic.
    if (hosts('suggestion')) await bus.ensureTopics([topics.nasControllerState]);
  });

  // The producer tells the report admission (made with the store, below) where acknowledged reports landed.
  let observations: Observations | undefined;
  const producer = await supervisor.retryStep('connecting the producer', () =>
    createEventProducer(bus, {
      registry,
      onWritten: (written) => observations?.admission?.written(written),
    }),
  );
  lifecycle.onStop('producer', () => producer.disconnect());
  const deps: WiringDeps = {
    logger,
    lifecycle,
    registry,
    bus,
    producer,
    supervisor,
    topics,
    kafkaOfThreads: kafka,
    logLevel: settings.logLevel,
    shutdownDeadlineMs: settings.shutdownDeadlineMs,
  };

  if (usesObservations)
    observations = await openObservations(deps, {
      store: storeConfigOf(settings),
      readModel: settings.http,
      persistence: settings.persistenceConsumer && {
        thread: settings.persistenceThread,
        groupId: groups.persistence,
        sessionTimeoutMs: settings.consumerSessionTimeoutMs,
        batchWaitMs: settings.persistenceBatchWaitMs,
        rebuildReadModel: settings.readModelRebuild,
      },
      ...(hosts('dbmanager') && settings.reportLagBudgetMs > 0
        ? { admission: { budgetMs: settings.reportLagBudgetMs, maxWaitMs: settings.reportLagMaxWaitMs } }
        : {}),
      barrier: { groupId: groups.persistence, timeoutMs: settings.readBarrierTimeoutMs },
    });

  const api = loadPackageDefinition(['api/v1beta1/api.proto']);
  const hosted: HostedFeature[] = [];
  if (observations && hosts('dbmanager')) hosted.push(wireDbManager(deps, observations, api));
  if (hosts('suggestion'))
    hosted.push(
      await wireSuggestion(
        deps,
        {
          catchUpTimeoutMs: settings.readBarrierTimeoutMs,
          nasStateCacheBytes: settings.nasStateCacheMb * 1024 * 1024,
          threads: settings.suggestionThreads,
        },
        api,
      ),
    );
  if (observations && hosts('earlystopping'))
    hosted.push(
      wireEarlyStopping(deps, observations, { dbManagerDeadlineMs: settings.dbManagerDeadlineMs }, api),
    );
  if (settings.earlyStoppingJudge)
    await startJudge(deps, {
      thread: settings.earlyStoppingThread,
      groupId: groups.earlyStopping,
      sessionTimeoutMs: settings.consumerSessionTimeoutMs,
      catchUpTimeoutMs: settings.readBarrierTimeoutMs,
      lookbackMs: settings.earlyStoppingLookbackMs,
    });
  if (settings.trialController) {
    await supervisor.retryStep('creating the trial topics', () =>
      bus.ensureTopics([
        topics.experiments,
        topics.trialAssignments,
        topics.trialRuns,
        topics.runners,
        topics.trialStatus,
      ]),
    );
    const calls = createInProcessCalls({
      services: hosted.map((feature) => feature.service),
      deadlineMs: settings.trialCallDeadlineMs,
    });
    await supervisor.supervise('trial controller', () =>
      startTrialController({
        bus,
        producer,
        topics,
        calls,
        clock: systemClock,
        logger: logger.child({ component: 'trial-controller' }),
        leaseMs: settings.trialLeaseMs,
        policy: { pickupTimeoutMs: settings.trialPickupTimeoutMs, maxRuns: settings.trialMaxRuns },
        tickMs: settings.trialControllerTickMs,
        catchUpTimeoutMs: settings.readBarrierTimeoutMs * 6,
      }),
    );
  }
  lifecycle.onStop('consumers and followers', () => supervisor.stop());

  const health = createHealthService();
  const server = await startGrpcServer({
    host: settings.grpcHost,
    port: settings.grpcPort,
    maxMessageBytes: settings.grpcMaxMessageBytes,
    // grpc-js's wording, which Katib's Python and Go clients were answered with before.
    oversizeDetails: (size, max) => `Received message larger than max (${size} vs ${max})`,
    logger,
    services: [...hosted.map((feature) => feature.service), health.rpc],
  });
  logger.info({ host: settings.grpcHost, port: server.port }, 'gRPC server listening');
  lifecycle.onStop('grpc server', async () => {
    health.shutdown();
    await server.stop(settings.shutdownDeadlineMs / 2);
  });

  const statuses =
    observations?.readModel && settings.http
      ? await supervisor.retryStep('following experiment.experiments', () =>
          followExperimentStatuses({
            bus,
            topic: topics.experiments.name,
            catchUpTimeoutMs: settings.readBarrierTimeoutMs,
          }),
        )
      : undefined;
  if (statuses) lifecycle.onStop('experiment statuses', () => statuses.stop());
  const web =
    observations?.readModel && settings.http && statuses
      ? await startWeb({
          host: settings.grpcHost,
          port: settings.httpPort,
          maxBodyBytes: settings.grpcMaxMessageBytes,
          sseMaxBufferedBytes: settings.sseMaxBufferedBytes,
          bus,
          topics,
          store: observations.store,
          readModel: observations.readModel,
          analysis: createObjectiveAnalysis(),
          submissions: createExperimentSubmissions({
            bus,
            producer,
            topic: topics.experiments.name,
            clock: systemClock,
          }),
          statuses,
          services: hosted.map((feature) => feature.service),
          lifecycle,
          logger,
          registry,
        })
      : undefined;

  // Kafka matters to every service; the store and the consumers to the services reading them.
  const readers = ['api.v1.beta1.DBManager', 'api.v1.beta1.EarlyStopping'];
  const store = observations?.store;
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
      { name: EARLY_STOPPING_JUDGE, services: ['api.v1.beta1.EarlyStopping'] },
      { name: SUGGESTION_FOLLOWER, services: ['api.v1.beta1.Suggestion', 'manager.v1beta1.Suggestion'] },
    ]),
  ];
  const storeWatch = observations?.storeWatch;
  const stopWatching = await watchDependencies({
    health,
    // Health answers for each hosted service under every name a caller may probe.
    services: ['', 'grpc.health.v1.Health', ...hosted.flatMap((feature) => feature.healthNames)],
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
