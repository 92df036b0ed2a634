// The rate limit service's wiring: the only place that reads the environment, creates clients,
// starts listeners and registers how to stop them (in reverse order) on SIGTERM.
import { createBus, createEventProducer, dlqOf, type EventProducer, TOPICS } from '../../shared/bus/index.ts';
import { systemClock } from '../../shared/clock.ts';
import {
  createHealthService,
  loadPackageDefinition,
  lookupService,
  startGrpcServer,
} from '../../shared/grpc.ts';
import { createLifecycle } from '../../shared/lifecycle.ts';
import { createMetricsRegistry } from '../../shared/metrics.ts';
import { SettingsError } from '../../shared/settings.ts';
import { createCallTimer, type TimingSink } from './adapters/call-stats.ts';
import {
  createConfigPublisher,
  createLatestConfigPublisher,
  subscribeToConfigs,
} from './adapters/config-bus.ts';
import { createDebugHandler } from './adapters/debug-server.ts';
import { createFileProvider } from './adapters/file-provider.ts';
import { createRateLimitHandlers, RLS_PROTO, RLS_SERVICE } from './adapters/grpc-handlers.ts';
import { createHealthState, type HealthComponent } from './adapters/health.ts';
import { createHttpHandler, startHttpServer } from './adapters/http-server.ts';
import { createRatelimitLogger } from './adapters/logging.ts';
import { createMemcachedCounterStore } from './adapters/memcached-store.ts';
import { registerPrometheusStats } from './adapters/prometheus.ts';
import { createRedisCounterStore, type RedisCounterStore } from './adapters/redis-store.ts';
import { startStatsdSink } from './adapters/statsd-sink.ts';
import { createConfigRuntime } from './config-runtime.ts';
import { createOverLimitCache } from './domain/local-cache.ts';
import { createStatsStore } from './domain/stats.ts';
import type { CounterStore } from './ports.ts';
import { createRateLimitService } from './service.ts';
import { type RatelimitSettings, readRatelimitSettings, redisConnection } from './settings.ts';

let settings: RatelimitSettings;
try {
  settings = readRatelimitSettings(process.env);
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  process.stderr.write(`ratelimit: ${error.message}\n`);
  process.exit(2);
}

const logger = createRatelimitLogger({ level: settings.logLevel, format: settings.logFormat });
const lifecycle = createLifecycle({ logger, deadlineMs: settings.shutdownDeadlineMs });
lifecycle.stopOnSignals();

try {
  const stats = createStatsStore();
  const registry = createMetricsRegistry('ratelimit');
  const localCache =
    settings.localCacheSizeInBytes > 0 ? createOverLimitCache(settings.localCacheSizeInBytes) : undefined;
  const gauges = function* (): Iterable<[string, number]> {
    if (localCache === undefined) return;
    for (const [name, value] of Object.entries(localCache.stats()))
      yield [`ratelimit.localcache.${name}`, value];
  };

  const grpcHealth = createHealthService();
  const components: HealthComponent[] = ['redis', 'sigterm'];
  if (settings.healthyWithAtLeastOneConfigLoaded) components.push('config');
  const health = createHealthState({ components, grpcHealth, logger });

  let redis: RedisCounterStore | undefined;
  let store: CounterStore;
  if (settings.backendType === 'memcache') {
    store = await createMemcachedCounterStore({
      hostPorts: settings.memcacheHostPort.split(',').filter((h) => h.trim() !== ''),
      srv: settings.memcacheSrv,
      srvRefreshMs: settings.memcacheSrvRefreshMs,
      srvDnsServer: settings.memcacheSrvDnsServer,
      maxIdleConns: settings.memcacheMaxIdleConns,
      expirationJitterMaxSeconds: settings.expirationJitterMaxSeconds,
      timeoutMs: settings.redisTimeoutMs,
      logger,
    });
    health.set('redis', true);
  } else {
    redis = createRedisCounterStore({
      main: redisConnection(settings, false),
      perSecond: settings.redisPerSecond ? redisConnection(settings, true) : undefined,
      tls: {
        clientCert: settings.redisTlsClientCert,
        clientKey: settings.redisTlsClientKey,
        caCert: settings.redisTlsCaCert,
        skipHostnameVerification: settings.redisTlsSkipHostnameVerification,
      },
      expirationJitterMaxSeconds: settings.expirationJitterMaxSeconds,
      logger,
      onConnectionChange: (up) => {
        if (settings.redisHealthCheckActiveConnection) health.set('redis', up);
      },
    });
    store = redis;
    await redis.waitUntilReady({
      initialMs: settings.redisStartupInitialIntervalMs,
      maxMs: settings.redisStartupMaxIntervalMs,
      maxElapsedMs: settings.redisStartupMaxElapsedTimeMs,
    });
    health.set('redis', true);
  }
  lifecycle.onStop('counter store', () => store.close());

  const timingSinks: TimingSink[] = [
    registerPrometheusStats({
      registry,
      stats,
      configVersion: () => config.current()?.version,
      redisRoundTrips: () => redis?.roundTrips(),
      gauges,
    }),
  ];
  if (settings.useStatsd && !settings.disableStats) {
    const statsd = startStatsdSink({
      host: settings.statsdHost,
      port: settings.statsdPort,
      intervalMs: settings.statsFlushIntervalMs,
      extraTags: settings.extraTags,
      stats,
      gauges,
      logger,
    });
    timingSinks.push(statsd);
    lifecycle.onStop('statsd', () => statsd.stop());
  }

  // Kafka: the producer is made only when first needed, so FILE mode without Kafka still serves.
  const bus = createBus({
    brokers: settings.kafkaBrokers,
    clientId: settings.kafkaClientId,
    client: settings.kafkaClient,
    logger,
  });
  lifecycle.onStop('kafka', () => bus.close());
  let producer: Promise<EventProducer> | undefined;
  const connectProducer = (): Promise<EventProducer> => {
    producer ??= (async () => {
      await bus.ensureTopics([TOPICS.ratelimitConfig, dlqOf(TOPICS.ratelimitConfig)]);
      return createEventProducer(bus);
    })().catch((error: unknown) => {
      producer = undefined;
      throw error;
    });
    return producer;
  };
  lifecycle.onStop('kafka producer', async () => {
    if (producer !== undefined) await (await producer.catch(() => undefined))?.disconnect();
  });

  const publisher =
    settings.configType === 'FILE' && settings.configKafkaPublish
      ? createLatestConfigPublisher({
          connect: async () =>
            createConfigPublisher({ producer: await connectProducer(), fleet: settings.configKafkaKey }),
          logger,
          retryMs: 2_000,
        })
      : undefined;
  if (publisher !== undefined) lifecycle.onStop('config publisher', () => publisher.stop());

  const config = createConfigRuntime({
    stats,
    logger,
    onApplied: (loaded, source) => {
      health.set('config', loaded.domains.length > 0);
      if (publisher !== undefined && source === 'files')
        publisher.offer({
          version: loaded.version,
          files: loaded.files,
          mergeDomainConfig: settings.mergeDomainConfig,
        });
    },
  });

  if (settings.configType === 'FILE') {
    const files = createFileProvider({
      root: settings.runtimeRoot,
      subdirectory: settings.runtimeSubdirectory,
      appDirectory: settings.runtimeAppDirectory,
      watchRoot: settings.runtimeWatchRoot,
      ignoreDotFiles: settings.runtimeIgnoreDotFiles,
      logger,
    });
    const reload = (): void => {
      files.read().then(
        (found) => void config.apply(found, 'files', settings.mergeDomainConfig),
        (error: unknown) =>
          logger.error({ err: error }, 'Error loading new configuration: cannot read the files'),
      );
    };
    lifecycle.onStop('file watch', files.watch(reload));
    reload();
  } else {
    await connectProducer(); // declares the topic
    const subscription = await subscribeToConfigs({
      bus,
      fleet: settings.configKafkaKey,
      apply: (published) => {
        const loaded = config.apply(
          published.files,
          `kafka:${published.publisher}`,
          published.mergeDomainConfig,
        );
        if (loaded !== undefined && loaded.version !== published.version)
          logger.warn(
            { published: published.version, loaded: loaded.version },
            'configuration version differs from the published one',
          );
      },
    });
    lifecycle.onStop('config subscription', () => subscription.stop());
  }

  if (!settings.forceStartWithoutInitialConfig) {
    logger.info('waiting for the initial configuration');
    await config.first;
  }

  const service = createRateLimitService({
    config: config.current,
    store,
    localCache,
    stats,
    clock: systemClock,
    options: {
      cacheKeyPrefix: settings.cacheKeyPrefix,
      nearLimitRatio: settings.nearLimitRatio,
      globalShadowMode: settings.shadowMode,
      globalQuotaMode: settings.quotaMode,
      headers: settings.limitResponseHeadersEnabled
        ? {
            limit: settings.limitLimitHeader,
            remaining: settings.limitRemainingHeader,
            reset: settings.limitResetHeader,
          }
        : undefined,
    },
  });

  const debug = await startHttpServer({
    host: settings.debugHost,
    port: settings.debugPort,
    name: 'debug server',
    handler: createDebugHandler({ config: config.current, stats, gauges, registry, logger }),
    logger,
  });
  lifecycle.onStop('debug server', () => debug.stop());

  const http = await startHttpServer({
    host: settings.host,
    port: settings.port,
    name: 'HTTP server',
    handler: createHttpHandler({ service, health, logger }),
    logger,
  });
  lifecycle.onStop('HTTP server', () => http.stop());

  const rls = lookupService(loadPackageDefinition([RLS_PROTO]), RLS_SERVICE);
  const timer = createCallTimer('ShouldRateLimit', stats, timingSinks);
  const grpc = await startGrpcServer({
    host: settings.grpcHost,
    port: settings.grpcPort,
    logger,
    channelOptions: {
      'grpc.max_connection_age_ms': settings.grpcMaxConnectionAgeMs,
      'grpc.max_connection_age_grace_ms': settings.grpcMaxConnectionAgeGraceMs,
      // Channelz's per-call bookkeeping (timestamps, counters) costs ~10-20 µs of CPU a call; nothing reads it.
      'grpc.enable_channelz': 0,
    },
    services: [
      { definition: rls.service, implementation: createRateLimitHandlers({ service, timer, logger }) },
      grpcHealth,
    ],
  });
  grpcHealth.setStatus('', 'SERVING');
  logger.warn({ address: `${settings.grpcHost}:${grpc.port}` }, 'gRPC server listening');
  lifecycle.onStop('gRPC server', async () => {
    grpcHealth.shutdown();
    await grpc.stop(settings.shutdownDeadlineMs / 2);
  });
  // Registered last, so it runs first: probes fail before the listeners close.
  lifecycle.onStop('health', () => health.set('sigterm', false));
} catch (error) {
  logger.fatal({ err: error }, 'rate limit service failed to start');
  await lifecycle.stop('start-up failure');
  process.exit(1);
}
