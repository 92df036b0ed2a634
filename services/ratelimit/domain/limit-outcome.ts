// What one limit made of one request, whatever its algorithm: the figures a DescriptorStatus, the
// headers, the stats and the local over-limit cache are made from.

export interface LimitOutcome {
  readonly admitted: boolean;
  /** Hits the limit held before this request (token bucket: tokens in use). */
  readonly before: number;
  /** The most the limit holds: requests_per_unit (token bucket: burst). */
  readonly capacity: number;
  /** What is left once this request counted; 0 when refused. */
  readonly remaining: number;
  /**
   * Admitted: ms until the limit is whole again (fixed window: until it ends). Refused: ms until
   * this request would be admitted if nothing else came (a full window when it never would be).
   */
  readonly resetMs: number;
  /** ms until a single hit would be admitted (0: now); how long the local cache may answer for the store. */
  readonly retryMs: number;
}

/** Whole seconds for DescriptorStatus and the reset header: rounded up, never 0 (as fixed windows). */
export const resetSeconds = (outcome: LimitOutcome): number => Math.max(1, Math.ceil(outcome.resetMs / 1000));
