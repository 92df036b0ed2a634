// The decision path with unit_multiplier, sliding windows, token buckets and several limits per
// descriptor, on a simulated clock against an in-memory store: statuses, headers, stats, cache keys,
// replaces, shadow and quota mode, the local cache and STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../services/ratelimit/config/index.ts';
import type { Decision, DecisionRequest } from '../../../services/ratelimit/domain/decision.ts';
import { createOverLimitCache, type OverLimitCache } from '../../../services/ratelimit/domain/local-cache.ts';
import { createStatsStore, type StatsStore } from '../../../services/ratelimit/domain/stats.ts';
import type { CounterStore } from '../../../services/ratelimit/ports.ts';
import { createRateLimitService } from '../../../services/ratelimit/service.ts';
import { createMemoryCounterStore } from '../../helpers/memory-counter-store.ts';

/** 12:00:00 UTC: on a minute, five-minute and hour boundary. */
const T0 = 1_699_963_200_000;

const CONFIG = `domain: d
descriptors:
  - key: five
    rate_limit: {unit: minute, unit_multiplier: 5, requests_per_unit: 3}
  - key: two
    rate_limits:
      - {unit: second, requests_per_unit: 2, name: per-second}
      - {unit: minute, requests_per_unit: 5, algorithm: sliding_window, name: per-minute}
  - key: bucket
    rate_limit: {unit: minute, requests_per_unit: 60, algorithm: token_bucket, burst: 3}
  - key: replacer
    rate_limit: {unit: hour, requests_per_unit: 100, replaces: [{name: per-minute}]}
  - key: shadow
    shadow_mode: true
    rate_limit: {unit: minute, requests_per_unit: 1, algorithm: sliding_window}
  - key: quota
    quota_mode: true
    rate_limit: {unit: minute, requests_per_unit: 1, algorithm: token_bucket}
  - key: plain
    rate_limit: {unit: hour, requests_per_unit: 1}
`;

function setup(options: { localCache?: OverLimitCache; stop?: boolean; store?: CounterStore } = {}) {
  const config = loadConfig([{ name: 'sets.yaml', text: CONFIG }], { mergeDomainConfig: false });
  const memory = createMemoryCounterStore();
  const stats: StatsStore = createStatsStore();
  let now = T0;
  const service = createRateLimitService({
    config: () => config,
    store: options.store ?? memory,
    localCache: options.localCache,
    stats,
    clock: { now: () => now },
    stopIncrementWhenOverLimit: options.stop ?? false,
    options: {
      cacheKeyPrefix: 'p:',
      nearLimitRatio: 0.8,
      globalShadowMode: false,
      globalQuotaMode: false,
      headers: { limit: 'RateLimit-Limit', remaining: 'RateLimit-Remaining', reset: 'RateLimit-Reset' },
    },
  });
  const ask = (...descriptors: Array<[string, string]>): Promise<Decision> => {
    const request: DecisionRequest = {
      domain: 'd',
      hitsAddend: 1,
      descriptors: descriptors.map(([key, value]) => ({ entries: [{ key, value }], hitsAddend: undefined })),
    };
    return service.shouldRateLimit(request);
  };
  const stat = (name: string) => stats.counter(`ratelimit.service.rate_limit.d.${name}`).value;
  return { ask, memory, stat, at: (ms: number) => (now = T0 + ms) };
}

const summary = (decision: Decision) =>
  decision.statuses.map((s) => [s.code, s.limitRemaining, s.secondsUntilReset, s.currentLimit?.name]);

describe('limit sets through the decision path', () => {
  it('counts a window of unit × unit_multiplier aligned on the epoch, under its own cache key', async () => {
    const { ask, at, memory } = setup();
    at(299_000);
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(summary(await ask(['five', 'x']))[0]);
    expect(seen).toEqual([
      ['OK', 2, 1, ''],
      ['OK', 1, 1, ''],
      ['OK', 0, 1, ''],
      ['OVER_LIMIT', 0, 1, ''],
    ]);
    expect([...memory.counters.keys()]).toEqual([`p:d_five_x_f300_${T0 / 1000}`]);
    at(300_000);
    expect(summary(await ask(['five', 'x']))[0]).toEqual(['OK', 2, 300, '']);
  });

  it('is over when any limit is, and reports the limit closest to its own', async () => {
    const { ask, at } = setup();
    at(10_000);
    expect(summary(await ask(['two', 'x']))).toEqual([['OK', 1, 1, 'per-second']]);
    const second = await ask(['two', 'x']);
    expect(summary(second)).toEqual([['OK', 0, 1, 'per-second']]);
    expect(second.headers).toEqual([
      { key: 'RateLimit-Limit', value: '2' },
      { key: 'RateLimit-Remaining', value: '0' },
      { key: 'RateLimit-Reset', value: '1' },
    ]);
    expect(second.overallCode).toBe('OK');
    expect(summary(await ask(['two', 'x']))).toEqual([['OVER_LIMIT', 0, 1, 'per-second']]);
    // The next second: the per-second limit is back. Each limit counts on its own, as separate
    // descriptors do: the sliding minute admitted the third call (the per-second limit refused it),
    // so both have 1 left; the tie goes to the one that waits longer.
    at(11_000);
    expect(summary(await ask(['two', 'x']))).toEqual([['OK', 1, 61, 'per-minute']]);
    expect(summary(await ask(['two', 'x']))).toEqual([['OK', 0, 61, 'per-minute']]);
    // 12 s: the second is fresh, the minute full until the 0:06-0:12 sub-window leaves at 1:12.
    at(12_000);
    expect(summary(await ask(['two', 'x']))).toEqual([['OVER_LIMIT', 0, 60, 'per-minute']]);
  });

  it('token bucket: the burst at once, then the rate, with the wait in the reset', async () => {
    const { ask, at } = setup();
    at(59_000);
    const burst = [];
    for (let i = 0; i < 4; i++) burst.push(summary(await ask(['bucket', 'x']))[0]);
    expect(burst).toEqual([
      ['OK', 2, 1, ''],
      ['OK', 1, 2, ''],
      ['OK', 0, 3, ''],
      ['OVER_LIMIT', 0, 1, ''],
    ]);
    at(60_000); // a token a second
    expect(summary(await ask(['bucket', 'x']))[0]).toEqual(['OK', 0, 3, '']);
    expect(summary(await ask(['bucket', 'x']))[0]).toEqual(['OVER_LIMIT', 0, 1, '']);
  });

  it('a replaces names one limit of a set: the others stay', async () => {
    const { ask, at, memory } = setup();
    at(20_000);
    const reply = await ask(['two', 'x'], ['replacer', 'y']);
    expect(summary(reply)).toEqual([
      ['OK', 1, 1, 'per-second'],
      ['OK', 99, 3_580, ''],
    ]);
    expect(memory.takes).toEqual([]);
  });

  it('counts the stats of a descriptor once, from the limit it reports', async () => {
    const { ask, at, stat } = setup();
    at(30_000);
    for (let i = 0; i < 3; i++) await ask(['two', 'x']);
    expect([stat('two.total_hits'), stat('two.within_limit'), stat('two.over_limit')]).toEqual([3, 2, 1]);
    expect(stat('two.near_limit')).toBe(1);
  });

  it('shadow mode answers OK and counts it; quota mode is over only when every quota descriptor is', async () => {
    const { ask, at, stat } = setup();
    at(40_000);
    await ask(['shadow', 'x']);
    const shadowed = await ask(['shadow', 'x']);
    expect(shadowed.overallCode).toBe('OK');
    expect(stat('shadow.shadow_mode')).toBe(1);
    await ask(['quota', 'x']);
    expect((await ask(['quota', 'x'])).overallCode).toBe('OVER_LIMIT');
  });

  it('keeps the reference descriptors of a mixed request as they were', async () => {
    const { ask, at, memory } = setup();
    at(50_000);
    const reply = await ask(['plain', 'x'], ['five', 'x']);
    expect(summary(reply)).toEqual([
      ['OK', 0, 3_550, ''],
      ['OK', 2, 250, ''],
    ]);
    expect(memory.increments).toEqual([
      [
        { key: `p:d_plain_x_${T0 / 1000}`, addend: 1, windowSeconds: 3600, perSecond: false },
        { key: `p:d_five_x_f300_${T0 / 1000}`, addend: 1, windowSeconds: 300, perSecond: false },
      ],
    ]);
  });

  it('the local cache answers for a window or bucket until one hit would be admitted again', async () => {
    const cache = createOverLimitCache(10_000);
    const { ask, at, memory, stat } = setup({ localCache: cache });
    at(0);
    for (let i = 0; i < 4; i++) await ask(['bucket', 'x']);
    // The third call emptied the bucket: the fourth, and one half a second later, never reach the store.
    expect(memory.takes.length).toBe(3);
    at(500);
    expect(summary(await ask(['bucket', 'x']))[0]).toEqual(['OVER_LIMIT', 0, 1, '']);
    expect(memory.takes.length).toBe(3);
    expect(stat('bucket.over_limit_with_local_cache')).toBe(2);
    at(1_000);
    expect(summary(await ask(['bucket', 'x']))[0]).toEqual(['OK', 0, 3, '']);
  });

  it('STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: a request another limit refuses takes no token', async () => {
    const { ask, at, memory } = setup({ stop: true });
    at(0);
    await ask(['plain', 'x']);
    for (let i = 0; i < 2; i++) {
      const reply = await ask(['bucket', 'x'], ['plain', 'x']);
      // Only read: the bucket answers what it holds (as a counter only read does).
      expect(summary(reply)).toEqual([
        ['OK', 3, 1, ''],
        ['OVER_LIMIT', 0, 3_600, ''],
      ]);
    }
    expect(memory.values.has('p:d_bucket_x_t60')).toBe(false);
    expect(summary(await ask(['bucket', 'x']))[0]).toEqual(['OK', 2, 1, '']);
  });

  it('refuses to decide a limit set with a store that keeps only fixed windows', async () => {
    const memory = createMemoryCounterStore();
    const { ask } = setup({
      store: { increment: memory.increment, healthy: () => true, close: async () => {} },
    });
    await expect(ask(['bucket', 'x'])).rejects.toThrow(
      'this counter store keeps no sliding windows or token buckets',
    );
  });
});
