// sliding_window (docs/ratelimit-algorithms.md): the hits a limit admitted, kept per sub-window of a
// tenth of the window (unit × unit_multiplier), aligned on the Unix epoch. A request is admitted
// when the hits of the current sub-window and of the ten before it (the oldest counted whole,
// though only part of it lies in the last T) plus its own stay within N; only admitted hits count.
//
// Error bound: the last T always lies inside what is counted, so no window of length T ever holds
// more than N admitted hits (ε = 0; the issue allows 0.1). What is counted spans less than
// T + T/10, so a request is refused only when the last 1.1 T already admitted more than N minus its
// hits. The Redis script (adapters/redis/limit-scripts.ts) runs this arithmetic; this is its reference.
import type { LimitOutcome } from './limit-outcome.ts';
import { floorDiv } from './window.ts';

export const SUB_WINDOWS = 10;

export interface SlidingWindow {
  /** requests_per_unit: the most admitted in any window. */
  readonly limit: number;
  /** unit × unit_multiplier in ms (a multiple of 1000, so a sub-window is whole ms). */
  readonly windowMs: number;
}

/**
 * Admitted hits per sub-window as a store keeps them: `[index, hits, index, hits, ...]` in any
 * order, where index = floor(Unix ms / sub-window ms).
 */
export type SubWindowHits = readonly number[];

export const subWindowMs = (window: SlidingWindow): number => window.windowMs / SUB_WINDOWS;

/** The sub-window holding `nowMs`. */
export const currentSubWindow = (window: SlidingWindow, nowMs: number): number =>
  floorDiv(nowMs, subWindowMs(window));

/** Hits counted at `nowMs`: every sub-window from ten before the current one on (later ones too: a clock ahead wrote them). */
export function slidingWindowUsed(window: SlidingWindow, hits: SubWindowHits, nowMs: number): number {
  const oldest = currentSubWindow(window, nowMs) - SUB_WINDOWS;
  let used = 0;
  for (let i = 0; i < hits.length; i += 2) if (hits[i]! >= oldest) used += hits[i + 1]!;
  return used;
}

export interface SlidingTake {
  readonly admitted: boolean;
  /** The state to keep: sub-windows still counted, the request's hits added when admitted and consumed. */
  readonly next: SubWindowHits;
}

/** One request of `addend` hits; `consume` false only asks whether it would be admitted. */
export function takeSlidingWindow(
  window: SlidingWindow,
  hits: SubWindowHits,
  nowMs: number,
  addend: number,
  consume: boolean,
): SlidingTake {
  const current = currentSubWindow(window, nowMs);
  const oldest = current - SUB_WINDOWS;
  const next: number[] = [];
  let used = 0;
  let currentAt = -1;
  for (let i = 0; i < hits.length; i += 2) {
    const index = hits[i]!;
    if (index < oldest) continue;
    if (index === current) currentAt = next.length;
    next.push(index, hits[i + 1]!);
    used += hits[i + 1]!;
  }
  const admitted = used + addend <= window.limit;
  if (admitted && consume && addend > 0) {
    if (currentAt >= 0) next[currentAt + 1]! += addend;
    else next.push(current, addend);
  }
  return { admitted, next };
}

/** How long a store must keep `hits`: until its newest sub-window is no longer counted (0: nothing to keep). */
export function slidingWindowTtlMs(window: SlidingWindow, hits: SubWindowHits, nowMs: number): number {
  let newest = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < hits.length; i += 2) if (hits[i + 1]! > 0) newest = Math.max(newest, hits[i]!);
  if (newest === Number.NEGATIVE_INFINITY) return 0;
  return Math.max(0, (newest + SUB_WINDOWS + 1) * subWindowMs(window) - nowMs);
}

/**
 * The outcome of a request of `addend` hits that found `before` (the state before it) and was
 * admitted or not; `added` is what it added (0 for a read or a refusal).
 */
export function slidingWindowOutcome(
  window: SlidingWindow,
  before: SubWindowHits,
  nowMs: number,
  addend: number,
  admitted: boolean,
  added: number,
): LimitOutcome {
  const sub = subWindowMs(window);
  const current = floorDiv(nowMs, sub);
  const oldest = current - SUB_WINDOWS;
  let used = 0;
  let newest = added > 0 ? current : Number.NEGATIVE_INFINITY;
  for (let i = 0; i < before.length; i += 2) {
    if (before[i]! < oldest || before[i + 1]! === 0) continue;
    used += before[i + 1]!;
    if (before[i]! > newest) newest = before[i]!;
  }
  /**
   * ms until `need` more hits fit once `extra` hits of the current sub-window count too: the oldest
   * sub-windows leave one by one (a full window when they never would).
   */
  const waitFor = (need: number, extra: number): number => {
    if (used + extra + need <= window.limit) return 0;
    const counted: Array<[number, number]> = extra > 0 ? [[current, extra]] : [];
    for (let i = 0; i < before.length; i += 2)
      if (before[i]! >= oldest && before[i + 1]! > 0) counted.push([before[i]!, before[i + 1]!]);
    counted.sort((a, b) => a[0] - b[0]);
    let left = used + extra;
    for (const [index, hits] of counted) {
      left -= hits;
      if (left + need <= window.limit) return (index + SUB_WINDOWS + 1) * sub - nowMs;
    }
    return window.windowMs;
  };
  // Admitted: whole again when the newest sub-window holding hits leaves; refused: when this request fits.
  const resetMs = admitted
    ? newest === Number.NEGATIVE_INFINITY
      ? 0
      : (newest + SUB_WINDOWS + 1) * sub - nowMs
    : waitFor(addend, 0);
  return {
    admitted,
    before: used,
    capacity: window.limit,
    remaining: admitted ? Math.max(0, window.limit - used - added) : 0,
    resetMs,
    retryMs: waitFor(1, admitted ? added : 0),
  };
}
