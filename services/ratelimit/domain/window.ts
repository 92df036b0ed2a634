// Fixed windows as envoyproxy/ratelimit counts them: aligned on the Unix epoch by integer
// division of whole seconds (weeks start on a Thursday, "months" are 30-day and "years" 365-day blocks).
import type { Unit } from '../config/types.ts';

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

/** Start (Unix seconds) of the window of `windowSeconds` (unit × unit_multiplier) that holds `nowSeconds`. */
export function windowStartOf(windowSeconds: number, nowSeconds: number): number {
  return Math.floor(nowSeconds / windowSeconds) * windowSeconds;
}

/** Whole seconds until that window ends: from 1 to its length, never 0. */
export function secondsUntilWindowEnd(windowSeconds: number, nowSeconds: number): number {
  return windowSeconds - (nowSeconds % windowSeconds);
}

/**
 * `floor(a / b)` for non-negative safe integers, exact even where the quotient is too large for the
 * double division to round correctly (the Redis scripts use the same correction).
 */
export function floorDiv(a: number, b: number): number {
  let quotient = Math.floor(a / b);
  const rest = a - quotient * b;
  if (rest < 0) quotient--;
  else if (rest >= b) quotient++;
  return quotient;
}
