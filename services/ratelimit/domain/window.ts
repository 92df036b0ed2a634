// Fixed windows as envoyproxy/ratelimit counts them: aligned on the Unix epoch by integer
// division of whole seconds (weeks start on a Thursday, "months" are 30-day and "years" 365-day blocks).
import type { Unit } from '../config/index.ts';

export const UNIT_SECONDS: Readonly<Record<Unit, number>> = Object.freeze({
  SECOND: 1,
  MINUTE: 60,
  HOUR: 3_600,
  DAY: 86_400,
  WEEK: 604_800,
  MONTH: 2_592_000,
  YEAR: 31_536_000,
});

/** Start (Unix seconds) of the window of `unit` that holds `nowSeconds`. */
export function windowStart(unit: Unit, nowSeconds: number): number {
  const divider = UNIT_SECONDS[unit];
  return Math.floor(nowSeconds / divider) * divider;
}

/** Whole seconds until the window of `unit` ends: from 1 to the window's length, never 0. */
export function secondsUntilReset(unit: Unit, nowSeconds: number): number {
  const divider = UNIT_SECONDS[unit];
  return divider - (nowSeconds % divider);
}
