// f1–f14 of BBOB 2009: separable, moderately conditioned and ill-conditioned unimodal functions.
import type { Instance } from './instance.ts';
import {
  asymmetric,
  conditioning,
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

export type Objective = (x: Vector) => number;

const weight = (exponent: number, i: number, dims: number) => 10 ** ((exponent * i) / (dims - 1));

const ellipsoid = (z: Vector) => z.reduce((s, v, i) => s + weight(6, i, z.length) * v * v, 0);

const rosenbrockSum = (z: Vector) => {
  let sum = 0;
  for (let i = 0; i < z.length - 1; i++) sum += 100 * (z[i]! ** 2 - z[i + 1]!) ** 2 + (z[i]! - 1) ** 2;
  return sum;
};

export const sphere =
  (p: Instance): Objective =>
  (x) =>
    sumOfSquares(minus(x, p.xOpt)) + p.fOpt;

export const ellipsoidSeparable =
  (p: Instance): Objective =>
  (x) =>
    ellipsoid(oscillateAll(minus(x, p.xOpt))) + p.fOpt;

export const rastriginSeparable =
  (p: Instance): Objective =>
  (x) =>
    rastriginTerm(scaleAxes(asymmetric(oscillateAll(minus(x, p.xOpt)), 0.2), 10)) + p.fOpt;

export const buecheRastrigin =
  (p: Instance): Objective =>
  (x) => {
    const z = minus(x, p.xOpt).map((v, i) => {
      const t = oscillate(v);
      // Odd coordinates (1-based) get ten times the scale on their positive side.
      const scale = t > 0 && i % 2 === 0 ? 10 * conditioning(10, i, x.length) : conditioning(10, i, x.length);
      return scale * t;
    });
    return rastriginTerm(z) + 100 * penalty(x) + p.fOpt;
  };

export const linearSlope =
  (p: Instance): Objective =>
  (x) => {
    let sum = 0;
    for (let i = 0; i < x.length; i++) {
      const opt = p.xOpt[i]!;
      // Beyond the optimum's bound the slope is flat: the optimum is the corner of the box.
      const z = opt * x[i]! < 25 ? x[i]! : opt;
      const s = Math.sign(opt) * weight(1, i, x.length);
      sum += 5 * Math.abs(s) - s * z;
    }
    return sum + p.fOpt;
  };

const rotatedScaled = (p: Instance, x: Vector, alpha: number) =>
  multiply(p.rotationQ, scaleAxes(multiply(p.rotationR, minus(x, p.xOpt)), alpha));

export const attractiveSector =
  (p: Instance): Objective =>
  (x) => {
    const z = rotatedScaled(p, x, 10);
    const sum = z.reduce((s, v, i) => s + ((v * p.xOpt[i]! > 0 ? 100 : 1) * v) ** 2, 0);
    return oscillate(sum) ** 0.9 + p.fOpt;
  };

export const stepEllipsoid =
  (p: Instance): Objective =>
  (x) => {
    const zHat = scaleAxes(multiply(p.rotationR, minus(x, p.xOpt)), 10);
    const rounded = zHat.map((v) =>
      Math.abs(v) > 0.5 ? Math.floor(0.5 + v) : Math.floor(0.5 + 10 * v) / 10,
    );
    const z = multiply(p.rotationQ, rounded);
    const sum = z.reduce((s, v, i) => s + weight(2, i, z.length) * v * v, 0);
    return 0.1 * Math.max(Math.abs(zHat[0]!) / 1e4, sum) + penalty(x) + p.fOpt;
  };

const rosenbrockScale = (dims: number) => Math.max(1, Math.sqrt(dims) / 8);

export const rosenbrock =
  (p: Instance): Objective =>
  (x) => {
    const c = rosenbrockScale(x.length);
    return rosenbrockSum(minus(x, p.xOpt).map((v) => c * v + 1)) + p.fOpt;
  };

/** The rotated Rosenbrock has no x_opt of its own: its optimum is where R x lands on 1/(2c). */
export const rosenbrockRotated =
  (p: Instance): Objective =>
  (x) => {
    const c = rosenbrockScale(x.length);
    return rosenbrockSum(multiply(p.rotationR, x).map((v) => c * v + 0.5)) + p.fOpt;
  };

export const ellipsoidRotated =
  (p: Instance): Objective =>
  (x) =>
    ellipsoid(oscillateAll(multiply(p.rotationR, minus(x, p.xOpt)))) + p.fOpt;

export const discus =
  (p: Instance): Objective =>
  (x) => {
    const z = oscillateAll(multiply(p.rotationR, minus(x, p.xOpt)));
    return 1e6 * z[0]! ** 2 + sumOfSquares(z.slice(1)) + p.fOpt;
  };

export const bentCigar =
  (p: Instance): Objective =>
  (x) => {
    const z = multiply(p.rotationR, asymmetric(multiply(p.rotationR, minus(x, p.xOpt)), 0.5));
    return z[0]! ** 2 + 1e6 * sumOfSquares(z.slice(1)) + p.fOpt;
  };

export const sharpRidge =
  (p: Instance): Objective =>
  (x) => {
    const z = rotatedScaled(p, x, 10);
    return z[0]! ** 2 + 100 * Math.sqrt(sumOfSquares(z.slice(1))) + p.fOpt;
  };

export const differentPowers =
  (p: Instance): Objective =>
  (x) => {
    const z = multiply(p.rotationR, minus(x, p.xOpt));
    const sum = z.reduce((s, v, i) => s + Math.abs(v) ** (2 + (4 * i) / (z.length - 1)), 0);
    return Math.sqrt(sum) + p.fOpt;
  };
