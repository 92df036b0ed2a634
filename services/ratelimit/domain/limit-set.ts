// A descriptor's limits beyond the reference's single fixed window (unit_multiplier, algorithm,
// rate_limits): their cache keys, the outcome of each from what the store answered, and the one
// status the descriptor answers: over when any limit is, describing the limit closest to its own.
import type { LimitSpec, RateLimitRule } from '../config/index.ts';
import type { Check, DescriptorStatus, LimitPart } from './decision-types.ts';
import type { LimitOutcome } from './limit-outcome.ts';
import { resetSeconds } from './limit-outcome.ts';
import { nearLimitThreshold } from './near-limit.ts';
import { slidingWindowOutcome } from './sliding-window.ts';
import type { RuleStats } from './stats.ts';
import { tokenBucketOutcome } from './token-bucket.ts';
import { secondsUntilWindowEnd, windowStartOf } from './window.ts';

/** One limit of a descriptor as a request checks it. */

/** The parts of `specs` (those not replaced) at `nowSeconds`. */
export function limitParts(
  prefix: string,
  domain: string,
  rule: RateLimitRule,
  specs: readonly LimitSpec[],
  nowSeconds: number,
): LimitPart[] {
  let base = `${prefix}${domain}_`;
  for (const entry of rule.cacheKeyEntries) base += `${entry.key}_${entry.value}_`;
  return specs.map((spec) => ({
    spec,
    key:
      spec.algorithm === 'fixed_window'
        ? `${base}${spec.keyTag}_${windowStartOf(spec.windowSeconds, nowSeconds)}`
        : `${base}${spec.keyTag}`,
    perSecond: spec.unit === 'SECOND',
  }));
}

/** A fixed window's outcome from its counter once `addend` was added and it reads `after`. */
export function fixedWindowOutcome(
  spec: LimitSpec,
  after: number,
  addend: number,
  nowMs: number,
): LimitOutcome {
  const limit = spec.requestsPerUnit;
  const admitted = after <= limit;
  return {
    admitted,
    before: after - addend,
    capacity: limit,
    remaining: admitted ? limit - after : 0,
    resetMs: secondsUntilWindowEnd(spec.windowSeconds, Math.floor(nowMs / 1000)) * 1000,
    // As the reference's local cache: a counter over its limit is cached a window long (the next window has another key).
    retryMs: after > limit ? spec.windowSeconds * 1000 : 0,
  };
}

/** The outcome of a sliding window or token bucket from the store's reply. */
export function atomicOutcome(
  spec: LimitSpec,
  before: readonly number[],
  nowMs: number,
  addend: number,
  admitted: boolean,
  added: number,
): LimitOutcome {
  const windowMs = spec.windowSeconds * 1000;
  if (spec.algorithm === 'sliding_window')
    return slidingWindowOutcome(
      { limit: spec.requestsPerUnit, windowMs },
      before,
      nowMs,
      addend,
      admitted,
      added,
    );
  const state = before.length === 0 ? undefined : { ms: before[0]!, ticks: before[1]! };
  return tokenBucketOutcome(
    { rate: spec.requestsPerUnit, periodMs: windowMs, burst: spec.burst },
    state,
    nowMs,
    addend,
    admitted,
    added,
  );
}

/** A part the local over-limit cache answered for, over until `untilMs`. */
export function cachedOutcome(spec: LimitSpec, untilMs: number, nowMs: number): LimitOutcome {
  const capacity = spec.algorithm === 'token_bucket' ? spec.burst : spec.requestsPerUnit;
  const resetMs =
    spec.algorithm === 'fixed_window'
      ? secondsUntilWindowEnd(spec.windowSeconds, Math.floor(nowMs / 1000)) * 1000
      : untilMs - nowMs;
  return { admitted: false, before: capacity, capacity, remaining: 0, resetMs, retryMs: untilMs - nowMs };
}

/** The part a descriptor reports: one over its limit first, then the least remaining, then the longest wait. */
export function closestToLimit(outcomes: readonly LimitOutcome[]): number {
  let chosen = 0;
  for (let i = 1; i < outcomes.length; i++) {
    const a = outcomes[i]!;
    const b = outcomes[chosen]!;
    if (a.admitted !== b.admitted) {
      if (!a.admitted) chosen = i;
    } else if (a.remaining !== b.remaining) {
      if (a.remaining < b.remaining) chosen = i;
    } else if (a.resetMs > b.resetMs) chosen = i;
  }
  return chosen;
}

/**
 * Adds a descriptor's hits to its stats from the outcome it reports, as base_limiter.go does for a
 * fixed window (whose counter grows with refused hits too, so a request that crosses the limit is
 * split into near and over). A sliding window or bucket admits a request whole or not at all.
 */
export function countOutcome(
  stats: RuleStats,
  spec: LimitSpec,
  outcome: LimitOutcome,
  addend: number,
  nearLimitRatio: number,
  fromLocalCache: boolean,
): void {
  const limit = outcome.capacity;
  const near = nearLimitThreshold(limit, nearLimitRatio);
  const before = outcome.before;
  const after = before + addend;
  if (fromLocalCache) {
    stats.overLimit.value += addend;
    stats.overLimitWithLocalCache.value += addend;
  } else if (!outcome.admitted) {
    if (spec.algorithm !== 'fixed_window' || before >= limit) stats.overLimit.value += addend;
    else {
      stats.overLimit.value += after - limit;
      stats.nearLimit.value += limit - Math.max(near, before);
    }
  } else {
    if (after > near) stats.nearLimit.value += before >= near ? addend : after - near;
    stats.withinLimit.value += addend;
  }
}

/**
 * The status of a descriptor with several limits (or one beyond the reference's): over when any of
 * them is, describing the one closest to its limit; counts its stats from that one. Shadow mode
 * answers OK. `fromLocalCache[i]`: part i was answered by the local over-limit cache.
 */
export function statusOfLimitSet(
  check: Extract<Check, { kind: 'limits' }>,
  outcomes: readonly LimitOutcome[],
  fromLocalCache: readonly boolean[],
  nearLimitRatio: number,
): DescriptorStatus {
  const chosen = closestToLimit(outcomes);
  const outcome = outcomes[chosen]!;
  const { spec } = check.parts[chosen]!;
  const { stats, addend } = check;
  countOutcome(stats, spec, outcome, addend, nearLimitRatio, fromLocalCache[chosen]!);
  const over = !outcome.admitted;
  if (over && check.rule.shadowMode) stats.shadowMode.value += addend;
  return {
    code: over && !check.rule.shadowMode ? 'OVER_LIMIT' : 'OK',
    currentLimit: { requestsPerUnit: spec.requestsPerUnit, unit: spec.unit, name: spec.name },
    limitRemaining: outcome.remaining,
    secondsUntilReset: resetSeconds(outcome),
  };
}
