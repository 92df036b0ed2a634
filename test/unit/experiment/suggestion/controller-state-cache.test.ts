import { describe, expect, it } from 'vitest';
import { StateCache } from '../../../../services/experiment/suggestion/adapters/controller-state-cache.ts';

const bytes = (n: number) => new Uint8Array(n);

describe('controller state cache', () => {
  it('evicts the least recently used states once past its budget', () => {
    const cache = new StateCache(10);
    cache.remember('a', bytes(4));
    cache.remember('b', bytes(4));
    cache.remember('a', cache.get('a')!); // a use: b is now the oldest
    cache.remember('c', bytes(4));
    expect([cache.get('a')?.length, cache.get('b'), cache.get('c')?.length]).toEqual([4, undefined, 4]);
    expect(cache.bytes).toBe(8);
  });

  it('replaces a key, counts its new size, and forgets', () => {
    const cache = new StateCache(10);
    cache.remember('a', bytes(3));
    cache.remember('a', bytes(5));
    expect(cache.bytes).toBe(5);
    cache.forget('a');
    cache.forget('missing');
    expect([cache.get('a'), cache.bytes]).toEqual([undefined, 0]);
  });

  it('holds a single state larger than the budget, alone', () => {
    const cache = new StateCache(10);
    cache.remember('small', bytes(2));
    cache.remember('large', bytes(12));
    expect([cache.get('small'), cache.get('large')?.length, cache.bytes]).toEqual([undefined, 12, 12]);
  });
});
