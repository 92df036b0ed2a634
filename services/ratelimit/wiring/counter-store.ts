// The counter store BACKEND_TYPE names: Redis (connected and answering before the unit serves, as
// REDIS_STARTUP_* say; health's `redis` component follows it when asked to) or memcached.
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import { createMemcachedCounterReader } from '../adapters/memcached/counter-reader.ts';
import { createMemcachedCounterStore } from '../adapters/memcached/memcached-store.ts';
import { createRedisCounterReader } from '../adapters/redis/counter-reader.ts';
import { createRedisCounterStore } from '../adapters/redis/redis-store.ts';
import type { HealthState } from '../adapters/telemetry/health.ts';
import type { CounterReader, CounterStore } from '../ports.ts';
import type { RatelimitSettings } from '../settings/index.ts';
import { redisConnection } from '../settings/redis-connection.ts';

export async function connectCounterStore(options: {
  settings: RatelimitSettings;
  logger: Logger;
  lifecycle: Lifecycle;
  health: HealthState;
}): Promise<{ store: CounterStore; roundTrips: () => number | undefined; reader: CounterReader }> {
  const { settings, logger, lifecycle, health } = options;
  if (settings.backendType === 'memcache') {
    const store = await createMemcachedCounterStore({
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
    lifecycle.onStop('counter store', () => store.close());
    return { store, roundTrips: () => undefined, reader: createMemcachedCounterReader(store) };
  }
  const main = redisConnection(settings, false);
  const perSecond = settings.redisPerSecond ? redisConnection(settings, true) : undefined;
  const tls = {
    clientCert: settings.redisTlsClientCert,
    clientKey: settings.redisTlsClientKey,
    caCert: settings.redisTlsCaCert,
    skipHostnameVerification: settings.redisTlsSkipHostnameVerification,
  };
  // Its clients are made on the first GET /counters (debug port), and only then.
  const reader = createRedisCounterReader({ main, perSecond, tls });
  lifecycle.onStop('counter reader', () => reader.close());
  const redis = createRedisCounterStore({
    main,
    perSecond,
    tls,
    expirationJitterMaxSeconds: settings.expirationJitterMaxSeconds,
    logger,
    onConnectionChange: (up) => {
      if (settings.redisHealthCheckActiveConnection) health.set('redis', up);
    },
  });
  lifecycle.onStop('counter store', () => redis.close());
  await redis.waitUntilReady({
    initialMs: settings.redisStartupInitialIntervalMs,
    maxMs: settings.redisStartupMaxIntervalMs,
    maxElapsedMs: settings.redisStartupMaxElapsedTimeMs,
  });
  health.set('redis', true);
  return { store: redis, roundTrips: () => redis.roundTrips(), reader };
}
