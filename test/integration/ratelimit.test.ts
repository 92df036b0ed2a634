// Reference section 6.1's scenarios (envoyproxy/ratelimit test/integration), over gRPC and /json,
// against the real Redis (with and without the per-second Redis and the local cache) and memcached.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RedisServer, startRedis } from '../helpers/counter-topologies.ts';
import { createRuntimeFolder, type RuntimeFolder } from '../helpers/ratelimit-runtime.ts';
import {
  awayFromMinuteEdge,
  descriptors,
  type RatelimitServer,
  random,
  startRatelimitServer,
} from '../helpers/ratelimit-server.ts';

interface Status {
  code: string;
  limit?: { requestsPerUnit: number; unit: string };
  remaining: number;
  resetSeconds?: number;
}
interface Answer {
  overallCode: string;
  statuses: Status[];
}
type Call = (domain: string, list: ReturnType<typeof descriptors>) => Promise<Answer>;

function transports(server: () => RatelimitServer): Record<'gRPC' | '/json', Call> {
  return {
    gRPC: async (domain, list) => {
      const reply = await server().shouldRateLimit({ domain, descriptors: list as never });
      return {
        overallCode: reply.overall_code,
        statuses: reply.statuses.map((s) => ({
          code: s.code,
          ...(s.current_limit
            ? { limit: { requestsPerUnit: s.current_limit.requests_per_unit, unit: s.current_limit.unit } }
            : {}),
          remaining: s.limit_remaining,
          ...(s.duration_until_reset ? { resetSeconds: Number(s.duration_until_reset.seconds) } : {}),
        })),
      };
    },
    '/json': async (domain, list) => {
      const res = await server().json({ domain, descriptors: list });
      const body = JSON.parse(res.body) as {
        overallCode: string;
        statuses?: Array<{
          code: string;
          currentLimit?: { requestsPerUnit?: number; unit: string };
          limitRemaining?: number;
          durationUntilReset?: string;
        }>;
      };
      expect(res.status).toBe(body.overallCode === 'OVER_LIMIT' ? 429 : 200);
      return {
        overallCode: body.overallCode,
        statuses: (body.statuses ?? []).map((s) => ({
          code: s.code,
          ...(s.currentLimit
            ? { limit: { requestsPerUnit: s.currentLimit.requestsPerUnit ?? 0, unit: s.currentLimit.unit } }
            : {}),
          remaining: s.limitRemaining ?? 0,
          ...(s.durationUntilReset ? { resetSeconds: Number.parseInt(s.durationUntilReset, 10) } : {}),
        })),
      };
    },
  };
}

interface Variant {
  readonly name: string;
  readonly localCache: boolean;
  /** STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: a limit that refuses does not consume the others. */
  readonly stopIncrement?: boolean;
  readonly settings: (
    infra: ReturnType<typeof inject<'infra'>>,
    perSecondPort: number,
  ) => Record<string, string>;
}

const VARIANTS: Variant[] = [
  { name: 'Redis', localCache: false, settings: () => ({}) },
  {
    name: 'Redis with the per-second Redis, the local cache and a key prefix',
    localCache: true,
    settings: (_infra, perSecondPort) => ({
      REDIS_PERSECOND: 'true',
      REDIS_PERSECOND_SOCKET_TYPE: 'tcp',
      REDIS_PERSECOND_URL: `127.0.0.1:${perSecondPort}`,
      LOCAL_CACHE_SIZE_IN_BYTES: '1000',
    }),
  },
  {
    name: 'Redis with STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT',
    localCache: false,
    stopIncrement: true,
    settings: () => ({ STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: 'true' }),
  },
  {
    name: 'memcached',
    localCache: false,
    settings: (infra) => ({ BACKEND_TYPE: 'memcache', MEMCACHE_HOST_PORT: infra.MEMCACHE_HOST_PORT }),
  },
];

describe.each(VARIANTS)('ratelimit on $name', (variant) => {
  const infra = inject('infra');
  let runtime: RuntimeFolder;
  let server: RatelimitServer;
  let perSecond: RedisServer;
  const local = variant.localCache ? '_local' : '';
  const prefix = `${variant.localCache ? 'prefix' : 'test'}-${random()}:`;

  beforeAll(async () => {
    runtime = await createRuntimeFolder();
    perSecond = await startRedis();
    server = await startRatelimitServer({
      // Counters keyed by a pattern (share_threshold) are shared by every run within the hour:
      // each server counts under a prefix of its own.
      CACHE_KEY_PREFIX: prefix,
      REDIS_URL: infra.REDIS_URL,
      RUNTIME_ROOT: runtime.root,
      RUNTIME_SUBDIRECTORY: runtime.subdirectory,
      ...variant.settings(infra, perSecond.port),
    });
  });
  afterAll(async () => {
    await server?.stop();
    await perSecond?.stop();
    await runtime?.cleanup();
  });

  describe.each(['gRPC', '/json'] as const)('over %s', (transport) => {
    const call = (...args: Parameters<Call>) => transports(() => server)[transport](...args);

    it('answers OK without a limit for an unknown domain', async () => {
      expect(await call('foo', descriptors({ hello: 'world' }))).toEqual({
        overallCode: 'OK',
        statuses: [{ code: 'OK', remaining: 0 }],
      });
    });

    it('counts a 50/second limit and its total_hits', async () => {
      const before = await server.stat(`ratelimit.service.rate_limit.basic.key1${local}.total_hits`);
      const answer = await call('basic', descriptors({ [`key1${local}`]: random() }));
      expect(answer).toEqual({
        overallCode: 'OK',
        statuses: [
          { code: 'OK', limit: { requestsPerUnit: 50, unit: 'SECOND' }, remaining: 49, resetSeconds: 1 },
        ],
      });
      expect(await server.stat(`ratelimit.service.rate_limit.basic.key1${local}.total_hits`)).toBe(
        before + 1,
      );
    });

    it('goes over a 20/minute limit on the 21st hit, and counts over_limit', async () => {
      const value = random();
      const overLimit = `ratelimit.service.rate_limit.another.key2${local}.over_limit`;
      const withLocalCache = `ratelimit.service.rate_limit.another.key2${local}.over_limit_with_local_cache`;
      const [overBefore, localBefore, hitsBefore] = [
        await server.stat(overLimit),
        await server.stat(withLocalCache),
        await server.stat('ratelimit.localcache.hitCount'),
      ];
      await awayFromMinuteEdge(10_000);
      for (let i = 0; i < 25; i++) {
        const answer = await call('another', descriptors({ [`key2${local}`]: value }));
        const over = i >= 20;
        expect(answer.overallCode).toBe(over ? 'OVER_LIMIT' : 'OK');
        expect(answer.statuses[0]).toMatchObject({
          code: over ? 'OVER_LIMIT' : 'OK',
          limit: { requestsPerUnit: 20, unit: 'MINUTE' },
          remaining: over ? 0 : 19 - i,
        });
        if (over) {
          expect(await server.stat(overLimit)).toBe(overBefore + i - 19);
          if (variant.localCache) {
            expect(await server.stat(withLocalCache)).toBe(localBefore + i - 20);
            expect(await server.stat('ratelimit.localcache.hitCount')).toBe(hitsBefore + i - 20);
          }
        }
      }
    });

    it('answers every descriptor and is OVER_LIMIT when one of them is', async () => {
      const value = random();
      await awayFromMinuteEdge(10_000);
      for (let i = 0; i < 15; i++) {
        const answer = await call(
          'another',
          descriptors({ [`key2${local}`]: value }, { [`key3${local}`]: value }),
        );
        expect(answer.statuses[0]).toMatchObject({
          code: 'OK',
          limit: { requestsPerUnit: 20, unit: 'MINUTE' },
          // Over the hourly limit from the 11th call: with the stop, the minute's counter stays.
          remaining: variant.stopIncrement && i >= 10 ? 10 : 19 - i,
        });
        expect(answer.statuses[1]).toMatchObject({
          code: i < 10 ? 'OK' : 'OVER_LIMIT',
          limit: { requestsPerUnit: 10, unit: 'HOUR' },
          remaining: i < 10 ? 9 - i : 0,
        });
        expect(answer.overallCode).toBe(i < 10 ? 'OK' : 'OVER_LIMIT');
      }
    });
  });

  it('shares one counter between the values a share_threshold pattern matches (gRPC and /json)', async () => {
    const { gRPC, '/json': json } = transports(() => server);
    for (let i = 0; i < 10; i++) {
      const answer = await (i % 2 === 0 ? gRPC : json)(
        'share-threshold-test',
        descriptors({ files: 'files/a.pdf' }),
      );
      expect(answer.statuses[0]).toMatchObject({ code: 'OK', remaining: 9 - i });
    }
    for (const call of [gRPC, json]) {
      const other = await call('share-threshold-test', descriptors({ files: 'files/b.csv' }));
      expect(other).toEqual({
        overallCode: 'OVER_LIMIT',
        statuses: [
          {
            code: 'OVER_LIMIT',
            limit: { requestsPerUnit: 10, unit: 'HOUR' },
            remaining: 0,
            resetSeconds: expect.any(Number),
          },
        ],
      });
      for (let i = 0; i < 3; i++) {
        const own = await call(
          'share-threshold-test',
          descriptors({ files_no_share: `files_no_share/${random()}` }),
        );
        expect(own.statuses[0]).toMatchObject({ code: 'OK', remaining: 9 });
      }
    }
  });

  it('answers the seconds left until the DAY window resets (next UTC midnight) as the clock says', async () => {
    // The reference's reset: unit seconds minus now modulo the unit, at the second the call ran.
    const untilReset = (second: number) => 86_400 - (second % 86_400);
    const value = random();
    for (let i = 0; i < 2; i++) {
      const before = Math.floor(Date.now() / 1000);
      const reply = await server.shouldRateLimit({
        domain: 'another',
        descriptors: descriptors({ [`key4${local}`]: value }) as never,
      });
      const after = Math.floor(Date.now() / 1000);
      const possible = Array.from({ length: after - before + 1 }, (_, k) => untilReset(before + k));
      expect(possible).toContain(Number(reply.statuses[0]!.duration_until_reset!.seconds));
    }
  });

  if (variant.localCache) {
    it('keeps SECOND counters in the per-second Redis and the others in the main one, under the prefix', async () => {
      const value = random();
      await server.shouldRateLimit({
        domain: 'basic',
        descriptors: descriptors({ key1_local: value }) as never,
      });
      await server.shouldRateLimit({
        domain: 'another',
        descriptors: descriptors({ key2_local: value }) as never,
      });
      const [host, port] = infra.REDIS_URL.split(':');
      const main = new Redis({ host, port: Number(port), lazyConnect: true });
      const second = new Redis({ host: '127.0.0.1', port: perSecond.port, lazyConnect: true });
      try {
        expect(await second.keys(`${prefix}basic_key1_local_${value}_*`)).toHaveLength(1);
        expect(await main.keys(`${prefix}basic_key1_local_${value}_*`)).toHaveLength(0);
        expect(await main.keys(`${prefix}another_key2_local_${value}_*`)).toHaveLength(1);
        const ttl = await main.ttl((await main.keys(`${prefix}another_key2_local_${value}_*`))[0]!);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(60 + 300);
      } finally {
        main.disconnect();
        second.disconnect();
      }
    });
  }
});
