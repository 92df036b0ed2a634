// token_bucket (docs/ratelimit-algorithms.md) as GCRA: the bucket holds `burst` tokens and gains
// `requests_per_unit` per period (unit × unit_multiplier); a request of n hits takes n tokens or
// none. The state is one instant, the theoretical arrival time (TAT): when the bucket will be full
// again. It is kept exactly, in whole ms plus ticks of 1/requests_per_unit ms, so a token is always
// `period ms` ticks and no rounding ever admits one hit too many or too few: starting full, a
// bucket admits exactly burst + floor(rate × elapsed) hits. The Redis script
// (adapters/redis/limit-scripts.ts) runs this arithmetic; this is its reference.
import type { LimitOutcome } from './limit-outcome.ts';
import { floorDiv } from './window.ts';

export interface TokenBucket {
  /** requests_per_unit: tokens gained per period (at least 1). */
  readonly rate: number;
  /** unit × unit_multiplier in ms. */
  readonly periodMs: number;
  /** The bucket's capacity (at least 1); burst × periodMs + 2 × rate is a safe integer (checked at load). */
  readonly burst: number;
}

/** The TAT: `ms` whole Unix ms plus `ticks` / rate ms (0 ≤ ticks < rate). undefined: the bucket is full. */
export interface BucketState {
  readonly ms: number;
  readonly ticks: number;
}

/** `state` moved on by `ticks` (< 2^53 − rate). */
function later(bucket: TokenBucket, state: BucketState, ticks: number): BucketState {
  const total = state.ticks + ticks;
  const carry = floorDiv(total, bucket.rate);
  return { ms: state.ms + carry, ticks: total - carry * bucket.rate };
}

/** The TAT a request starts from: the stored one, or now when that is past (the bucket is full). */
function startFrom(state: BucketState | undefined, nowMs: number): BucketState {
  if (state === undefined || state.ms < nowMs || (state.ms === nowMs && state.ticks === 0))
    return { ms: nowMs, ticks: 0 };
  return state;
}

/** The capacity, burst × period ticks, as whole ms and ticks. */
function capacity(bucket: TokenBucket): BucketState {
  return later(bucket, { ms: 0, ticks: 0 }, bucket.burst * bucket.periodMs);
}

/** Whether `tat` lies within the capacity of `nowMs`: tat − now ≤ burst × period ticks. */
function withinCapacity(bucket: TokenBucket, tat: BucketState, nowMs: number): boolean {
  const cap = capacity(bucket);
  const ahead = tat.ms - nowMs;
  return ahead < cap.ms || (ahead === cap.ms && tat.ticks <= cap.ticks);
}

/** ms (rounded up) from `nowMs` until `tat` lies within capacity: how long a refused request waits. */
function waitMs(bucket: TokenBucket, tat: BucketState, nowMs: number): number {
  const cap = capacity(bucket);
  return tat.ms - nowMs - cap.ms + (tat.ticks > cap.ticks ? 1 : 0);
}

export interface BucketTake {
  readonly admitted: boolean;
  /** The state to keep when the request took tokens; undefined when nothing changes. */
  readonly next: BucketState | undefined;
}

/** One request of `addend` hits; `consume` false only asks whether it would be admitted. */
export function takeTokens(
  bucket: TokenBucket,
  state: BucketState | undefined,
  nowMs: number,
  addend: number,
  consume: boolean,
): BucketTake {
  if (addend > bucket.burst) return { admitted: false, next: undefined };
  const tat = later(bucket, startFrom(state, nowMs), addend * bucket.periodMs);
  const admitted = withinCapacity(bucket, tat, nowMs);
  return { admitted, next: admitted && consume && addend > 0 ? tat : undefined };
}

/** How long a store must keep `state`: until the bucket is full again (whole ms, rounded up). */
export function bucketTtlMs(state: BucketState, nowMs: number): number {
  return Math.max(0, state.ms - nowMs + (state.ticks > 0 ? 1 : 0));
}

/** Tokens in use at `tat`, whole tokens rounded up (burst when the TAT lies beyond capacity). */
function tokensInUse(bucket: TokenBucket, tat: BucketState, nowMs: number): number {
  if (!withinCapacity(bucket, tat, nowMs)) return bucket.burst;
  const usedTicks = (tat.ms - nowMs) * bucket.rate + tat.ticks;
  return bucket.burst - floorDiv(bucket.burst * bucket.periodMs - usedTicks, bucket.periodMs);
}

/**
 * The outcome of a request of `addend` hits that found `before` and was admitted or not; `added`
 * is what it took (0 for a read or a refusal).
 */
export function tokenBucketOutcome(
  bucket: TokenBucket,
  before: BucketState | undefined,
  nowMs: number,
  addend: number,
  admitted: boolean,
  added: number,
): LimitOutcome {
  const start = startFrom(before, nowMs);
  const after = admitted && added > 0 ? later(bucket, start, added * bucket.periodMs) : start;
  /** ms until `need` tokens are there, from `tat` (a full period when more than the burst). */
  const wait = (tat: BucketState, need: number): number => {
    if (need > bucket.burst) return bucket.periodMs;
    const next = later(bucket, tat, need * bucket.periodMs);
    return withinCapacity(bucket, next, nowMs) ? 0 : waitMs(bucket, next, nowMs);
  };
  return {
    admitted,
    before: tokensInUse(bucket, start, nowMs),
    capacity: bucket.burst,
    remaining: admitted ? bucket.burst - tokensInUse(bucket, after, nowMs) : 0,
    // Admitted: until the bucket is full again; refused: until this request's tokens are there.
    resetMs: admitted ? bucketTtlMs(after, nowMs) : wait(start, addend),
    retryMs: wait(after, 1),
  };
}
