// STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT's decision path against an in-memory counter store (the
// Redis behaviour is in test/integration/ratelimit.test.ts).
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../services/ratelimit/config/index.ts';
import { createOverLimitCache } from '../../../services/ratelimit/domain/local-cache.ts';
import { createStatsStore } from '../../../services/ratelimit/domain/stats.ts';
import type { CounterIncrement, CounterStore } from '../../../services/ratelimit/ports.ts';
import { createRateLimitService } from '../../../services/ratelimit/service.ts';

const config = loadConfig(
  [
    {
      name: 'stop.yaml',
      text: `domain: d
descriptors:
  - key: wide
    rate_limit: { unit: minute, requests_per_unit: 20 }
  - key: narrow
    rate_limit: { unit: hour, requests_per_unit: 2 }
`,
    },
  ],
  { mergeDomainConfig: false },
);

function memoryStore() {
  const counters = new Map<string, number>();
  const calls: Array<Array<[string, number]>> = [];
  const store: CounterStore = {
    async increment(items: readonly CounterIncrement[]) {
      calls.push(items.map((i) => [i.key.split('_')[1]!, i.addend]));
      return items.map((i) => {
        const value = (counters.get(i.key) ?? 0) + i.addend;
        counters.set(i.key, value);
        return value;
      });
    },
    healthy: () => true,
    close: async () => {},
  };
  return { store, calls };
}

const request = {
  domain: 'd',
  hitsAddend: 1,
  descriptors: [
    { entries: [{ key: 'wide', value: 'x' }], hitsAddend: undefined },
    { entries: [{ key: 'narrow', value: 'x' }], hitsAddend: undefined },
  ],
};

const service = (store: CounterStore, localCache = createOverLimitCache(0)) =>
  createRateLimitService({
    config: () => config,
    store,
    localCache,
    stats: createStatsStore(),
    clock: { now: () => 1_700_000_000_000 },
    stopIncrementWhenOverLimit: true,
    options: {
      cacheKeyPrefix: '',
      nearLimitRatio: 0.8,
      globalShadowMode: false,
      globalQuotaMode: false,
      headers: undefined,
    },
  });

describe('STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT', () => {
  it('reads first; adds to every counter while none would go over, then only to the one that would', async () => {
    const { store, calls } = memoryStore();
    const rls = service(store);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await rls.shouldRateLimit(request));
    expect(answers.map((a) => a.statuses.map((s) => [s.code, s.limitRemaining]))).toEqual([
      [
        ['OK', 19],
        ['OK', 1],
      ],
      [
        ['OK', 18],
        ['OK', 0],
      ],
      [
        ['OK', 18],
        ['OVER_LIMIT', 0],
      ],
      [
        ['OK', 18],
        ['OVER_LIMIT', 0],
      ],
    ]);
    // Calls 1-2: a read, then both added; call 3: a read, then only `narrow` added.
    expect(calls.slice(0, 2)).toEqual([
      [
        ['wide', 0],
        ['narrow', 0],
      ],
      [
        ['wide', 1],
        ['narrow', 1],
      ],
    ]);
    expect(calls.slice(4, 6)).toEqual([
      [
        ['wide', 0],
        ['narrow', 0],
      ],
      [
        ['wide', 0],
        ['narrow', 1],
      ],
    ]);
  });

  it('with a key over in the local cache, the other counters are only read', async () => {
    const { store, calls } = memoryStore();
    const rls = service(store, createOverLimitCache(1_000));
    for (let i = 0; i < 3; i++) await rls.shouldRateLimit(request); // `narrow` goes over and is cached
    calls.length = 0;
    const answer = await rls.shouldRateLimit(request);
    expect(answer.statuses.map((s) => [s.code, s.limitRemaining])).toEqual([
      ['OK', 18],
      ['OVER_LIMIT', 0],
    ]);
    expect(calls).toEqual([[['wide', 0]]]);
  });
});
