// Gaussian-process regression with a Matérn 5/2 kernel and one length scale per input (ARD):
// inputs in the unit cube, outputs standardised by the caller. The signal variance, noise and
// length scales maximise the log marginal likelihood (plus a weak log-normal prior on the
// length scales, which keeps a 10-point fit from collapsing) by projected L-BFGS.

import { cholesky, solveLower, solveUpperTransposed } from './linalg.ts';

export interface GpModel {
  readonly dims: number;
  /** Posterior mean and standard deviation of the latent function at `x`. */
  predict(x: ArrayLike<number>): { mean: number; sd: number };
  /** predict at every point, with the same arithmetic in one pass (the triangular solve row by row). */
  predictMany(points: readonly ArrayLike<number>[]): { mean: number; sd: number }[];
  /** The same hyper-parameters conditioned on extra (fantasised) observations. */
  condition(xs: readonly ArrayLike<number>[], ys: readonly number[]): GpModel;
}

interface Hyper {
  readonly logScales: Float64Array;
  readonly logSignal: number;
  readonly logNoise: number;
}

const SQRT5 = Math.sqrt(5);
const LOG_SCALE_BOUNDS = [Math.log(0.01), Math.log(20)] as const;
const LOG_SIGNAL_BOUNDS = [Math.log(0.05), Math.log(20)] as const;
const LOG_NOISE_BOUNDS = [Math.log(1e-6), Math.log(1e-2)] as const;
const SCALE_PRIOR_MEAN = Math.log(0.5);
const SCALE_PRIOR_SD = 1.5;

export function fitGp(xs: readonly ArrayLike<number>[], ys: readonly number[], dims: number): GpModel {
  const n = xs.length;
  const sq = pairwiseSquares(xs, dims);
  const bounds: (readonly [number, number])[] = [
    ...Array.from({ length: dims }, () => LOG_SCALE_BOUNDS),
    LOG_SIGNAL_BOUNDS,
    LOG_NOISE_BOUNDS,
  ];
  const start = new Float64Array(dims + 2);
  start.fill(Math.log(0.5), 0, dims);
  start[dims] = 0;
  start[dims + 1] = Math.log(1e-3);
  const objective = (theta: Float64Array) => negativeLogPosterior(theta, sq, ys, n, dims);
  const theta = minimiseBounded(objective, start, bounds, 30);
  const hyper = toHyper(theta, dims);
  return buildModel(
    hyper,
    xs.map((x) => Float64Array.from(x)),
    ys,
    dims,
  );
}

function toHyper(theta: Float64Array, dims: number): Hyper {
  return { logScales: theta.slice(0, dims), logSignal: theta[dims]!, logNoise: theta[dims + 1]! };
}

/** Squared differences per input dimension, for every pair i > j: [pair][dim]. */
function pairwiseSquares(xs: readonly ArrayLike<number>[], dims: number): Float64Array {
  const n = xs.length;
  const out = new Float64Array(((n * (n - 1)) / 2) * dims);
  let p = 0;
  for (let i = 1; i < n; i++) {
    for (let j = 0; j < i; j++) {
      for (let d = 0; d < dims; d++) out[p++] = (xs[i]![d]! - xs[j]![d]!) ** 2;
    }
  }
  return out;
}

function negativeLogPosterior(
  theta: Float64Array,
  sq: Float64Array,
  ys: readonly number[],
  n: number,
  dims: number,
): Evaluation {
  const inverseScales2 = new Float64Array(dims);
  for (let d = 0; d < dims; d++) inverseScales2[d] = Math.exp(-2 * theta[d]!);
  const signal = Math.exp(theta[dims]!);
  const noise = Math.exp(theta[dims + 1]!);
  const k = new Float64Array(n * n);
  const shape = new Float64Array(n * n); // s²·(5/3)(1+√5r)e^(−√5r), shared by the length-scale derivatives
  let p = 0;
  for (let i = 0; i < n; i++) {
    k[i * n + i] = signal + noise;
    for (let j = 0; j < i; j++) {
      let r2 = 0;
      for (let d = 0; d < dims; d++) r2 += sq[p * dims + d]! * inverseScales2[d]!;
      p++;
      const r = Math.sqrt(r2);
      const e = Math.exp(-SQRT5 * r);
      const value = signal * (1 + SQRT5 * r + (5 / 3) * r2) * e;
      k[i * n + j] = value;
      k[j * n + i] = value;
      shape[i * n + j] = signal * (5 / 3) * (1 + SQRT5 * r) * e;
    }
  }
  const l = cholesky(k, n);
  if (!l) return { value: 1e10, gradient: () => new Float64Array(dims + 2) };
  const alpha = solveUpperTransposed(l, n, solveLower(l, n, ys, new Float64Array(n)), new Float64Array(n));
  let value = 0.5 * ys.reduce((s, y, i) => s + y * alpha[i]!, 0);
  for (let i = 0; i < n; i++) value += Math.log(l[i * n + i]!);
  for (let d = 0; d < dims; d++) value += 0.5 * ((theta[d]! - SCALE_PRIOR_MEAN) / SCALE_PRIOR_SD) ** 2;
  return { value, gradient: () => gradientOf(theta, sq, n, dims, k, shape, l, alpha) };
}

/** dNLL/dθ at the point whose kernel matrix, shape terms, Cholesky factor and α are given. */
function gradientOf(
  theta: Float64Array,
  sq: Float64Array,
  n: number,
  dims: number,
  k: Float64Array,
  shape: Float64Array,
  l: Float64Array,
  alpha: Float64Array,
): Float64Array {
  const inverseScales2 = new Float64Array(dims);
  for (let d = 0; d < dims; d++) inverseScales2[d] = Math.exp(-2 * theta[d]!);
  const signal = Math.exp(theta[dims]!);
  const noise = Math.exp(theta[dims + 1]!);
  const gradient = new Float64Array(dims + 2);
  // W = K⁻¹ − ααᵀ; dNLL/dθ = ½·tr(W·dK/dθ).
  const inverse = inverseFromCholesky(l, n);
  let p = 0;
  let traceSignal = 0;
  let traceNoise = 0;
  for (let i = 0; i < n; i++) {
    const wii = inverse[i * n + i]! - alpha[i]! * alpha[i]!;
    traceSignal += 0.5 * wii * signal;
    traceNoise += 0.5 * wii * noise;
    for (let j = 0; j < i; j++) {
      const w = inverse[i * n + j]! - alpha[i]! * alpha[j]!;
      traceSignal += w * k[i * n + j]!;
      const common = w * shape[i * n + j]!;
      for (let d = 0; d < dims; d++) gradient[d]! += common * sq[p * dims + d]! * inverseScales2[d]!;
      p++;
    }
  }
  gradient[dims] = traceSignal;
  gradient[dims + 1] = traceNoise;
  for (let d = 0; d < dims; d++)
    gradient[d]! += (theta[d]! - SCALE_PRIOR_MEAN) / SCALE_PRIOR_SD / SCALE_PRIOR_SD;
  return gradient;
}

/** The objective's value, and its gradient computed only when asked (it needs K⁻¹). */
interface Evaluation {
  readonly value: number;
  gradient(): Float64Array;
}

function inverseFromCholesky(l: Float64Array, n: number): Float64Array {
  // X = L⁻¹ row by row (X_i = (e_i − Σ_k L_ik·X_k) / L_ii, contiguous rows), then K⁻¹ = Xᵀ·X
  // through M = Xᵀ stored by rows, so that K⁻¹_ij = M_i · M_j.
  const x = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    const ri = i * n;
    for (let k = 0; k < i; k++) {
      const lik = l[ri + k]!;
      if (lik === 0) continue;
      const rk = k * n;
      for (let j = 0; j <= k; j++) x[ri + j]! -= lik * x[rk + j]!;
    }
    x[ri + i] = 1;
    const inv = 1 / l[ri + i]!;
    for (let j = 0; j <= i; j++) x[ri + j]! *= inv;
  }
  const m = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let k = i; k < n; k++) m[i * n + k] = x[k * n + i]!;
  const out = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    const ri = i * n;
    for (let j = 0; j <= i; j++) {
      const rj = j * n;
      let sum = 0;
      for (let k = i; k < n; k++) sum += m[ri + k]! * m[rj + k]!;
      out[ri + j] = sum;
      out[rj + i] = sum;
    }
  }
  return out;
}

function buildModel(hyper: Hyper, xs: readonly Float64Array[], ys: readonly number[], dims: number): GpModel {
  const n = xs.length;
  const inverseScales = hyper.logScales.map((v) => Math.exp(-v));
  const signal = Math.exp(hyper.logSignal);
  const noise = Math.exp(hyper.logNoise);
  const kernel = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
    let r2 = 0;
    for (let d = 0; d < dims; d++) r2 += ((a[d]! - b[d]!) * inverseScales[d]!) ** 2;
    const r = Math.sqrt(r2);
    return signal * (1 + SQRT5 * r + (5 / 3) * r2) * Math.exp(-SQRT5 * r);
  };
  const k = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      const value = kernel(xs[i]!, xs[j]!) + (i === j ? noise : 0);
      k[i * n + j] = value;
      k[j * n + i] = value;
    }
  }
  let l = cholesky(k, n);
  for (let jitter = noise; !l && jitter < signal; jitter *= 10) {
    for (let i = 0; i < n; i++) k[i * n + i]! += jitter;
    l = cholesky(k, n);
  }
  if (!l) throw new Error('covariance matrix is not positive definite');
  const alpha = solveUpperTransposed(l, n, solveLower(l, n, ys, new Float64Array(n)), new Float64Array(n));
  const ks = new Float64Array(n);
  const v = new Float64Array(n);
  return {
    dims,
    predict: (x) => {
      let mean = 0;
      for (let i = 0; i < n; i++) {
        ks[i] = kernel(x, xs[i]!);
        mean += ks[i]! * alpha[i]!;
      }
      solveLower(l, n, ks, v);
      let explained = 0;
      for (let i = 0; i < n; i++) explained += v[i]! * v[i]!;
      return { mean, sd: Math.sqrt(Math.max(signal - explained, 1e-12)) };
    },
    predictMany: (points) => {
      // Row i holds k(x_c, x_i) for every point c, solved in place into (L⁻¹·k)_i: each row of L
      // is read once for all points, where one solve per point streams all of L each time.
      const m = points.length;
      const rows = new Float64Array(n * m);
      const means = new Float64Array(m);
      for (let i = 0; i < n; i++) {
        const row = i * m;
        for (let c = 0; c < m; c++) {
          rows[row + c] = kernel(points[c]!, xs[i]!);
          means[c]! += rows[row + c]! * alpha[i]!;
        }
      }
      const explained = new Float64Array(m);
      for (let i = 0; i < n; i++) {
        const row = i * m;
        for (let k = 0; k < i; k++) {
          const lik = l[i * n + k]!;
          const from = k * m;
          for (let c = 0; c < m; c++) rows[row + c]! -= lik * rows[from + c]!;
        }
        const lii = l[i * n + i]!;
        for (let c = 0; c < m; c++) {
          rows[row + c]! /= lii;
          explained[c]! += rows[row + c]! * rows[row + c]!;
        }
      }
      return Array.from(means, (mean, c) => ({
        mean,
        sd: Math.sqrt(Math.max(signal - explained[c]!, 1e-12)),
      }));
    },
    condition: (extraXs, extraYs) =>
      buildModel(hyper, [...xs, ...extraXs.map((x) => Float64Array.from(x))], [...ys, ...extraYs], dims),
  };
}

/**
 * Projected L-BFGS (memory 6) with Armijo backtracking, for smooth objectives on a box. The
 * gradient (K⁻¹: twice the cost of the value's Cholesky factorisation) is computed only at the
 * points the line search accepts, not at the rejected backtracking steps.
 */
function minimiseBounded(
  f: (x: Float64Array) => Evaluation,
  start: Float64Array,
  bounds: readonly (readonly [number, number])[],
  maxIterations: number,
): Float64Array {
  const m = 6;
  const dim = start.length;
  const project = (x: Float64Array): Float64Array =>
    x.map((v, i) => Math.min(bounds[i]![1], Math.max(bounds[i]![0], v)));
  let x: Float64Array = project(start);
  let evaluation = f(x);
  let current = { value: evaluation.value, gradient: evaluation.gradient() };
  const ss: Float64Array[] = [];
  const yy: Float64Array[] = [];
  for (let iteration = 0; iteration < maxIterations; iteration++) {
    const g = current.gradient;
    // Two-loop recursion for the quasi-Newton direction.
    const q = Float64Array.from(g);
    const alphas: number[] = [];
    for (let i = ss.length - 1; i >= 0; i--) {
      const rho = 1 / dot(yy[i]!, ss[i]!);
      const a = rho * dot(ss[i]!, q);
      alphas[i] = a;
      for (let j = 0; j < dim; j++) q[j]! -= a * yy[i]![j]!;
    }
    const gamma = ss.length ? dot(ss.at(-1)!, yy.at(-1)!) / dot(yy.at(-1)!, yy.at(-1)!) : 0.1;
    for (let j = 0; j < dim; j++) q[j]! *= gamma;
    for (let i = 0; i < ss.length; i++) {
      const rho = 1 / dot(yy[i]!, ss[i]!);
      const b = rho * dot(yy[i]!, q);
      for (let j = 0; j < dim; j++) q[j]! += ss[i]![j]! * (alphas[i]! - b);
    }
    let step = 1;
    let next: Float64Array | undefined;
    let evaluated: { value: number; gradient: Float64Array } | undefined;
    for (let tries = 0; tries < 12; tries++, step *= 0.4) {
      const candidate = project(x.map((v, j) => v - step * q[j]!));
      const decrease = dot(
        g,
        x.map((v, j) => v - candidate[j]!),
      );
      evaluation = f(candidate);
      if (evaluation.value <= current.value - 1e-4 * Math.max(decrease, 0)) {
        next = candidate;
        evaluated = { value: evaluation.value, gradient: evaluation.gradient() };
        break;
      }
    }
    if (!next || !evaluated) break;
    const s = next.map((v, j) => v - x[j]!);
    const y = evaluated.gradient.map((v, j) => v - g[j]!);
    const improvement = current.value - evaluated.value;
    x = next;
    current = evaluated;
    if (dot(s, y) > 1e-10) {
      ss.push(s);
      yy.push(y);
      if (ss.length > m) {
        ss.shift();
        yy.shift();
      }
    }
    if (improvement < 1e-7 * Math.max(1, Math.abs(current.value))) break;
  }
  return x;
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}
