// Sliding windows, token buckets and several limits on every Redis topology the service supports,
// on servers this test starts (test/helpers/counter-topologies.ts): the per-second store, a
// sentinel set with a failover (a new master that never saw the scripts), a three-master cluster
// with a resharding under a bucket's key, TLS with client certificates and AUTH. The decision
// path runs in this process on a simulated clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SLIDING_WINDOW_SCRIPT,
  TOKEN_BUCKET_SCRIPT,
} from '../../services/ratelimit/adapters/redis/limit-scripts.ts';
import {
  type Certificates,
  type Child,
  makeCertificates,
  type RedisCluster,
  type RedisServer,
  redisCli,
  type SentinelSet,
  startRedis,
  startRedisCluster,
  startSentinelSet,
  startTlsRedis,
} from '../helpers/counter-topologies.ts';
import {
  connectRedisStore,
  type InProcessLimiter,
  inProcessLimiter,
  redisSettings,
} from '../helpers/ratelimit-in-process.ts';
import { random } from '../helpers/ratelimit-server.ts';
import { waitFor } from '../helpers/wait-for.ts';

// A SECOND bucket (the per-second store when there is one), a 10-minute sliding window, a 2-hour fixed window.
const CONFIG = `domain: topo
descriptors:
  - key: mixed
    rate_limits:
      - {unit: second, requests_per_unit: 2, algorithm: token_bucket, burst: 2, name: bucket}
      - {unit: minute, unit_multiplier: 10, requests_per_unit: 4, algorithm: sliding_window, name: sliding}
      - {unit: hour, unit_multiplier: 2, requests_per_unit: 100, name: fixed}
`;

const keysOf = (prefix: string, value: string) => ({
  bucket: `${prefix}topo_mixed_${value}_t1`,
  sliding: `${prefix}topo_mixed_${value}_s600`,
  fixed: `${prefix}topo_mixed_${value}_f7200_1699963200`,
});

type Seen = [string, number, string | undefined];

async function call(limiter: InProcessLimiter, value: string): Promise<Seen> {
  const status = (await limiter.ask([[['mixed', value]]])).statuses[0]!;
  return [status.code, status.limitRemaining, status.currentLimit?.name];
}

/**
 * Two from the full bucket, the third over it (the window and the fixed count it: each limit on its
 * own); half a second later a token is back and the window takes its fourth; then the window is full.
 */
async function scenario(limiter: InProcessLimiter, value: string): Promise<void> {
  limiter.at(0);
  expect([await call(limiter, value), await call(limiter, value), await call(limiter, value)]).toEqual([
    ['OK', 1, 'bucket'],
    ['OK', 0, 'bucket'],
    ['OVER_LIMIT', 0, 'bucket'],
  ]);
  limiter.at(500);
  expect(await call(limiter, value)).toEqual(['OK', 0, 'sliding']);
  limiter.at(1_500);
  expect(await call(limiter, value)).toEqual(['OVER_LIMIT', 0, 'sliding']);
}

describe('limit algorithms on every Redis topology, simulated clock', () => {
  describe('single Redis and the per-second Redis (REDIS_PERSECOND)', () => {
    let main: RedisServer;
    let perSecond: RedisServer;
    beforeAll(async () => {
      [main, perSecond] = [await startRedis(), await startRedis()];
    });
    afterAll(async () => {
      await main?.stop();
      await perSecond?.stop();
    });

    it('keeps the SECOND bucket on the per-second Redis, the window and the fixed count on the main one', async () => {
      const store = await connectRedisStore({
        main: redisSettings({ url: `127.0.0.1:${main.port}` }),
        perSecond: redisSettings({ name: 'redis_per_second', url: `127.0.0.1:${perSecond.port}` }),
      });
      try {
        const prefix = `${random()}:`;
        await scenario(inProcessLimiter({ store, config: CONFIG, prefix }), 'a');
        const keys = keysOf(prefix, 'a');
        expect(await perSecond.cli('EXISTS', keys.bucket)).toBe('1');
        expect(await main.cli('EXISTS', keys.bucket)).toBe('0');
        expect(await main.cli('GET', keys.fixed)).toBe('5');
        // Four hits admitted, all in the first sub-window (12:00:00-12:01:00).
        expect((await main.cli('HGETALL', keys.sliding)).split('\n')).toEqual(['28332720', '4']);
        // Scripts lost (SCRIPT FLUSH, a restart): EVALSHA answers NOSCRIPT, the lean connection sends EVAL.
        await main.cli('SCRIPT', 'FLUSH');
        await perSecond.cli('SCRIPT', 'FLUSH');
        const limiter = inProcessLimiter({ store, config: CONFIG, prefix });
        limiter.at(1_600);
        expect(await call(limiter, 'a')).toEqual(['OVER_LIMIT', 0, 'sliding']);
        expect(await main.cli('SCRIPT', 'EXISTS', SLIDING_WINDOW_SCRIPT.sha)).toBe('1');
        expect(await perSecond.cli('SCRIPT', 'EXISTS', TOKEN_BUCKET_SCRIPT.sha)).toBe('1');
      } finally {
        await store.close();
      }
    });
  });

  describe('Redis sentinel (master, replica, three sentinels)', () => {
    let set: SentinelSet;
    beforeAll(async () => {
      set = await startSentinelSet('rlalgo');
    });
    afterAll(async () => set?.stop());

    it('decides on the master, and after a failover on the new one, with the state it replicated', async () => {
      const store = await connectRedisStore({
        main: redisSettings({
          type: 'sentinel',
          url: `rlalgo,${set.sentinelPorts.map((p) => `127.0.0.1:${p}`).join(',')}`,
          sentinelAuth: set.sentinelPassword,
        }),
      });
      try {
        const prefix = `${random()}:`;
        const limiter = inProcessLimiter({ store, config: CONFIG, prefix });
        await scenario(limiter, 'b');
        await waitFor('the replica to hold the window', async () =>
          (await set.replica.cli('HGETALL', keysOf(prefix, 'b').sliding)).endsWith('4'),
        );
        const newMaster = await set.failover();
        // The new master never ran the scripts: ioredis sends their text on its new connection.
        limiter.at(2_000);
        const after = await waitFor('a decision on the new master', async () => {
          try {
            return await call(limiter, 'b');
          } catch {
            return false;
          }
        });
        expect(after).toEqual(['OVER_LIMIT', 0, 'sliding']);
        limiter.at(660_000); // the 12:00 sub-window has left the 10-minute window
        expect(await call(limiter, 'b')).toEqual(['OK', 1, 'bucket']);
        expect(await redisCli(newMaster, ['HLEN', keysOf(prefix, 'b').sliding])).toBe('1');
      } finally {
        await store.close();
      }
    });
  });

  describe('Redis cluster (three masters)', () => {
    let cluster: RedisCluster;
    beforeAll(async () => {
      cluster = await startRedisCluster();
    });
    afterAll(async () => cluster?.stop());

    it('runs each script on the master of its key’s slot, and follows a resharding of a window', async () => {
      const store = await connectRedisStore({ main: redisSettings({ type: 'cluster', url: cluster.url }) });
      try {
        const prefix = `${random()}:`;
        const limiter = inProcessLimiter({ store, config: CONFIG, prefix });
        const values = Array.from({ length: 6 }, random);
        for (const value of values) await scenario(limiter, value);
        const owners = new Set<number>();
        for (const value of values) {
          const keys = keysOf(prefix, value);
          const owner = await cluster.ownerOf(keys.sliding);
          owners.add(owner.port);
          expect(await owner.cli('HGET', keys.sliding, '28332720')).toBe('4');
        }
        expect(owners.size).toBeGreaterThan(1);
        // The full window of one value moves to another master; the next decision finds it there.
        const value = values[0]!;
        const { to } = await cluster.moveSlotOf(keysOf(prefix, value).sliding);
        expect(await to.cli('HGET', keysOf(prefix, value).sliding, '28332720')).toBe('4');
        limiter.at(1_600);
        expect(await call(limiter, value)).toEqual(['OVER_LIMIT', 0, 'sliding']);
      } finally {
        await store.close();
      }
    });
  });

  describe('Redis over TLS with client certificates and AUTH', () => {
    let certs: Certificates;
    let server: Child;
    const auth = { password: `pw-${random()}`, user: 'ratelimiter', userPassword: `acl-${random()}` };
    beforeAll(async () => {
      certs = await makeCertificates();
      server = await startTlsRedis(certs, auth);
    });
    afterAll(async () => {
      await server?.stop();
      await certs?.cleanup();
    });

    it('decides over TLS as an ACL user', async () => {
      const store = await connectRedisStore({
        main: redisSettings({
          url: `127.0.0.1:${server.port}`,
          tls: true,
          auth: `${auth.user}:${auth.userPassword}`,
        }),
        tls: {
          caCert: certs.ca,
          clientCert: certs.clientCert,
          clientKey: certs.clientKey,
          skipHostnameVerification: false,
        },
      });
      try {
        await scenario(inProcessLimiter({ store, config: CONFIG, prefix: `${random()}:` }), 'c');
      } finally {
        await store.close();
      }
    });
  });
});
