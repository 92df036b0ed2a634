// A sliding window or token bucket as one memcached value, and one operation on it with the
// domain's arithmetic: `<sub-window>:<hits>,...` for a sliding window, `<ms>:<ticks>` (its TAT) for
// a bucket. The memcached store writes the result back with cas, so the operation is atomic.
import {
  currentSubWindow,
  SUB_WINDOWS,
  slidingWindowTtlMs,
  takeSlidingWindow,
} from '../../domain/sliding-window.ts';
import { bucketTtlMs, takeTokens } from '../../domain/token-bucket.ts';
import type { LimitOperation, LimitReply } from '../../ports.ts';

export interface AppliedOperation {
  readonly reply: LimitReply;
  /** The value to write back, undefined when nothing was added (it stays as it was). */
  readonly value: string | undefined;
  /** How long the value must be kept, in ms. */
  readonly ttlMs: number;
}

/** Numbers of a value; a value that does not parse counts as empty (a fresh window or a full bucket). */
function numbers(value: string | undefined): number[] {
  if (value === undefined || value === '') return [];
  const parsed = value.split(/[,:]/).map(Number);
  return parsed.every(Number.isSafeInteger) ? parsed : [];
}

export function applyToValue(operation: LimitOperation, value: string | undefined): AppliedOperation {
  const { spec, nowMs, addend, consume } = operation;
  const windowMs = spec.windowSeconds * 1000;
  const stored = numbers(value);
  if (spec.algorithm === 'sliding_window') {
    const window = { limit: spec.requestsPerUnit, windowMs };
    const taken = takeSlidingWindow(window, stored.length % 2 === 0 ? stored : [], nowMs, addend, consume);
    const before: number[] = [];
    const oldest = currentSubWindow(window, nowMs) - SUB_WINDOWS;
    for (let i = 0; i < stored.length; i += 2)
      if (stored[i]! >= oldest) before.push(stored[i]!, stored[i + 1]!);
    // Written back only when hits were added (sub-windows no longer counted go with it).
    const added = taken.admitted && consume && addend > 0;
    return {
      reply: { admitted: taken.admitted, before },
      value: added ? pairs(taken.next) : undefined,
      ttlMs: slidingWindowTtlMs(window, taken.next, nowMs),
    };
  }
  const bucket = { rate: spec.requestsPerUnit, periodMs: windowMs, burst: spec.burst };
  const state = stored.length === 2 ? { ms: stored[0]!, ticks: stored[1]! } : undefined;
  const taken = takeTokens(bucket, state, nowMs, addend, consume);
  return {
    reply: { admitted: taken.admitted, before: state === undefined ? [] : [state.ms, state.ticks] },
    value: taken.next === undefined ? undefined : `${taken.next.ms}:${taken.next.ticks}`,
    ttlMs: taken.next === undefined ? 0 : bucketTtlMs(taken.next, nowMs),
  };
}

function pairs(hits: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < hits.length; i += 2) parts.push(`${hits[i]}:${hits[i + 1]}`);
  return parts.join(',');
}
