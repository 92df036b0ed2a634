/** Hits from which a limit counts as near: floor(limit × ratio) in float32, as Go computes it. */
export function nearLimitThreshold(limit: number, ratio: number): number {
  return Math.floor(Math.fround(Math.fround(limit) * Math.fround(ratio)));
}
