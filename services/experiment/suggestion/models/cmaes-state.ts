// One CMA-ES run (Hansen's tutorial, arXiv:1604.00772, with its default constants) on the
// numeric axes of the unit cube: the distribution N(mean, sigma²·C), how a generation's
// evaluated points update it, and when the run has nothing left to learn.

import type { Rng } from '../rng.ts';
import { symmetricEigen } from './linalg.ts';

export interface EsState {
  readonly n: number;
  readonly lambda: number;
  mean: Float64Array;
  sigma: number;
  /** Covariance C (row-major), its eigenvectors B and the square roots D of its eigenvalues. */
  cov: Float64Array;
  basis: Float64Array;
  scales: Float64Array;
  pathC: Float64Array;
  pathSigma: Float64Array;
  generation: number;
  readonly constants: Constants;
}

interface Constants {
  readonly mu: number;
  /** λ weights by rank: the μ best positive (summing to 1), the rest negative (active CMA) or 0. */
  readonly weights: Float64Array;
  /** The negative weights' sum (0 without active CMA): what they take from C's decay. */
  readonly negativeSum: number;
  readonly muEff: number;
  readonly cc: number;
  readonly cs: number;
  readonly c1: number;
  readonly cmu: number;
  /** c_μ once the distribution has narrowed (see covarianceRate); cmu where that does not apply. */
  readonly cmuNarrowed: number;
  /** The largest standard deviation below which the run counts as narrowed: a tenth of σ0. */
  readonly narrowSpread: number;
  readonly damps: number;
  readonly chiN: number;
}

export function defaultPopulation(n: number): number {
  return 4 + Math.floor(3 * Math.log(n));
}

/** Hansen's c_μ for a population of this μ_eff, before its bound by 1 − c1. */
const rankMuRate = (n: number, muEff: number) => (2 * (muEff - 2 + 1 / muEff)) / ((n + 2) ** 2 + muEff);

/** The log-rank weights of all λ, the positive part normalised, and its μ_eff. */
function rankWeights(lambda: number, active: boolean) {
  const mu = Math.floor(lambda / 2);
  // Active CMA ranks all λ from ln((λ+1)/2) (Hansen's tutorial); the positive-only form from ln(μ+½).
  const top = active ? Math.log((lambda + 1) / 2) : Math.log(mu + 0.5);
  const raw = Array.from({ length: lambda }, (_, i) => top - Math.log(i + 1));
  const total = raw.slice(0, mu).reduce((s, w) => s + w, 0);
  const positive = raw.slice(0, mu).map((w) => w / total);
  const muEff = 1 / positive.reduce((s, w) => s + w * w, 0);
  return { mu, raw, positive, muEff };
}

/** Hansen's default population's c_μ per evaluation, scaled to λ (0 at or above the default). */
function perEvaluationRate(n: number, lambda: number): number {
  const standard = defaultPopulation(n);
  if (lambda >= standard) return 0;
  return (rankMuRate(n, rankWeights(standard, true).muEff) * lambda) / standard;
}

/**
 * Active runs of 3 to 9 axes with fewer than Hansen's default λ learn C at his default
 * population's rate per evaluation (its c_μ scaled by λ/λ_default) rather than the smaller rate
 * of their own μ_eff: five a generation otherwise learn a 5-D valley (ellipsoid, discus) two
 * times more slowly than the default would. In 10-D it slowed the sphere and Rosenbrock (30 seeds).
 */
const fromTheStart = (n: number, active: boolean) => active && n >= 3 && n < 10;

/**
 * In 2-D the faster rate from the start settled half the Schaffer runs (f17) on a ring; once the
 * run has narrowed to a tenth of σ0 it is inside one basin, and learning that basin's shape at the
 * faster rate converges ill-conditioned valleys (discus, bent cigar, sharp ridge) 10–100× closer
 * by 500 trials (BBOB, 10 and 20 seeds).
 */
const onceNarrowed = (n: number, active: boolean) => active && n === 2;

export function createEs(
  n: number,
  lambda: number,
  mean: Float64Array,
  sigma: number,
  active = false,
): EsState {
  const { mu, raw, positive, muEff } = rankWeights(lambda, active);
  const cc = (4 + muEff / n) / (n + 4 + (2 * muEff) / n);
  const cs = (muEff + 2) / (n + muEff + 5);
  const c1 = 2 / ((n + 1.3) ** 2 + muEff);
  const own = rankMuRate(n, muEff);
  const faster = Math.max(own, perEvaluationRate(n, lambda));
  const cmu = Math.min(1 - c1, fromTheStart(n, active) ? faster : own);
  const cmuNarrowed = onceNarrowed(n, active) ? Math.min(1 - c1, faster) : cmu;
  const negative = active ? raw.slice(mu) : [];
  const negativeTotal = -negative.reduce((s, w) => s + w, 0);
  const muEffMinus = negativeTotal ** 2 / negative.reduce((s, w) => s + w * w, 0);
  // Hansen's tutorial, (53)-(55): the negative weights' total, bounded so C stays positive definite.
  const alphaMinus = Math.min(1 + c1 / cmu, 1 + (2 * muEffMinus) / (muEff + 2), (1 - c1 - cmu) / (n * cmu));
  const weights = Float64Array.from({ length: lambda }, (_, i) =>
    i < mu ? positive[i]! : negativeTotal > 0 ? (alphaMinus * negative[i - mu]!) / negativeTotal : 0,
  );
  const negativeSum = weights.reduce((s, w) => s + Math.min(0, w), 0);
  const damps = 1 + 2 * Math.max(0, Math.sqrt((muEff - 1) / (n + 1)) - 1) + cs;
  const chiN = Math.sqrt(n) * (1 - 1 / (4 * n) + 1 / (21 * n * n));
  const identity = new Float64Array(n * n);
  for (let i = 0; i < n; i++) identity[i * n + i] = 1;
  return {
    n,
    lambda,
    mean: Float64Array.from(mean),
    sigma,
    cov: Float64Array.from(identity),
    basis: identity,
    scales: new Float64Array(n).fill(1),
    pathC: new Float64Array(n),
    pathSigma: new Float64Array(n),
    generation: 0,
    constants: {
      mu,
      weights,
      negativeSum,
      muEff,
      cc,
      cs,
      c1,
      cmu,
      cmuNarrowed,
      narrowSpread: sigma / 10,
      damps,
      chiN,
    },
  };
}

/** A copy that evolves on its own (the constants are never changed, so they are shared). */
export function cloneEs(state: EsState): EsState {
  return {
    ...state,
    mean: Float64Array.from(state.mean),
    cov: Float64Array.from(state.cov),
    basis: Float64Array.from(state.basis),
    scales: Float64Array.from(state.scales),
    pathC: Float64Array.from(state.pathC),
    pathSigma: Float64Array.from(state.pathSigma),
  };
}

/** A draw from N(mean, sigma²·C), resampled while outside the cube and clipped after 100 tries. */
export function sampleEs(state: EsState, rng: Rng): Float64Array {
  const { n, basis, scales } = state;
  const x = new Float64Array(n);
  for (let attempt = 0; attempt < 100; attempt++) {
    const z = Array.from({ length: n }, () => rng.normal());
    let inside = true;
    for (let i = 0; i < n; i++) {
      let y = 0;
      for (let j = 0; j < n; j++) y += basis[i * n + j]! * scales[j]! * z[j]!;
      x[i] = state.mean[i]! + state.sigma * y;
      if (x[i]! < 0 || x[i]! > 1) inside = false;
    }
    if (inside) return x;
  }
  return x.map((v) => Math.min(1, Math.max(0, v)));
}

/** The rank-μ rate of this generation's update: the narrowed rate once σ·max(D) < σ0/10. */
export function covarianceRate(state: EsState): number {
  const k = state.constants;
  if (k.cmuNarrowed === k.cmu) return k.cmu;
  return state.sigma * Math.max(...state.scales) < k.narrowSpread ? k.cmuNarrowed : k.cmu;
}

/** The points' indices, best (least loss) first; ties keep the told order. */
export const rankOrder = (losses: readonly number[]): number[] =>
  losses.map((_, i) => i).sort((a, b) => losses[a]! - losses[b]! || a - b);

/** C^(-1/2)·v = B·D⁻¹·Bᵀ·v. */
function whiten(state: EsState, v: Float64Array): Float64Array {
  const { n, basis, scales } = state;
  const t = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += basis[i * n + j]! * v[i]!;
    t[j] = s / scales[j]!;
  }
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += basis[i * n + j]! * t[j]!;
    out[i] = s;
  }
  return out;
}

/**
 * Updates the state with one generation of evaluated points (any order). Points that were not
 * drawn from the current distribution (rounded, clipped, or from elsewhere) enter with their
 * Mahalanobis step shortened to a plausible length, as pycma does for injected solutions.
 */
export function tellEs(state: EsState, points: readonly Float64Array[], losses: readonly number[]): void {
  const { n, constants: k } = state;
  const maxStep = Math.sqrt(n) + (2 * n) / (n + 2);
  const steps = points.map((x) => {
    const y = Float64Array.from(x, (v, i) => (v - state.mean[i]!) / state.sigma);
    const length = Math.hypot(...whiten(state, y));
    return length > maxStep ? y.map((v) => (v * maxStep) / length) : y;
  });
  const order = rankOrder(losses);
  const yw = new Float64Array(n);
  for (let r = 0; r < k.mu && r < order.length; r++) {
    const y = steps[order[r]!]!;
    for (let i = 0; i < n; i++) yw[i]! += k.weights[r]! * y[i]!;
  }
  for (let i = 0; i < n; i++) state.mean[i]! += state.sigma * yw[i]!;
  const white = whiten(state, yw);
  const csFactor = Math.sqrt(k.cs * (2 - k.cs) * k.muEff);
  for (let i = 0; i < n; i++) state.pathSigma[i] = (1 - k.cs) * state.pathSigma[i]! + csFactor * white[i]!;
  const psNorm = Math.hypot(...state.pathSigma);
  state.generation += 1;
  const hsig =
    psNorm / Math.sqrt(1 - (1 - k.cs) ** (2 * state.generation)) / k.chiN < 1.4 + 2 / (n + 1) ? 1 : 0;
  const ccFactor = Math.sqrt(k.cc * (2 - k.cc) * k.muEff);
  for (let i = 0; i < n; i++) state.pathC[i] = (1 - k.cc) * state.pathC[i]! + hsig * ccFactor * yw[i]!;
  // Active CMA: a worse point's weight is scaled by n/‖C^(-1/2)·y‖², so a long step cannot shrink C too far.
  const weightsIO = order.map((index, r) => {
    const w = k.weights[r] ?? 0;
    if (w >= 0) return w;
    const squared = whiten(state, steps[index]!).reduce((sum, v) => sum + v * v, 0);
    return (w * n) / Math.max(1e-20, squared);
  });
  const cmu = covarianceRate(state);
  const decay = 1 - k.c1 - cmu * (1 + k.negativeSum) + (1 - hsig) * k.c1 * k.cc * (2 - k.cc);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let rankMu = 0;
      for (let r = 0; r < order.length; r++) {
        const w = weightsIO[r]!;
        if (w === 0) continue;
        const y = steps[order[r]!]!;
        rankMu += w * y[i]! * y[j]!;
      }
      const value = decay * state.cov[i * n + j]! + k.c1 * state.pathC[i]! * state.pathC[j]! + cmu * rankMu;
      state.cov[i * n + j] = value;
      state.cov[j * n + i] = value;
    }
  }
  state.sigma *= Math.exp(Math.min(1, (k.cs / k.damps) * (psNorm / k.chiN - 1)));
  // Flat fitness (the best and the ⌈0.7λ⌉-th best alike: a plateau, or a step too small for a
  // rounded parameter): the step grows, as in Hansen's reference code, or the run stays put.
  const flatRank = Math.min(order.length, Math.ceil(0.7 * state.lambda)) - 1;
  if (flatRank > 0 && losses[order[0]!] === losses[order[flatRank]!])
    state.sigma *= Math.exp(0.2 + k.cs / k.damps);
  const { values, vectors } = symmetricEigen(state.cov, n);
  state.basis = vectors;
  state.scales = values.map((v) => Math.sqrt(Math.max(v, 1e-20)));
}

/** Whether the run has converged or degenerated (Hansen's TolX, TolFun on one generation, ConditionCov). */
export function shouldRestart(state: EsState, losses: readonly number[], sigma0: number): boolean {
  const { n, cov, scales } = state;
  const spread = Math.max(...losses) - Math.min(...losses);
  if (spread <= 1e-12 * Math.max(1, Math.abs(Math.min(...losses)))) return true;
  let widest = 0;
  for (let i = 0; i < n; i++) widest = Math.max(widest, state.sigma * Math.sqrt(cov[i * n + i]!));
  if (widest < 1e-12 * sigma0) return true;
  const condition = (Math.max(...scales) / Math.min(...scales)) ** 2;
  return condition > 1e14;
}
