// Parzen estimators over the unit cube, as Optuna's TPE builds them: one kernel per observation
// plus a wide prior kernel, truncated Gaussians on numeric axes (probability of the whole cell
// on stepped axes) and smoothed one-hot tables on categorical axes. A numeric kernel's bandwidth
// is its larger gap to a neighbouring observation, as Optuna 5.0 sets it whether or not it scores
// the axes jointly, or, with scottsRule, one width for every kernel (Optuna 3's multivariate
// bandwidth, see SCOTT_FACTOR).

import type { Rng } from '../rng.ts';
import { logSumExp, normalCdf, normalLogPdf, normalQuantile, sampleIndex } from './numeric.ts';
import type { Axis, NumericAxis } from './unit-space.ts';

/** A point encoded for the estimator: a unit coordinate per numeric axis, a choice index per categorical one. */
export type Encoded = readonly number[];

export interface ParzenOptions {
  readonly priorWeight: number;
  /** One bandwidth for every numeric kernel, by Scott's rule, instead of the neighbour gaps. */
  readonly scottsRule: boolean;
}

export interface Parzen {
  sampleJoint(rng: Rng): number[];
  logDensityJoint(point: Encoded): number;
  /** One axis's marginal: a draw of axis d alone, and its log density at `value`. */
  sampleAxis(d: number, rng: Rng): number;
  logDensityAxis(d: number, value: number): number;
}

type AxisKernels =
  | { kind: 'numeric'; axis: NumericAxis; mu: Float64Array; sigma: Float64Array; logMass: Float64Array }
  | { kind: 'categorical'; logTable: Float64Array[]; table: Float64Array[] };

/**
 * Scott's-rule factor of the product kernels. Optuna 3 used 0.2; with the good group weighted by
 * rank (./tpe-core.ts) 0.07 beat 0.035, 0.05, 0.1 and 0.15 on Branin and Hartmann-6 (20 seeds).
 */
const SCOTT_FACTOR = 0.07;
const TINY = 1e-300;

/** `points` with their `weights` (same length, not normalised); the prior kernel is added last. */
export function buildParzen(
  axes: readonly Axis[],
  points: readonly Encoded[],
  weights: readonly number[],
  options: ParzenOptions,
): Parzen {
  const n = points.length;
  const components = n + 1;
  const logWeights = new Float64Array(components);
  const rawWeights = [...weights, options.priorWeight];
  const total = rawWeights.reduce((sum, w) => sum + w, 0);
  for (let k = 0; k < components; k++) logWeights[k] = Math.log(rawWeights[k]! / total);
  const linearWeights = Float64Array.from(logWeights, Math.exp);
  const numericAxes = axes.filter((axis) => axis.kind === 'numeric').length;

  const kernels: AxisKernels[] = axes.map((axis, d) => {
    const values = points.map((point) => point[d]!);
    if (axis.kind === 'categorical')
      return categoricalKernels(axis.choices.length, values, options.priorWeight);
    const sigma = options.scottsRule
      ? new Float64Array(n).fill(SCOTT_FACTOR * Math.max(n, 1) ** (-1 / (numericAxes + 4)))
      : neighbourSigmas(values);
    const minSigma = 1 / Math.min(100, 1 + components);
    const mu = new Float64Array(components);
    const sigmas = new Float64Array(components);
    const logMass = new Float64Array(components);
    for (let k = 0; k < components; k++) {
      mu[k] = k < n ? values[k]! : 0.5;
      sigmas[k] = k < n ? Math.min(1, Math.max(minSigma, sigma[k]!)) : 1;
      logMass[k] = Math.log(Math.max(TINY, massBetween(0, 1, mu[k]!, sigmas[k]!)));
    }
    return { kind: 'numeric', axis, mu, sigma: sigmas, logMass };
  });

  const sampleFrom = (d: number, k: number, rng: Rng): number => {
    const kernel = kernels[d]!;
    if (kernel.kind === 'categorical') return sampleIndex(kernel.table[k]!, rng.next());
    return truncatedNormal(kernel.mu[k]!, kernel.sigma[k]!, rng);
  };

  // log σ per numeric kernel, computed once: the joint density below is the hot loop of TPE.
  const logSigmas = kernels.map((kernel) =>
    kernel.kind === 'numeric' ? kernel.sigma.map(Math.log) : new Float64Array(0),
  );
  const terms = new Float64Array(components);

  /** Adds axis d's log kernel values at `value` to terms[k], for every component k. */
  const addAxis = (d: number, value: number): void => {
    const kernel = kernels[d]!;
    if (kernel.kind === 'categorical') {
      for (let k = 0; k < components; k++) terms[k]! += kernel.logTable[k]![value]!;
      return;
    }
    const { mu, sigma, logMass } = kernel;
    const [lo, hi] = kernel.axis.cellOf(value);
    if (lo === hi) {
      const logSigma = logSigmas[d]!;
      for (let k = 0; k < components; k++)
        terms[k]! += normalLogPdf((value - mu[k]!) / sigma[k]!) - logSigma[k]! - logMass[k]!;
      return;
    }
    for (let k = 0; k < components; k++)
      terms[k]! += Math.log(Math.max(TINY, massBetween(lo, hi, mu[k]!, sigma[k]!))) - logMass[k]!;
  };

  return {
    sampleJoint: (rng) => {
      const k = sampleIndex(linearWeights, rng.next());
      return axes.map((_, d) => sampleFrom(d, k, rng));
    },
    logDensityJoint: (point) => {
      terms.set(logWeights);
      for (let d = 0; d < axes.length; d++) addAxis(d, point[d]!);
      return logSumExp(terms);
    },
    sampleAxis: (d, rng) => sampleFrom(d, sampleIndex(linearWeights, rng.next()), rng),
    logDensityAxis: (d, value) => {
      terms.set(logWeights);
      addAxis(d, value);
      return logSumExp(terms);
    },
  };
}

/**
 * Optuna 5.0's univariate bandwidth: the larger gap to a neighbour among the observations (the
 * prior at 0.5 no longer counts as one, as it did in Optuna 3: that widened the kernels near the
 * centre and cost Hartmann-6 a third of its regret).
 */
function neighbourSigmas(values: readonly number[]): Float64Array {
  const order = values.map((_, i) => i).sort((a, b) => values[a]! - values[b]! || a - b);
  const sorted = [0, ...order.map((i) => values[i]!), 1];
  const m = order.length;
  const sigma = new Float64Array(values.length);
  for (let j = 0; j < m; j++) {
    let gap = Math.max(sorted[j + 1]! - sorted[j]!, sorted[j + 2]! - sorted[j + 1]!);
    // The cube's edges are not neighbours (Optuna's consider_endpoints=False).
    if (m >= 2 && j === 0) gap = sorted[2]! - sorted[1]!;
    if (m >= 2 && j === m - 1) gap = sorted[m]! - sorted[m - 1]!;
    sigma[order[j]!] = gap;
  }
  return sigma;
}

function categoricalKernels(choices: number, values: readonly number[], priorWeight: number): AxisKernels {
  const components = values.length + 1;
  const smoothing = priorWeight / components;
  const table: Float64Array[] = [];
  for (let k = 0; k < components; k++) {
    const row = new Float64Array(choices).fill(smoothing);
    if (k < values.length) row[values[k]!]! += 1;
    const sum = row.reduce((s, w) => s + w, 0);
    for (let c = 0; c < choices; c++) row[c]! /= sum;
    table.push(row);
  }
  return { kind: 'categorical', table, logTable: table.map((row) => row.map(Math.log)) };
}

/** P(lo ≤ X ≤ hi) for X ~ N(mu, sigma), computed on the side where the tails are not cancelled. */
function massBetween(lo: number, hi: number, mu: number, sigma: number): number {
  const a = (lo - mu) / sigma;
  const b = (hi - mu) / sigma;
  return a > 0 ? normalCdf(-a) - normalCdf(-b) : normalCdf(b) - normalCdf(a);
}

function truncatedNormal(mu: number, sigma: number, rng: Rng): number {
  const a = normalCdf(-mu / sigma);
  const b = normalCdf((1 - mu) / sigma);
  const p = a + rng.next() * (b - a);
  const value = mu + sigma * normalQuantile(Math.min(1 - 1e-16, Math.max(1e-300, p)));
  return Math.min(1, Math.max(0, value));
}
