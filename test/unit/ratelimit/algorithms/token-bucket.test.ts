// token_bucket (GCRA) on a simulated clock: exact (starting full, a bucket admits burst +
// floor(rate × elapsed / period) hits, whatever the rate's fraction of a ms), checked against a
// BigInt GCRA on random schedules up to the largest figures the configuration admits.
import { describe, expect, it } from 'vitest';
import { createRng } from '../../../../services/experiment/suggestion/rng.ts';
import {
  type BucketState,
  bucketTtlMs,
  type TokenBucket,
  takeTokens,
  tokenBucketOutcome,
} from '../../../../services/ratelimit/domain/token-bucket.ts';

const T0 = 1_700_000_400_000;

function simulate(bucket: TokenBucket) {
  let state: BucketState | undefined;
  return {
    take(nowMs: number, addend = 1, consume = true) {
      const before = state;
      const taken = takeTokens(bucket, state, nowMs, addend, consume);
      if (taken.next !== undefined) state = taken.next;
      return { ...taken, before };
    },
    state: () => state,
  };
}

/** GCRA in BigInt, time in ticks of 1/rate ms: admitted iff max(tat, now) + n·period − now ≤ burst·period. */
function bigGcra(bucket: TokenBucket) {
  const rate = BigInt(bucket.rate);
  const period = BigInt(bucket.periodMs);
  const capacity = BigInt(bucket.burst) * period;
  let tat = 0n;
  return (nowMs: number, addend: number): boolean => {
    const now = BigInt(nowMs) * rate;
    const start = tat > now ? tat : now;
    const next = start + BigInt(addend) * period;
    if (next - now > capacity) return false;
    tat = next;
    return true;
  };
}

describe('token_bucket on a simulated clock', () => {
  // Exact while the bucket is never full again (a full bucket gains nothing): with a caller asking
  // every ms, that needs a burst of 2 or more where a token takes longer than 1 ms.
  it('starting full, admits exactly burst + floor(rate × elapsed / period) to a caller asking every ms', () => {
    for (const bucket of [
      { rate: 7, periodMs: 60_000, burst: 3 },
      { rate: 100, periodMs: 60_000, burst: 20 },
      { rate: 3, periodMs: 1_000, burst: 2 },
      { rate: 1_000, periodMs: 1_000, burst: 1_000 },
    ]) {
      const limit = simulate(bucket);
      let admitted = 0;
      for (let elapsed = 0; elapsed <= 2 * bucket.periodMs; elapsed += 1) {
        while (limit.take(T0 + elapsed).admitted) admitted++;
        if (elapsed % 997 === 0 || elapsed === 2 * bucket.periodMs)
          expect(admitted).toBe(bucket.burst + Math.floor((bucket.rate * elapsed) / bucket.periodMs));
      }
    }
  });

  it('the boundary: a burst at 0:59 and another at 1:00 get burst + rate × 1 s', () => {
    const limit = simulate({ rate: 600, periodMs: 60_000, burst: 50 });
    let at59 = 0;
    for (let i = 0; i < 200; i++) if (limit.take(T0 + 59_000).admitted) at59++;
    let at60 = 0;
    for (let i = 0; i < 200; i++) if (limit.take(T0 + 60_000).admitted) at60++;
    expect([at59, at60]).toEqual([50, 10]);
  });

  it('decides as a BigInt GCRA on random schedules, up to the largest bucket the configuration admits', () => {
    const rng = createRng(7);
    const day = 86_400_000;
    for (const bucket of [
      { rate: 7, periodMs: 60_000, burst: 3 },
      { rate: 4_294_967_295, periodMs: 1_000, burst: 1_000_000 },
      // burst × period + 2 × rate just below 2^53, the load-time bound.
      { rate: 1_000_000_007, periodMs: day, burst: Math.floor((2 ** 53 - 1 - 2 * 1_000_000_007) / day) },
      { rate: 13, periodMs: 3_600_000 * 5, burst: 40 },
    ]) {
      const ours = simulate(bucket);
      const reference = bigGcra(bucket);
      let now = T0;
      let admitted = 0;
      for (let i = 0; i < 3_000; i++) {
        now += rng.next() < 0.5 ? 0 : rng.int(Math.ceil(bucket.periodMs / Math.min(bucket.rate, 50)));
        const addend = rng.next() < 0.1 ? rng.int(bucket.burst + 2) : 1 + rng.int(3);
        const expected = reference(now, addend);
        expect(ours.take(now, addend).admitted, `request ${i} of ${addend} at +${now - T0} ms`).toBe(
          expected,
        );
        if (expected) admitted++;
      }
      expect(admitted).toBeGreaterThan(0);
    }
  });

  it('refuses more hits than the burst at once, takes nothing when refused or only asked', () => {
    const limit = simulate({ rate: 10, periodMs: 1_000, burst: 5 });
    expect(limit.take(T0, 6).admitted).toBe(false);
    expect(limit.take(T0, 5, false).admitted).toBe(true);
    expect(limit.state()).toBeUndefined();
    expect(limit.take(T0, 4).admitted).toBe(true);
    expect(limit.take(T0, 2).admitted).toBe(false);
    expect(limit.take(T0, 1).admitted).toBe(true);
    expect(limit.take(T0, 0).admitted).toBe(true);
  });

  it('outcome: remaining tokens, the wait of a refused request, the time until full', () => {
    const bucket = { rate: 7, periodMs: 60_000, burst: 3 };
    // Three taken at T0: the bucket is full again in 3 × 60000/7 ms.
    const state = takeTokens(bucket, undefined, T0, 3, true).next!;
    expect(bucketTtlMs(state, T0)).toBe(Math.ceil((3 * 60_000) / 7));
    const refused = tokenBucketOutcome(bucket, state, T0 + 1_000, 1, false, 0);
    expect(refused).toEqual({
      admitted: false,
      before: 3,
      capacity: 3,
      remaining: 0,
      resetMs: Math.ceil(60_000 / 7) - 1_000,
      retryMs: Math.ceil(60_000 / 7) - 1_000,
    });
    const later = T0 + 10_000; // one token back (8571.4 ms), a bit of the next one
    const admitted = tokenBucketOutcome(bucket, state, later, 1, true, 1);
    expect(admitted).toMatchObject({ admitted: true, before: 2, remaining: 0 });
    expect(admitted.resetMs).toBe(Math.ceil((4 * 60_000) / 7) - 10_000);
    expect(tokenBucketOutcome(bucket, undefined, T0, 4, false, 0).resetMs).toBe(60_000);
    expect(tokenBucketOutcome(bucket, undefined, T0, 1, true, 1)).toMatchObject({ before: 0, remaining: 2 });
    // The request that empties the bucket: the next token in 60000/7 ms.
    expect(tokenBucketOutcome(bucket, undefined, T0, 3, true, 3)).toMatchObject({
      remaining: 0,
      retryMs: Math.ceil(60_000 / 7),
    });
  });
});
