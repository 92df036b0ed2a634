// Sliding windows, token buckets, unit_multiplier and several limits per descriptor on the real
// Redis (lean RESP connection) and memcached, with the decision path in this process on a
// simulated clock: the boundary (N per minute, a burst at 0:59 and another at 1:00), the Lua
// scripts and the cas loop deciding as the domain's arithmetic does, and exactness with several
// instances on one key.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRng } from '../../services/experiment/suggestion/rng.ts';
import { type LimitSpec, loadConfig } from '../../services/ratelimit/config/index.ts';
import type { CounterStore, LimitOperation, LimitReply } from '../../services/ratelimit/ports.ts';
import { createMemoryCounterStore } from '../helpers/memory-counter-store.ts';
import {
  connectMemcachedStore,
  connectRedisStore,
  inProcessLimiter,
  NOON,
  redisSettings,
} from '../helpers/ratelimit-in-process.ts';
import { random } from '../helpers/ratelimit-server.ts';

const N = 120;
const BOUNDARY = `domain: boundary
descriptors:
  - key: fixed
    rate_limit: {unit: minute, requests_per_unit: ${N}}
  - key: sliding
    rate_limit: {unit: minute, requests_per_unit: ${N}, algorithm: sliding_window}
  - key: bucket
    rate_limit: {unit: minute, requests_per_unit: ${N}, algorithm: token_bucket, burst: 30}
`;

const SETS = `domain: sets
descriptors:
  - key: user
    rate_limits:
      - {unit: second, requests_per_unit: 3, name: burst}
      - {unit: minute, unit_multiplier: 5, requests_per_unit: 10, algorithm: sliding_window, name: five-minutes}
      - {unit: hour, requests_per_unit: 60, algorithm: token_bucket, burst: 4, name: hourly}
  - key: window
    rate_limit: {unit: minute, unit_multiplier: 2, requests_per_unit: 2}
`;

/** The specs of one descriptor of a configuration. */
function specsOf(text: string, key: string): readonly LimitSpec[] {
  const config = loadConfig([{ name: 'specs.yaml', text }], { mergeDomainConfig: false });
  const lookup = config.getLimit(config.domains[0]!, { entries: [{ key, value: 'x' }] });
  if (lookup.kind !== 'limit' || lookup.rule.limits === undefined) throw new Error(`no limits on ${key}`);
  return lookup.rule.limits;
}

/** A reply with a sliding window's sub-windows in order (Redis's HGETALL order is its own). */
const sorted = (reply: LimitReply): LimitReply => {
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < reply.before.length; i += 2) pairs.push([reply.before[i]!, reply.before[i + 1]!]);
  const isBucket = reply.before.length === 2 && reply.before[0]! > 1e12;
  return isBucket ? reply : { ...reply, before: pairs.sort((a, b) => a[0] - b[0]).flat() };
};

interface StoreCase {
  readonly name: string;
  /** memcached counts fixed windows after answering: a burst on them is sent one call at a time. */
  readonly fixedConcurrent: boolean;
  connect(): Promise<CounterStore>;
}

describe.each<StoreCase>([
  {
    name: 'Redis',
    fixedConcurrent: true,
    connect: () => connectRedisStore({ main: redisSettings({ url: inject('infra').REDIS_URL }) }),
  },
  {
    name: 'memcached',
    fixedConcurrent: false,
    connect: () => connectMemcachedStore(inject('infra').MEMCACHE_HOST_PORT),
  },
])('limit algorithms on $name, simulated clock', (storeCase) => {
  const stores: CounterStore[] = [];
  const connect = async (): Promise<CounterStore> => {
    const store = await storeCase.connect();
    stores.push(store);
    return store;
  };
  afterAll(async () => {
    for (const store of stores) await store.close();
  });

  it('the boundary: fixed lets 2N through, sliding at most N(1+ε), the bucket burst + rate × elapsed', async () => {
    const limiter = inProcessLimiter({ store: await connect(), config: BOUNDARY, prefix: `${random()}:` });
    const burst = async (key: string, calls: number, concurrent: boolean): Promise<number> => {
      const one = async () => (await limiter.ask([[[key, 'x']]])).overallCode === 'OK';
      let admitted = 0;
      if (concurrent)
        for (const ok of await Promise.all(Array.from({ length: calls }, one))) admitted += ok ? 1 : 0;
      else for (let i = 0; i < calls; i++) admitted += (await one()) ? 1 : 0;
      return admitted;
    };
    const admitted: Record<string, [number, number]> = {};
    for (const key of ['fixed', 'sliding', 'bucket']) {
      const concurrent = key !== 'fixed' || storeCase.fixedConcurrent;
      limiter.at(59_000);
      const first = await burst(key, 2 * N, concurrent);
      limiter.at(60_000);
      admitted[key] = [first, await burst(key, 2 * N, concurrent)];
    }
    expect(admitted.fixed).toEqual([N, N]);
    // sliding_window's ε is 0 (≤ 0.1 asked): the 0:54 sub-window still counts at 1:00.
    expect(admitted.sliding![0] + admitted.sliding![1]).toBeLessThanOrEqual(N * 1.1);
    expect(admitted.sliding).toEqual([N, 0]);
    // 30 at once, then 1 s of 2 a second.
    expect(admitted.bucket).toEqual([30, 2]);
  });

  it('each operation decides and counts as the domain arithmetic does (scripts / cas = reference)', async () => {
    const store = await connect();
    const reference = createMemoryCounterStore();
    const rng = createRng(11);
    const [sliding] = specsOf(
      'domain: c\ndescriptors:\n  - key: k\n    rate_limit: {unit: minute, requests_per_unit: 9, algorithm: sliding_window}\n',
      'k',
    );
    const [bucket] = specsOf(
      'domain: c\ndescriptors:\n  - key: k\n    rate_limit: {unit: minute, requests_per_unit: 7, algorithm: token_bucket, burst: 4}\n',
      'k',
    );
    const keys = { sliding: `${random()}:s`, bucket: `${random()}:t` };
    let now = NOON;
    for (let i = 0; i < 300; i++) {
      // Mostly forward in small steps, sometimes a long gap, sometimes a clock 2 s behind.
      const step = rng.next();
      now += step < 0.5 ? 0 : step < 0.9 ? rng.int(3_000) : step < 0.95 ? rng.int(120_000) : -2_000;
      const operations: LimitOperation[] = [sliding!, bucket!].map((spec) => ({
        key: spec.algorithm === 'sliding_window' ? keys.sliding : keys.bucket,
        spec,
        addend: rng.next() < 0.1 ? 0 : 1 + rng.int(3),
        consume: rng.next() > 0.1,
        nowMs: now,
        perSecond: false,
      }));
      const [ours, expected] = await Promise.all([store.take!(operations), reference.take(operations)]);
      expect(ours.map(sorted), `operation ${i} at +${now - NOON} ms`).toEqual(expected.map(sorted));
    }
  });

  it('two instances on one key admit exactly: N in a window, burst from a full bucket', async () => {
    const instances = [await connect(), await connect()];
    const [sliding] = specsOf(
      'domain: c\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 50, algorithm: sliding_window}\n',
      'k',
    );
    const [bucket] = specsOf(
      'domain: c\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 1, algorithm: token_bucket, burst: 40}\n',
      'k',
    );
    for (const [spec, expected] of [
      [sliding!, 50],
      [bucket!, 40],
    ] as const) {
      const key = `${random()}:race`;
      const replies = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          instances[i % 2]!.take!([{ key, spec, addend: 1, consume: true, nowMs: NOON, perSecond: false }]),
        ),
      );
      expect(replies.filter(([reply]) => reply!.admitted).length).toBe(expected);
    }
  });

  it('several limits with multipliers: over when any is, each kept under its own key', async () => {
    const limiter = inProcessLimiter({ store: await connect(), config: SETS, prefix: `${random()}:` });
    const call = async () => {
      const reply = await limiter.ask([[['user', 'ann']]]);
      const status = reply.statuses[0]!;
      return [status.code, status.limitRemaining, status.currentLimit?.name];
    };
    limiter.at(0);
    // The bucket (burst 4) is the closest from the second call on; the fourth is over the second's 3.
    expect([await call(), await call(), await call(), await call()]).toEqual([
      ['OK', 2, 'burst'],
      ['OK', 1, 'burst'],
      ['OK', 0, 'burst'],
      ['OVER_LIMIT', 0, 'burst'],
    ]);
    limiter.at(1_000);
    // The bucket admitted the fourth call (each limit counts on its own): none left until 1:00.
    expect(await call()).toEqual(['OVER_LIMIT', 0, 'hourly']);
    limiter.at(60_000);
    expect(await call()).toEqual(['OK', 0, 'hourly']);
    // 2-minute fixed windows aligned on the epoch: 12:00-12:02, then a fresh one.
    const window = async () => (await limiter.ask([[['window', 'w']]])).statuses[0]!;
    limiter.at(119_000);
    expect([(await window()).code, (await window()).code, (await window()).code]).toEqual([
      'OK',
      'OK',
      'OVER_LIMIT',
    ]);
    limiter.at(120_000);
    expect(await window()).toMatchObject({ code: 'OK', limitRemaining: 1, secondsUntilReset: 120 });
  });
});
