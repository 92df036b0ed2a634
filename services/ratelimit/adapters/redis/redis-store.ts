// The Redis counter store: per decision, INCRBY + EXPIRE of every key in one pipelined round trip
// per store (the per-second store for SECOND limits when REDIS_PERSECOND is on; each store a pool,
// ./connection-pool.ts), a script per sliding window or token bucket (./limit-scripts.ts), and the
// wait for Redis at start-up.
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../../../../shared/errors.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { CounterStore } from '../../ports.ts';
import type { RedisConnectionSettings } from '../../settings/redis-connection.ts';
import { createConnectionPool, type Pool } from './connection-pool.ts';
import { describeConnection, type RedisTlsFiles } from './redis-client.ts';

export interface RedisStoreOptions {
  readonly main: RedisConnectionSettings;
  /** The store of SECOND limits; undefined keeps them in the main store. */
  readonly perSecond: RedisConnectionSettings | undefined;
  readonly tls: RedisTlsFiles;
  readonly expirationJitterMaxSeconds: number;
  /** A number in [0, 1): the jitter source, injectable for tests. */
  readonly random?: () => number;
  readonly logger: Logger;
  /** Connection up/down, for REDIS_HEALTH_CHECK_ACTIVE_CONNECTION. */
  readonly onConnectionChange?: (healthy: boolean) => void;
}

export interface RedisCounterStore extends CounterStore {
  /** PING every connection until all answer, with backoff (REDIS_STARTUP_*); 0 elapsed = forever. */
  waitUntilReady(backoff: { initialMs: number; maxMs: number; maxElapsedMs: number }): Promise<void>;
  /** Pipelines sent so far (each is one round trip). */
  roundTrips(): number;
}

export function createRedisCounterStore(options: RedisStoreOptions): RedisCounterStore {
  const { logger, expirationJitterMaxSeconds } = options;
  const random = options.random ?? Math.random;
  let roundTrips = 0;
  let lastHealthy: boolean | undefined;
  const stops: Array<() => void> = [];

  const expiry = (windowSeconds: number): number =>
    windowSeconds + Math.floor(random() * expirationJitterMaxSeconds);

  const reportHealth = (): void => {
    const healthy = pools.every((pool) => pool.connections.some((c) => c.ready));
    if (healthy !== lastHealthy) {
      lastHealthy = healthy;
      options.onConnectionChange?.(healthy);
    }
  };

  const createPool = (connection: RedisConnectionSettings): Pool => {
    const pool = createConnectionPool({
      connection,
      tls: options.tls,
      expiry,
      logger,
      onReadyOrClose: () => reportHealth(),
      onRoundTrip: () => roundTrips++,
    });
    stops.push(pool.stop);
    return pool;
  };

  const main = createPool(options.main);
  const perSecond = options.perSecond === undefined ? undefined : createPool(options.perSecond);
  const pools = perSecond === undefined ? [main] : [main, perSecond];

  return {
    async increment(items) {
      if (perSecond === undefined || !items.some((i) => i.perSecond)) return main.send(items);
      const mainItems = items.filter((i) => !i.perSecond);
      const secondItems = items.filter((i) => i.perSecond);
      const [mainCounts, secondCounts] = await Promise.all([
        mainItems.length > 0 ? main.send(mainItems) : [],
        perSecond.send(secondItems),
      ]);
      let m = 0;
      let s = 0;
      return items.map((i) => (i.perSecond ? secondCounts[s++]! : mainCounts[m++]!));
    },
    async take(operations) {
      if (perSecond === undefined || !operations.some((o) => o.perSecond)) return main.take(operations);
      const mainOperations = operations.filter((o) => !o.perSecond);
      const secondOperations = operations.filter((o) => o.perSecond);
      const [mainReplies, secondReplies] = await Promise.all([
        mainOperations.length > 0 ? main.take(mainOperations) : [],
        perSecond.take(secondOperations),
      ]);
      let m = 0;
      let s = 0;
      return operations.map((o) => (o.perSecond ? secondReplies[s++]! : mainReplies[m++]!));
    },
    healthy: () => pools.every((pool) => pool.connections.some((c) => c.ready)),
    roundTrips: () => roundTrips,
    async waitUntilReady(backoff) {
      const started = Date.now();
      let delay = backoff.initialMs;
      for (const pool of pools) {
        for (const c of pool.connections) {
          for (;;) {
            try {
              if (!c.ready) await c.whenReady(pool.connection.timeoutMs);
              const pong = await c.ping();
              if (pong === 'PONG') break;
              throw new Error(`PING answered ${pong}`);
            } catch (error) {
              const where = describeConnection(pool.connection);
              const fatal = refusalAmong([error, ...pool.errorsSinceReady()]);
              if (fatal !== undefined)
                throw new AppError('UNAVAILABLE', `cannot use Redis at ${where}: ${fatal}`, { cause: error });
              if (backoff.maxElapsedMs > 0 && Date.now() - started >= backoff.maxElapsedMs)
                throw new AppError(
                  'UNAVAILABLE',
                  `cannot reach Redis at ${where} within ${backoff.maxElapsedMs} ms (REDIS_STARTUP_MAX_ELAPSED_TIME): ${(error as Error).message}`,
                  { cause: error },
                );
              logger.warn({ where, err: error, retryInMs: delay }, 'waiting for redis');
              await sleep(delay);
              delay = Math.min(delay * 2, backoff.maxMs);
            }
          }
        }
      }
      reportHealth();
    },
    async close() {
      for (const stop of stops) stop();
      await Promise.all(pools.flatMap((pool) => pool.connections.map((c) => c.close())));
    },
  };
}

/**
 * The first of `errors` no waiting can cure. The start-up passes the failed command's error and the
 * connection's own errors since it was last ready: a refused client certificate may reach the
 * command only as ECONNRESET, while the connection saw the server's TLS alert.
 */
export function refusalAmong(errors: readonly unknown[]): string | undefined {
  for (const error of errors) {
    const refusal = misconfiguration(error);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}

const TLS_REFUSALS = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ALTNAME|ERR_SSL|ERR_TLS/;

/**
 * Errors no waiting can cure (a wrong password, a server certificate the CA does not vouch for, a
 * client certificate the server refuses): what went wrong, to stop the start-up at once.
 */
export function misconfiguration(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const message = error.message;
  if (/^(WRONGPASS|NOAUTH|NOPERM)|invalid password|AUTH.*without any password/i.test(message))
    return `authentication refused (check REDIS_AUTH / REDIS_PERSECOND_AUTH): ${message}`;
  if (TLS_REFUSALS.test(code) || /certificate|alert|handshake/i.test(message))
    return `TLS refused (check REDIS_TLS_CACERT, REDIS_TLS_CLIENT_CERT, REDIS_TLS_CLIENT_KEY): ${code ? `${code} ` : ''}${message}`;
  return undefined;
}
