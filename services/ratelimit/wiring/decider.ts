// The decision side of one process: the counter store, the service, its stats sinks, the gRPC and
// HTTP listeners. Fed a configuration runtime by its caller (one process, or a worker fed by the
// primary), so a different configuration source plugs in without touching it.

import type { Registry } from 'prom-client';
import { systemClock } from '../../../shared/clock.ts';
import {
  createHealthService,
  type HealthService,
  loadPackageDefinition,
  lookupService,
  startGrpcServer,
} from '../../../shared/grpc.ts';
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import { createRateLimitHandlers, RLS_PROTO, RLS_SERVICE } from '../adapters/grpc/grpc-handlers.ts';
import { grpcServerCredentials } from '../adapters/grpc/tls-credentials.ts';
import { createHttpHandler, startHttpServer } from '../adapters/http/http-server.ts';
import { createMemcachedCounterStore } from '../adapters/memcached/memcached-store.ts';
import { createRedisCounterStore, type RedisCounterStore } from '../adapters/redis/redis-store.ts';
import { createCallTimer, type TimingSink } from '../adapters/telemetry/call-stats.ts';
import { createHealthState, type HealthComponent, type HealthState } from '../adapters/telemetry/health.ts';
import { registerPrometheusStats } from '../adapters/telemetry/prometheus.ts';
import { startStatsdSink } from '../adapters/telemetry/statsd-sink.ts';
import type { ConfigRuntime } from '../config-runtime.ts';
import { createOverLimitCache, type OverLimitCache } from '../domain/local-cache.ts';
import type { StatsStore } from '../domain/stats.ts';
import type { CounterStore } from '../ports.ts';
import { createRateLimitService } from '../service.ts';
import type { RatelimitSettings } from '../settings/index.ts';
import { redisConnection } from '../settings/redis-connection.ts';

export interface Decider {
  readonly health: HealthState;
  /** Gauges for /stats and statsd (the local cache's). */
  gauges(): Iterable<[string, number]>;
  /** Opens the listeners: call once the first configuration is in force (or not awaited). */
  listen(): Promise<{ grpcPort: number; httpPort: number }>;
}

/** Connects the counter store (waiting for Redis as REDIS_STARTUP_* say) and registers the stats sinks. */
export async function startDecider(options: {
  settings: RatelimitSettings;
  logger: Logger;
  lifecycle: Lifecycle;
  stats: StatsStore;
  registry: Registry;
  config: ConfigRuntime;
}): Promise<Decider> {
  const { settings, logger, lifecycle, stats, registry, config } = options;
  const localCache: OverLimitCache | undefined =
    settings.localCacheSizeInBytes > 0 ? createOverLimitCache(settings.localCacheSizeInBytes) : undefined;
  const gauges = function* (): Iterable<[string, number]> {
    if (localCache === undefined) return;
    for (const [name, value] of Object.entries(localCache.stats()))
      yield [`ratelimit.localcache.${name}`, value];
  };

  const grpcHealth: HealthService = createHealthService();
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
    lifecycle.onStop('counter store', () => store.close());
    await redis.waitUntilReady({
      initialMs: settings.redisStartupInitialIntervalMs,
      maxMs: settings.redisStartupMaxIntervalMs,
      maxElapsedMs: settings.redisStartupMaxElapsedTimeMs,
    });
    health.set('redis', true);
  }
  if (settings.backendType === 'memcache') lifecycle.onStop('counter store', () => store.close());

  const timingSinks: TimingSink[] = [
    registerPrometheusStats({
      registry,
      stats,
      configVersion: () => config.current()?.version,
      redisRoundTrips: () => redis?.roundTrips(),
      gauges,
    }),
  ];
  if ((settings.useStatsd || settings.useDogStatsd) && !settings.disableStats) {
    const statsd = startStatsdSink({
      host: settings.statsdHost,
      port: settings.statsdPort,
      intervalMs: settings.statsFlushIntervalMs,
      extraTags: settings.extraTags,
      dogStatsd: settings.useDogStatsd ? { mogrifiers: settings.dogStatsdMogrifiers } : undefined,
      stats,
      gauges,
      logger,
    });
    timingSinks.push(statsd);
    lifecycle.onStop('statsd', () => statsd.stop());
  }

  // Tracing (TRACING_ENABLED): loaded and wrapped around the decision path only when on.
  const tracing = settings.tracingEnabled
    ? await (await import('../adapters/telemetry/tracing.ts')).tracingFromSettings(
        settings,
        logger,
        (name, stop) => lifecycle.onStop(name, stop),
      )
    : undefined;
  const service = createRateLimitService({
    config: config.current,
    store: tracing ? tracing.traceStore(store, settings.backendType) : store,
    localCache,
    stats,
    clock: systemClock,
    // Redis only, as in the reference: memcached's counts are read before its increments anyway.
    dynamicMetadata: settings.responseDynamicMetadata,
    stopIncrementWhenOverLimit:
      settings.stopCacheKeyIncrementWhenOverlimit && settings.backendType === 'redis',
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

  return {
    health,
    gauges,
    async listen() {
      const http = await startHttpServer({
        host: settings.host,
        port: settings.port,
        name: 'HTTP server',
        handler: tracing
          ? tracing.traceHttp(
              createHttpHandler({ service: tracing.traceService(service, 'http'), health, logger }),
            )
          : createHttpHandler({ service, health, logger }),
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
        credentials: grpcServerCredentials(settings, logger, (name, stop) => lifecycle.onStop(name, stop)),
        services: [
          {
            definition: rls.service,
            implementation: tracing
              ? tracing.traceGrpc(
                  createRateLimitHandlers({ service: tracing.traceService(service, 'grpc'), timer, logger }),
                )
              : createRateLimitHandlers({ service, timer, logger }),
          },
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
      return { grpcPort: grpc.port, httpPort: http.port };
    },
  };
}
