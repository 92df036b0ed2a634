// The rate limiter's decision path in the test's own process, on a real counter store and a
// simulated clock (the service takes its clock as an argument: no setting, no patched Date), for
// tests of windows and buckets across minutes and hours in milliseconds of real time.
import { createMemcachedCounterStore } from '../../services/ratelimit/adapters/memcached/memcached-store.ts';
import { createRedisCounterStore } from '../../services/ratelimit/adapters/redis/redis-store.ts';
import { loadConfig } from '../../services/ratelimit/config/index.ts';
import type { Decision, DecisionRequest } from '../../services/ratelimit/domain/decision.ts';
import { createStatsStore, type StatsStore } from '../../services/ratelimit/domain/stats.ts';
import type { CounterStore } from '../../services/ratelimit/ports.ts';
import { createRateLimitService } from '../../services/ratelimit/service.ts';
import type { RedisConnectionSettings } from '../../services/ratelimit/settings/redis-connection.ts';
import { memoryLogger } from './memory-logger.ts';

/** 12:00:00 UTC on 2023-11-14: on a second, minute, hour and day boundary. */
export const NOON = 1_699_963_200_000;

export interface InProcessLimiter {
  /** One decision: each descriptor a list of key/value pairs, `hits` the request's hits_addend. */
  ask(descriptors: ReadonlyArray<ReadonlyArray<readonly [string, string]>>, hits?: number): Promise<Decision>;
  /** Sets the simulated clock to `NOON + ms`. */
  at(ms: number): void;
  readonly stats: StatsStore;
}

export function inProcessLimiter(options: {
  store: CounterStore;
  config: string;
  prefix: string;
  stopIncrementWhenOverLimit?: boolean;
}): InProcessLimiter {
  const config = loadConfig([{ name: 'test.yaml', text: options.config }], { mergeDomainConfig: false });
  const stats = createStatsStore();
  let now = NOON;
  const service = createRateLimitService({
    config: () => config,
    store: options.store,
    localCache: undefined,
    stats,
    clock: { now: () => now },
    stopIncrementWhenOverLimit: options.stopIncrementWhenOverLimit ?? false,
    options: {
      cacheKeyPrefix: options.prefix,
      nearLimitRatio: 0.8,
      globalShadowMode: false,
      globalQuotaMode: false,
      headers: { limit: 'RateLimit-Limit', remaining: 'RateLimit-Remaining', reset: 'RateLimit-Reset' },
    },
  });
  return {
    ask(descriptors, hits = 1) {
      const request: DecisionRequest = {
        domain: config.domains[0]!,
        hitsAddend: hits,
        descriptors: descriptors.map((pairs) => ({
          entries: pairs.map(([key, value]) => ({ key, value })),
          hitsAddend: undefined,
        })),
      };
      return service.shouldRateLimit(request);
    },
    at(ms) {
      now = NOON + ms;
    },
    stats,
  };
}

/** REDIS_* of one store, as the settings would give them. */
export function redisSettings(
  overrides: Partial<RedisConnectionSettings> & { url: string },
): RedisConnectionSettings {
  return {
    name: 'redis',
    socketType: 'tcp',
    type: 'single',
    poolSize: 2,
    auth: '',
    sentinelAuth: '',
    tls: false,
    pipelineWindowMs: 0,
    pipelineLimit: 0,
    timeoutMs: 5_000,
    ...overrides,
  };
}

const NO_TLS = { clientCert: '', clientKey: '', caCert: '', skipHostnameVerification: false };

/** The Redis counter store the service would make, ready. */
export async function connectRedisStore(options: {
  main: RedisConnectionSettings;
  perSecond?: RedisConnectionSettings;
  tls?: typeof NO_TLS;
}) {
  const store = createRedisCounterStore({
    main: options.main,
    perSecond: options.perSecond,
    tls: options.tls ?? NO_TLS,
    expirationJitterMaxSeconds: 0,
    logger: memoryLogger('error').logger,
  });
  await store.waitUntilReady({ initialMs: 50, maxMs: 500, maxElapsedMs: 20_000 });
  return store;
}

/** The memcached counter store the service would make. */
export function connectMemcachedStore(hostPort: string) {
  return createMemcachedCounterStore({
    hostPorts: [hostPort],
    srv: '',
    srvRefreshMs: 0,
    maxIdleConns: 2,
    expirationJitterMaxSeconds: 0,
    timeoutMs: 5_000,
    logger: memoryLogger('error').logger,
  });
}
