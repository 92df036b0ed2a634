// The Redis counter store: per decision, INCRBY + EXPIRE of every key in one pipelined round trip
// per store (the per-second store for SECOND limits when REDIS_PERSECOND is on), or, with
// REDIS_PIPELINE_WINDOW, the commands of many decisions in one pipeline (implicit pipelining).
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../../../../shared/errors.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { CounterIncrement, CounterStore } from '../../ports.ts';
import type { RedisConnectionSettings } from '../../settings/redis-connection.ts';
import type { CounterConnection } from './counter-connection.ts';
import { createCounterConnections, describeConnection, type RedisTlsFiles } from './redis-client.ts';

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

const redisError = (message: string, cause?: unknown): AppError =>
  new AppError('UNKNOWN', message, { cause, retriable: true });

/** One pool of connections and its (optional) implicit-pipelining queue. */
interface Pool {
  readonly connection: RedisConnectionSettings;
  readonly connections: CounterConnection[];
  send(items: readonly CounterIncrement[]): Promise<number[]>;
}

export function createRedisCounterStore(options: RedisStoreOptions): RedisCounterStore {
  const { logger, expirationJitterMaxSeconds } = options;
  const random = options.random ?? Math.random;
  let roundTrips = 0;
  let lastHealthy: boolean | undefined;
  const watchdogs: NodeJS.Timeout[] = [];

  const expiry = (windowSeconds: number): number =>
    windowSeconds + Math.floor(random() * expirationJitterMaxSeconds);

  const reportHealth = (): void => {
    const healthy = pools.every((pool) => pool.connections.some((c) => c.ready));
    if (healthy !== lastHealthy) {
      lastHealthy = healthy;
      options.onConnectionChange?.(healthy);
    }
  };

  function createPool(connection: RedisConnectionSettings): Pool {
    const where = describeConnection(connection);
    let lastError = 'no connection yet';
    const connections = createCounterConnections(connection, options.tls, {
      onError(error) {
        if (error.message !== lastError)
          logger.warn({ store: connection.name, where, err: error }, 'redis error');
        lastError = error.message;
      },
      onReady() {
        logger.info({ store: connection.name, where }, 'redis connection ready');
        reportHealth();
      },
      onClose: () => reportHealth(),
    });

    // Every decision of one turn of the event loop goes to the same connection, so that their
    // commands leave in one write; the next turn takes the next connection.
    let next = 0;
    let sticky: CounterConnection | undefined;
    const unstick = (): void => {
      sticky = undefined;
    };
    const pick = (): CounterConnection => {
      if (sticky?.ready) return sticky;
      for (let tried = 0; tried < connections.length; tried++) {
        const candidate = connections[next]!;
        next = (next + 1) % connections.length;
        if (candidate.ready) {
          sticky = candidate;
          setImmediate(unstick);
          return candidate;
        }
      }
      throw redisError(`redis ${connection.name} (${where}) is not connected: ${lastError}`);
    };

    /** One pipeline: INCRBY + EXPIRE per key; cluster pipelines must stay within one key's slot. */
    const exec = async (items: readonly CounterIncrement[]): Promise<number[]> => {
      if (connection.type === 'cluster' && items.length > 1)
        return (await Promise.all(items.map((item) => exec([item])))).flat();
      const target = pick();
      roundTrips++;
      try {
        return await target.increment(items, expiry);
      } catch (error) {
        throw redisError(`redis ${connection.name}: ${(error as Error).message}`, error);
      }
    };

    const watchdog = setInterval(
      () => {
        const now = performance.now();
        for (const c of connections) {
          if (c.stalled(now, connection.timeoutMs)) {
            logger.warn(
              { store: connection.name, where, timeoutMs: connection.timeoutMs },
              'redis did not answer in time; reconnecting',
            );
            lastError = `i/o timeout after ${connection.timeoutMs} ms`;
            c.reset();
          }
        }
      },
      Math.min(100, connection.timeoutMs),
    );
    watchdog.unref();
    watchdogs.push(watchdog);

    const send =
      connection.pipelineWindowMs > 0 || connection.pipelineLimit > 0
        ? createImplicitPipeline(exec, connection.pipelineWindowMs, connection.pipelineLimit)
        : exec;
    return { connection, connections, send };
  }

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
              const fatal = misconfiguration(error);
              if (fatal !== undefined)
                throw new AppError('UNAVAILABLE', `cannot use Redis at ${where}: ${fatal}`, { cause: error });
              if (backoff.maxElapsedMs > 0 && Date.now() - started >= backoff.maxElapsedMs)
                throw new AppError('UNAVAILABLE', `timed out waiting for Redis connection to ${where}`, {
                  cause: error,
                });
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
      for (const watchdog of watchdogs) clearInterval(watchdog);
      await Promise.all(pools.flatMap((pool) => pool.connections.map((c) => c.close())));
    },
  };
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

/**
 * Queues the increments of concurrent decisions and sends them as one pipeline after `windowMs`
 * (below 1 ms: at the end of the current turn of the event loop) or once `limit` commands wait.
 */
export function createImplicitPipeline(
  exec: (items: readonly CounterIncrement[]) => Promise<number[]>,
  windowMs: number,
  limit: number,
): (items: readonly CounterIncrement[]) => Promise<number[]> {
  interface Waiting {
    readonly items: readonly CounterIncrement[];
    readonly resolve: (counts: number[]) => void;
    readonly reject: (error: unknown) => void;
  }
  let queue: Waiting[] = [];
  let queuedCommands = 0;
  let timer: NodeJS.Timeout | NodeJS.Immediate | undefined;

  const flush = (): void => {
    if (timer !== undefined) {
      if (windowMs >= 1) clearTimeout(timer as NodeJS.Timeout);
      else clearImmediate(timer as NodeJS.Immediate);
      timer = undefined;
    }
    const batch = queue;
    queue = [];
    queuedCommands = 0;
    if (batch.length === 0) return;
    const all = batch.length === 1 ? batch[0]!.items : batch.flatMap((w) => w.items);
    exec(all).then(
      (counts) => {
        let at = 0;
        for (const waiting of batch) {
          waiting.resolve(counts.slice(at, at + waiting.items.length));
          at += waiting.items.length;
        }
      },
      (error: unknown) => {
        for (const waiting of batch) waiting.reject(error);
      },
    );
  };

  return (items) =>
    new Promise<number[]>((resolve, reject) => {
      queue.push({ items, resolve, reject });
      queuedCommands += 2 * items.length;
      if (limit > 0 && queuedCommands >= limit) flush();
      else if (timer === undefined) timer = windowMs >= 1 ? setTimeout(flush, windowMs) : setImmediate(flush);
    });
}
