// f15–f24 of BBOB 2009: multimodal functions with adequate and with weak global structure.
import type { Instance } from './instance.ts';
import {
  asymmetric,
  minus,
  multiply,
  oscillate,
  oscillateAll,
  penalty,
  rastriginTerm,
  scaleAxes,
  sumOfSquares,
  type Vector,
} from './transforms.ts';
import type { Objective } from './unimodal.ts';

const rotate = (p: Instance, x: Vector) => multiply(p.rotationR, minus(x, p.xOpt));

export const rastriginRotated =
  (p: Instance): Objective =>
  (x) => {
    const inner = multiply(p.rotationQ, asymmetric(oscillateAll(rotate(p, x)), 0.2));
    return rastriginTerm(multiply(p.rotationR, scaleAxes(inner, 10))) + p.fOpt;
  };

const WEIERSTRASS_TERMS = 12;
const weierstrassSum = (v: number) => {
  let sum = 0;
  for (let k = 0; k < WEIERSTRASS_TERMS; k++) sum += 0.5 ** k * Math.cos(2 * Math.PI * 3 ** k * (v + 0.5));
  return sum;
};
const WEIERSTRASS_OFFSET = weierstrassSum(0);

export const weierstrass =
  (p: Instance): Objective =>
  (x) => {
    const inner = multiply(p.rotationQ, oscillateAll(rotate(p, x)));
    const z = multiply(p.rotationR, scaleAxes(inner, 0.01));
    const mean = z.reduce((s, v) => s + weierstrassSum(v), 0) / z.length;
    return 10 * (mean - WEIERSTRASS_OFFSET) ** 3 + (10 / x.length) * penalty(x) + p.fOpt;
  };

const schaffers =
  (alpha: number) =>
  (p: Instance): Objective =>
  (x) => {
    const z = scaleAxes(multiply(p.rotationQ, asymmetric(rotate(p, x), 0.5)), alpha);
    let sum = 0;
    for (let i = 0; i < z.length - 1; i++) {
      const s = Math.sqrt(z[i]! ** 2 + z[i + 1]! ** 2);
      sum += Math.sqrt(s) * (1 + Math.sin(50 * s ** 0.2) ** 2);
    }
    return (sum / (z.length - 1)) ** 2 + 10 * penalty(x) + p.fOpt;
  };
export const schaffersF7 = schaffers(10);
export const schaffersF7IllConditioned = schaffers(1000);

/** Like the rotated Rosenbrock, it has no x_opt of its own. */
export const griewankRosenbrock =
  (p: Instance): Objective =>
  (x) => {
    const c = Math.max(1, Math.sqrt(x.length) / 8);
    const z = multiply(p.rotationR, x).map((v) => c * v + 0.5);
    let sum = 0;
    for (let i = 0; i < z.length - 1; i++) {
      const s = 100 * (z[i]! ** 2 - z[i + 1]!) ** 2 + (z[i]! - 1) ** 2;
      sum += s / 4000 - Math.cos(s);
    }
    return (10 / (z.length - 1)) * sum + 10 + p.fOpt;
  };

export const SCHWEFEL_OPTIMUM = 4.2096874633 / 2;

/** x_opt is ±4.2096874633/2 per coordinate; its signs flip the axes first. */
export const schwefel =
  (p: Instance): Objective =>
  (x) => {
    const twice = p.xOpt.map((v) => 2 * Math.abs(v));
    const xHat = x.map((v, i) => 2 * Math.sign(p.xOpt[i]!) * v);
    const zHat = xHat.map((v, i) => (i === 0 ? v : v + 0.25 * (xHat[i - 1]! - twice[i - 1]!)));
    const z = scaleAxes(minus(zHat, twice), 10).map((v, i) => 100 * (v + twice[i]!));
    const sum = z.reduce((s, v) => s + v * Math.sin(Math.sqrt(Math.abs(v))), 0);
    return -sum / (100 * x.length) + 4.189828872724339 + 100 * penalty(z.map((v) => v / 100)) + p.fOpt;
  };

interface Peak {
  readonly center: Vector;
  readonly weight: number;
  readonly scales: Vector;
}

/** Gallagher's peaks: the first one is the global optimum (at x_opt); the others are local. */
function gallagherPeaks(p: Instance, count: number, topConditioning: number, range: number): Peak[] {
  const draws = p.extra(count * (2 * p.dims + 2));
  let at = 0;
  const exponents = Array.from({ length: count - 1 }, (_, j) => (2 * j) / (count - 2));
  // The local peaks take the conditionings in a random order, without repeats.
  const order = exponents.map((e) => ({ e, key: draws[at++]! })).sort((a, b) => a.key - b.key);
  return Array.from({ length: count }, (_, i) => {
    const alpha = i === 0 ? topConditioning : 1000 ** order[i - 1]!.e;
    const diagonal = Array.from(
      { length: p.dims },
      (_, k) => alpha ** (0.5 * (k / (p.dims - 1))) / alpha ** 0.25,
    );
    // Each peak permutes its axis scales.
    const keys = diagonal.map(() => draws[at++]!);
    const scales = diagonal.map(
      (_, k) => diagonal[keys.map((_, j) => j).sort((a, b) => keys[a]! - keys[b]!)[k]!]!,
    );
    const center = i === 0 ? p.xOpt : Array.from({ length: p.dims }, () => (2 * draws[at++]! - 1) * range);
    return { center, weight: i === 0 ? 10 : 1.1 + (8 * (i - 1)) / (count - 2), scales };
  });
}

const gallagher =
  (count: number, topConditioning: number, range: number) =>
  (p: Instance): Objective => {
    const peaks = gallagherPeaks(p, count, topConditioning, range).map((peak) => ({
      ...peak,
      center: multiply(p.rotationR, peak.center),
    }));
    return (x) => {
      const rx = multiply(p.rotationR, x);
      let best = 0;
      for (const peak of peaks) {
        const d = rx.reduce((s, v, k) => s + peak.scales[k]! * (v - peak.center[k]!) ** 2, 0);
        best = Math.max(best, peak.weight * Math.exp(-d / (2 * x.length)));
      }
      return oscillate(10 - best) ** 2 + penalty(x) + p.fOpt;
    };
  };
export const gallagher101 = gallagher(101, 1000, 5);
export const gallagher21 = gallagher(21, 1000 ** 2, 4.9);

export const katsuura =
  (p: Instance): Objective =>
  (x) => {
    const z = multiply(p.rotationQ, scaleAxes(rotate(p, x), 100));
    const n = x.length;
    let product = 1;
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let j = 1; j <= 32; j++) {
        const t = 2 ** j * z[i]!;
        sum += Math.abs(t - Math.round(t)) / 2 ** j;
      }
      product *= (1 + (i + 1) * sum) ** (10 / n ** 1.2);
    }
    return (10 / n ** 2) * (product - 1) + penalty(x) + p.fOpt;
  };

export const LUNACEK_MU0 = 2.5;

/** x_opt is ±mu0/2 per coordinate; its signs flip the axes. */
export const lunacekBiRastrigin =
  (p: Instance): Objective =>
  (x) => {
    const n = x.length;
    const s = 1 - 1 / (2 * Math.sqrt(n + 20) - 8.2);
    const mu1 = -Math.sqrt((LUNACEK_MU0 ** 2 - 1) / s);
    const xHat = x.map((v, i) => 2 * Math.sign(p.xOpt[i]!) * v);
    const shifted = xHat.map((v) => v - LUNACEK_MU0);
    const z = multiply(p.rotationQ, scaleAxes(multiply(p.rotationR, shifted), 100));
    const cosines = z.reduce((sum, v) => sum + Math.cos(2 * Math.PI * v), 0);
    const near = sumOfSquares(shifted);
    const far = n + s * xHat.reduce((sum, v) => sum + (v - mu1) ** 2, 0);
    return Math.min(near, far) + 10 * (n - cosines) + 1e4 * penalty(x) + p.fOpt;
  };
