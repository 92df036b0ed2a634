// sliding_window's arithmetic on a simulated clock: the stated bound (no window of length T holds
// more than N admitted hits, ε = 0 ≤ 0.1), the other side of it (a refusal means the last 1.1 T
// admitted more than N minus the request), and the figures a status is made of.
import { describe, expect, it } from 'vitest';
import { createRng } from '../../../../services/experiment/suggestion/rng.ts';
import {
  type SlidingWindow,
  type SubWindowHits,
  slidingWindowOutcome,
  slidingWindowTtlMs,
  slidingWindowUsed,
  takeSlidingWindow,
} from '../../../../services/ratelimit/domain/sliding-window.ts';

const MINUTE = 60_000;
/** 12:00:00 UTC on some day: a minute (and sub-window) boundary. */
const T0 = 1_700_000_400_000;

/** A limit kept by takeSlidingWindow, with every admitted hit's time. */
function simulate(window: SlidingWindow) {
  let state: SubWindowHits = [];
  const admitted: Array<[number, number]> = [];
  return {
    admitted,
    take(nowMs: number, addend = 1, consume = true) {
      const before = state;
      const taken = takeSlidingWindow(window, state, nowMs, addend, consume);
      state = taken.next;
      if (taken.admitted && consume) admitted.push([nowMs, addend]);
      return { ...taken, before };
    },
    state: () => state,
  };
}

const hitsWithin = (events: ReadonlyArray<[number, number]>, from: number, to: number): number =>
  events.reduce((sum, [at, hits]) => (at >= from && at <= to ? sum + hits : sum), 0);

describe('sliding_window on a simulated clock', () => {
  it('the boundary: N at 0:59, then nothing at 1:00, until the 0:54 sub-window leaves at 2:00', () => {
    const limit = simulate({ limit: 100, windowMs: MINUTE });
    let at59 = 0;
    for (let i = 0; i < 150; i++) if (limit.take(T0 + 59_000).admitted) at59++;
    let at60 = 0;
    for (let i = 0; i < 150; i++) if (limit.take(T0 + 60_000).admitted) at60++;
    expect([at59, at60]).toEqual([100, 0]);
    expect(limit.take(T0 + 119_999).admitted).toBe(false);
    expect(limit.take(T0 + 120_000).admitted).toBe(true);
  });

  it('never admits more than N in any window of length T, with bursty traffic and several hits per request', () => {
    const rng = createRng(42);
    for (const [limitN, windowMs] of [
      [10, 1_000],
      [100, MINUTE],
      [7, 5 * MINUTE],
      [1, 3_000],
    ] as const) {
      const limit = simulate({ limit: limitN, windowMs });
      let now = T0 + rng.int(windowMs);
      const refused: Array<[number, number]> = [];
      for (let i = 0; i < 4_000; i++) {
        // Bursts: most requests in the same ms as the previous, some after a long gap.
        now += rng.next() < 0.7 ? 0 : rng.next() < 0.9 ? rng.int(windowMs / 20) : rng.int(2 * windowMs);
        const addend = 1 + rng.int(3);
        if (!limit.take(now, addend).admitted) refused.push([now, addend]);
      }
      for (const [at] of limit.admitted)
        expect(hitsWithin(limit.admitted, at - windowMs, at)).toBeLessThanOrEqual(limitN);
      // The other side: a refusal had the last T + T/10 already too full for it.
      for (const [at, addend] of refused)
        expect(hitsWithin(limit.admitted, at - 1.1 * windowMs, at) + addend).toBeGreaterThan(limitN);
      expect(limit.admitted.length).toBeGreaterThan(0);
      expect(refused.length).toBeGreaterThan(0);
    }
  });

  it('admits a steady caller at least N per 1.1 T (the rest of the bound)', () => {
    const limit = simulate({ limit: 50, windowMs: MINUTE });
    for (let t = 0; t < 20 * MINUTE; t += 100) limit.take(T0 + t);
    // 20 minutes of a caller asking every 100 ms: at least 20 / 1.1 windows' worth, at most 20.
    expect(limit.admitted.length).toBeGreaterThanOrEqual(Math.floor((50 * 20) / 1.1));
    expect(limit.admitted.length).toBeLessThanOrEqual(50 * 20);
  });

  it('counts only admitted hits, and a read (consume false) changes nothing', () => {
    const limit = simulate({ limit: 3, windowMs: MINUTE });
    expect(limit.take(T0, 2).admitted).toBe(true);
    expect(limit.take(T0, 2).admitted).toBe(false);
    expect(limit.take(T0, 1, false).admitted).toBe(true);
    expect(slidingWindowUsed({ limit: 3, windowMs: MINUTE }, limit.state(), T0)).toBe(2);
    expect(limit.take(T0, 1).admitted).toBe(true);
    expect(limit.take(T0, 0).admitted).toBe(true);
    expect(limit.take(T0, 1).admitted).toBe(false);
  });

  it('counts sub-windows a clock ahead wrote, and drops those no longer counted', () => {
    const window = { limit: 5, windowMs: MINUTE };
    const ahead: SubWindowHits = [Math.floor((T0 + 12_000) / 6_000), 5];
    expect(takeSlidingWindow(window, ahead, T0, 1, true).admitted).toBe(false);
    const stale: SubWindowHits = [Math.floor(T0 / 6_000) - 11, 5, Math.floor(T0 / 6_000) - 10, 1];
    expect(takeSlidingWindow(window, stale, T0, 1, true).next).toEqual([
      Math.floor(T0 / 6_000) - 10,
      1,
      Math.floor(T0 / 6_000),
      1,
    ]);
  });

  it('outcome: remaining, the wait of a refused request, the reset of an admitted one', () => {
    const window = { limit: 10, windowMs: MINUTE };
    const sub = (ms: number) => Math.floor((T0 + ms) / 6_000);
    // 4 hits at 0:10 (sub-window of 0:06), 6 at 0:40 (0:36); the window is full at 0:50.
    const full: SubWindowHits = [sub(10_000), 4, sub(40_000), 6];
    const refused = slidingWindowOutcome(window, full, T0 + 50_000, 3, false, 0);
    // 3 hits fit once the 0:06 sub-window leaves: at 1:12.
    expect(refused).toEqual({
      admitted: false,
      before: 10,
      capacity: 10,
      remaining: 0,
      resetMs: 72_000 - 50_000,
      retryMs: 72_000 - 50_000,
    });
    // 5 hits need the 0:36 one gone too (1:42); 11 never fit: a full window.
    expect(slidingWindowOutcome(window, full, T0 + 50_000, 5, false, 0).resetMs).toBe(102_000 - 50_000);
    expect(slidingWindowOutcome(window, full, T0 + 50_000, 11, false, 0).resetMs).toBe(MINUTE);
    const admitted = slidingWindowOutcome(window, [sub(10_000), 4], T0 + 50_000, 2, true, 2);
    // Remaining 4; whole again when the current sub-window (0:48) leaves, at 1:54.
    expect(admitted).toMatchObject({ admitted: true, before: 4, remaining: 4, resetMs: 114_000 - 50_000 });
    expect(admitted.retryMs).toBe(0);
    // The request that fills the window: one more hit fits once the 0:06 sub-window leaves (1:12).
    const filling = slidingWindowOutcome(window, [sub(10_000), 4, sub(40_000), 3], T0 + 50_000, 3, true, 3);
    expect([filling.remaining, filling.retryMs]).toEqual([0, 72_000 - 50_000]);
    expect(slidingWindowOutcome({ limit: 0, windowMs: MINUTE }, [], T0, 1, false, 0).retryMs).toBe(MINUTE);
  });

  it('keeps a window until its newest sub-window is no longer counted', () => {
    const window = { limit: 10, windowMs: MINUTE };
    expect(slidingWindowTtlMs(window, [Math.floor(T0 / 6_000), 1], T0 + 1_000)).toBe(66_000 - 1_000);
    expect(slidingWindowTtlMs(window, [], T0)).toBe(0);
  });
});
