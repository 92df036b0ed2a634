// The one-sided Wilcoxon signed-rank test with zeros split between the two sides, computed the
// way SciPy's `wilcoxon(d, alternative, zero_method="zsplit")` does by default (the test Optuna's
// WilcoxonPruner calls): the exact null distribution for up to 50 differences without ties or
// zeros; every sign flip for up to 13 with them; the normal approximation (tie-corrected, no
// continuity correction) otherwise.

export type Alternative = 'less' | 'greater';

interface Ranked {
  /** Sum of the ranks of positive differences, plus half the ranks of zeros. */
  readonly rPlus: number;
  readonly ranks: readonly number[];
  /** Σ (t³ − t) over groups of tied |d|. */
  readonly tieCorrection: number;
  readonly hasTies: boolean;
  readonly zeros: number;
}

function rank(diffs: readonly number[]): Ranked {
  const n = diffs.length;
  const order = diffs.map((_, i) => i).sort((a, b) => Math.abs(diffs[a]!) - Math.abs(diffs[b]!) || a - b);
  const ranks = new Array<number>(n);
  let tieCorrection = 0;
  let hasTies = false;
  for (let start = 0; start < n; ) {
    let end = start + 1;
    while (end < n && Math.abs(diffs[order[end]!]!) === Math.abs(diffs[order[start]!]!)) end++;
    const size = end - start;
    const average = start + 1 + (size - 1) / 2;
    for (let i = start; i < end; i++) ranks[order[i]!] = average;
    if (size > 1) hasTies = true;
    tieCorrection += size ** 3 - size;
    start = end;
  }
  let rPlus = 0;
  let zeros = 0;
  for (let i = 0; i < n; i++) {
    const d = diffs[i]!;
    if (d > 0) rPlus += ranks[i]!;
    else if (d === 0) {
      rPlus += ranks[i]! / 2;
      zeros++;
    }
  }
  return { rPlus, ranks, tieCorrection, hasTies, zeros };
}

const distributions = new Map<number, Float64Array>();

/** P(R+ = r) for r = 0..n(n+1)/2 under the null hypothesis (every sign equally likely). */
function nullDistribution(n: number): Float64Array {
  let cached = distributions.get(n);
  if (cached) return cached;
  let c = new Float64Array([1]);
  for (let k = 1; k <= n; k++) {
    const next = new Float64Array((k * (k + 1)) / 2 + 1);
    const m = c.length;
    for (let i = 0; i < m; i++) next[i] = c[i]! * 0.5;
    for (let i = 0; i < m; i++) next[next.length - m + i]! += c[i]! * 0.5;
    c = next;
  }
  cached = c;
  distributions.set(n, cached);
  return cached;
}

const sum = (pmf: Float64Array, from: number, to: number): number => {
  let total = 0;
  for (let i = Math.max(0, from); i < Math.min(to, pmf.length); i++) total += pmf[i]!;
  return total;
};

function exactP(rPlus: number, n: number, alternative: Alternative): number {
  const pmf = nullDistribution(n);
  const mean = (n * (n + 1)) / 4;
  // SciPy sums the shorter tail and takes the complement of the other, for accuracy.
  const cdf = (k: number) => (k <= mean ? sum(pmf, 0, k + 1) : 1 - sum(pmf, k + 1, pmf.length));
  const sf = (k: number) => (k <= mean ? sum(pmf, k, pmf.length) : 1 - sum(pmf, 0, k));
  return alternative === 'less' ? cdf(Math.ceil(rPlus)) : sf(Math.floor(rPlus));
}

function everySignFlipP(ranked: Ranked, diffs: readonly number[], alternative: Alternative): number {
  const n = diffs.length;
  const observed = ranked.rPlus;
  const tolerance = Math.abs(observed) * Number.EPSILON * 100;
  let zeroHalf = 0;
  for (let i = 0; i < n; i++) if (diffs[i] === 0) zeroHalf += ranked.ranks[i]! / 2;
  let count = 0;
  const total = 2 ** n;
  for (let signs = 0; signs < total; signs++) {
    let statistic = zeroHalf;
    for (let i = 0; i < n; i++) {
      const d = diffs[i]!;
      if (d === 0) continue;
      const flipped = (signs >> i) & 1 ? -d : d;
      if (flipped > 0) statistic += ranked.ranks[i]!;
    }
    if (alternative === 'less' ? statistic <= observed + tolerance : statistic >= observed - tolerance)
      count++;
  }
  return count / total;
}

/** erfc(x), to about 1e-15: Taylor series of erf near zero, Lentz's continued fraction beyond. */
function erfc(x: number): number {
  if (x < 0) return 2 - erfc(-x);
  if (x < 2.5) {
    let term = x;
    let total = x;
    for (let k = 1; k < 200 && Math.abs(term) > 1e-17 * Math.abs(total); k++) {
      term *= (-x * x) / k;
      total += term / (2 * k + 1);
    }
    return 1 - (2 / Math.sqrt(Math.PI)) * total;
  }
  // erfc(x) = exp(-x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let k = 1; k < 300; k++) {
    const a = k / 2;
    d = x + a * d;
    d = Math.abs(d) < tiny ? tiny : d;
    c = x + a / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}

/** Standard normal: P(Z ≤ z). */
export const normalCdf = (z: number): number => 0.5 * erfc(-z / Math.SQRT2);

function asymptoticP(ranked: Ranked, n: number, alternative: Alternative): number {
  const mean = (n * (n + 1)) / 4;
  const se = Math.sqrt((n * (n + 1) * (2 * n + 1) - ranked.tieCorrection / 2) / 24);
  const z = (ranked.rPlus - mean) / se;
  return alternative === 'less' ? normalCdf(z) : normalCdf(-z);
}

/**
 * The p-value that the differences lean to `alternative` ('greater': the first sample is larger).
 * NaN for no differences.
 */
export function wilcoxonSignedRankP(diffs: readonly number[], alternative: Alternative): number {
  const n = diffs.length;
  if (n === 0) return Number.NaN;
  const ranked = rank(diffs);
  if (n <= 50 && !ranked.hasTies && ranked.zeros === 0) return exactP(ranked.rPlus, n, alternative);
  if (n <= 13) return everySignFlipP(ranked, diffs, alternative);
  return asymptoticP(ranked, n, alternative);
}
