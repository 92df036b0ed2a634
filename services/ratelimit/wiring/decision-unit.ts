// A decision unit: the configuration in force, the counter store, the decision service with its
// stats sinks and tracing, and the HTTP and gRPC listeners. Its caller hands it every loaded
// configuration (the main thread loads them), so it never loads one itself.
import { getHeapStatistics } from 'node:v8';
import { threadId } from 'node:worker_threads';
import { systemClock } from '../../../shared/clock.ts';
import type { ServingStatus } from '../../../shared/grpc.ts';
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import { createHealthService } from '../../../shared/rpc/health.ts';
import { createCallTimer } from '../adapters/telemetry/call-stats.ts';
import { createHealthState, type HealthComponent } from '../adapters/telemetry/health.ts';
import type { ResponseTimes } from '../adapters/telemetry/response-times.ts';
import { type ConfigInForce, createConfigInForce } from '../config-in-force.ts';
import { type CountersPage, createCountersView } from '../counters-view.ts';
import type { DecisionOptions } from '../domain/decision.ts';
import { createOverLimitCache, type OverLimitCache } from '../domain/local-cache.ts';
import { SERVICE_STATS, type StatsStore, statsLines } from '../domain/stats.ts';
import { createRateLimitService } from '../service.ts';
import type { RatelimitSettings } from '../settings/index.ts';
import { connectCounterStore } from './counter-store.ts';
import { openDecisionListeners, type UnitPorts } from './listeners.ts';
import { startStatsSinks } from './stats-sinks.ts';

export interface DecisionUnit {
  /** Where the caller puts each loaded configuration. */
  readonly config: ConfigInForce;
  /** GET /counters on the debug port: the counters of a domain's limits, read from this unit's store. */
  readonly counters: (query: URLSearchParams) => Promise<CountersPage>;
  /** Gauges for /stats and statsd (the local cache's). */
  gauges(): Iterable<[string, number]>;
  /** What the instance's /stats and /metrics sum: its stats lines (with `ratelimit.worker.<number>.*` about itself), Redis round trips, response times. */
  report(number: number): UnitReport;
  /** Sets a status its gRPC health service answers (the instance's configuration follower's). */
  setHealth(service: string, status: ServingStatus): void;
  /** Resolves with the first configuration in force, or at once with FORCE_START_WITHOUT_INITIAL_CONFIG. */
  ready(): Promise<void>;
  /** Opens the listeners (once). */
  listen(ports: UnitPorts): Promise<{ grpcPort: number; httpPort: number }>;
}

/** A decision unit's figures, as plain data a thread hands over. */
export interface UnitReport {
  readonly lines: Array<[string, number]>;
  readonly redisRoundTrips: number | undefined;
  readonly responseTimes: ResponseTimes;
}

/** The decision options the settings give (LIMIT_RESPONSE_HEADERS_*, SHADOW_MODE, ...). */
function decisionOptions(settings: RatelimitSettings): DecisionOptions {
  return {
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
  };
}

/** Connects the counter store (waiting for Redis as REDIS_STARTUP_* say) and registers the stats sinks. */
export async function startDecisionUnit(options: {
  settings: RatelimitSettings;
  logger: Logger;
  lifecycle: Lifecycle;
  stats: StatsStore;
}): Promise<DecisionUnit> {
  const { settings, logger, lifecycle, stats } = options;
  const localCache: OverLimitCache | undefined =
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
  const config = createConfigInForce({
    logger,
    onApplied: (loaded) => health.set('config', loaded.domains.length > 0),
  });

  const counters = await connectCounterStore({ settings, logger, lifecycle, health });
  const timing = await startStatsSinks({ settings, logger, lifecycle, stats, gauges });

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
    store: tracing ? tracing.traceStore(counters.store, settings.backendType) : counters.store,
    localCache,
    stats,
    clock: systemClock,
    dynamicMetadata: settings.responseDynamicMetadata,
    // Redis only, as in the reference: memcached's counts are read before its increments anyway.
    stopIncrementWhenOverLimit:
      settings.stopCacheKeyIncrementWhenOverlimit && settings.backendType === 'redis',
    options: decisionOptions(settings),
  });

  return {
    config,
    counters: createCountersView({
      config: config.current,
      reader: counters.reader,
      cacheKeyPrefix: settings.cacheKeyPrefix,
      clock: systemClock,
    }),
    gauges,
    setHealth: (service, status) => grpcHealth.setStatus(service, status),
    report(number) {
      const self = `ratelimit.worker.${number}`;
      return {
        lines: [
          ...statsLines(stats, gauges),
          [`${self}.thread_id`, threadId],
          [`${self}.heap_bytes`, getHeapStatistics().used_heap_size],
          [`${self}.total_requests`, stats.counter(SERVICE_STATS.shouldRateLimitTotal).value],
        ],
        redisRoundTrips: counters.roundTrips(),
        responseTimes: timing.responseTimes.snapshot(),
      };
    },
    async ready() {
      if (settings.forceStartWithoutInitialConfig) return;
      if (config.current() === undefined) logger.info('waiting for the initial configuration');
      await config.first;
    },
    listen: (ports) =>
      openDecisionListeners({
        ports,
        settings,
        logger,
        lifecycle,
        service,
        health,
        grpcHealth,
        timer: createCallTimer('ShouldRateLimit', stats, timing.sinks),
        tracing,
      }),
  };
}
