// The rate limiter losing its single Redis under a decision loop, as a scenario that returns what
// happened: `test/integration/ratelimit-topologies.test.ts` asserts the behaviour, `bench/faults.ts`
// prints the figures beside their goals.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceError } from '@grpc/grpc-js';
import { type RedisServer, startRedis } from '../counter-topologies.ts';
import { descriptors, type RatelimitServer, random, startRatelimitServer } from '../ratelimit-server.ts';

export const HOUR_CONFIG = `domain: topo
descriptors:
  - key: hour
    rate_limit:
      unit: hour
      requests_per_unit: 100000000
`;

export interface DecisionLoop {
  readonly okTimes: number[];
  readonly errors: Array<{ at: number; message: string }>;
  /** Resolves once `predicate` holds of the loop so far, or false after `ceilingMs`. */
  until(predicate: () => boolean, ceilingMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

/** Decides on `hour` keys of domain `topo` as fast as one caller can, until stopped. */
export function decisionLoop(server: RatelimitServer): DecisionLoop {
  let stopped = false;
  const okTimes: number[] = [];
  const errors: Array<{ at: number; message: string }> = [];
  const loop = (async () => {
    while (!stopped) {
      try {
        await server.shouldRateLimit({
          domain: 'topo',
          descriptors: descriptors({ hour: random() }) as never,
        });
        okTimes.push(performance.now());
      } catch (error) {
        errors.push({ at: performance.now(), message: (error as ServiceError).details });
        await sleep(1);
      }
    }
  })();
  return {
    okTimes,
    errors,
    async until(predicate, ceilingMs) {
      const ceiling = performance.now() + ceilingMs;
      while (!predicate()) {
        if (performance.now() > ceiling) return false;
        await sleep(20);
      }
      return true;
    },
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

export interface RedisStopped {
  /** Errors answered while Redis was down (failing fast: many). */
  readonly errorsWhileDown: number;
  /** ms from Redis answering again to the first OK decision (NaN past the ceiling). */
  readonly firstOkMs: number;
  /** Decisions made, and errors met, after that first OK. */
  readonly okAfterFirstOk: number;
  readonly errorsAfterFirstOk: ReadonlyArray<{ at: number; message: string }>;
}

/**
 * A rate limiter on a Redis of its own, deciding in a loop; Redis stopped for `downMs`, started
 * again on the same port, and the loop kept going until its first OK and `afterMs` more.
 */
export async function stopRedisUnderDecisions(
  configEnv: Record<string, string>,
  options: { downMs?: number; afterMs?: number; recoveryCeilingMs?: number } = {},
): Promise<RedisStopped> {
  const redis = await startRedis();
  const port = redis.port;
  const server = await startRatelimitServer({
    ...configEnv,
    REDIS_URL: `127.0.0.1:${port}`,
    REDIS_POOL_SIZE: '10',
    CACHE_KEY_PREFIX: `outage-${random()}:`,
  });
  let again: RedisServer | undefined;
  try {
    const loop = decisionLoop(server);
    await sleep(500);
    const down = performance.now();
    await redis.stop();
    await sleep(options.downMs ?? 6_000);
    again = await startRedis([], port);
    const up = performance.now();
    const cameBack = await loop.until(
      () => loop.okTimes.some((t) => t > up),
      options.recoveryCeilingMs ?? 60_000,
    );
    if (cameBack) await sleep(options.afterMs ?? 2_000);
    await loop.stop();
    const firstOk = loop.okTimes.find((t) => t > up);
    return {
      errorsWhileDown: loop.errors.filter((e) => e.at > down && e.at < up).length,
      firstOkMs: firstOk === undefined ? Number.NaN : firstOk - up,
      okAfterFirstOk: firstOk === undefined ? 0 : loop.okTimes.filter((t) => t > firstOk).length,
      errorsAfterFirstOk: firstOk === undefined ? [] : loop.errors.filter((e) => e.at > firstOk),
    };
  } finally {
    await server.stop();
    await again?.stop();
  }
}
