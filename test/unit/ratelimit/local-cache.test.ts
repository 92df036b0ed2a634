import { describe, expect, it } from 'vitest';
import { createOverLimitCache } from '../../../services/ratelimit/domain/local-cache.ts';

describe('the local over-limit cache', () => {
  it('holds a key until its window ends', () => {
    const cache = createOverLimitCache(1_000);
    cache.add('k', 60, 0);
    expect(cache.has('k', 59_999)).toBe(true);
    expect(cache.has('k', 60_000)).toBe(false);
    expect(cache.stats()).toMatchObject({ hitCount: 1, missCount: 1, expiredCount: 1, entryCount: 0 });
  });

  it('evicts the oldest keys to stay within its size', () => {
    const cache = createOverLimitCache(3 * (24 + 2));
    for (const key of ['k1', 'k2', 'k3', 'k4']) cache.add(key, 60, 0);
    expect(['k1', 'k2', 'k3', 'k4'].map((k) => cache.has(k, 1))).toEqual([false, true, true, true]);
    expect(cache.stats().evacuateCount).toBe(1);
  });

  it('ignores a key bigger than the whole cache', () => {
    const cache = createOverLimitCache(10);
    cache.add('a-long-key', 60, 0);
    expect(cache.has('a-long-key', 1)).toBe(false);
  });
});
