// The BBOB 2009 building blocks (Hansen et al., "Real-Parameter Black-Box Optimization
// Benchmarking 2009: Noiseless Functions Definitions"), written from that paper's formulas.

export type Vector = readonly number[];
export type Matrix = readonly Vector[];

/** Oscillation: makes a regular function locally irregular while keeping it monotone. */
export function oscillate(value: number): number {
  if (value === 0) return 0;
  const log = Math.log(Math.abs(value));
  const c1 = value > 0 ? 10 : 5.5;
  const c2 = value > 0 ? 7.9 : 3.1;
  return Math.sign(value) * Math.exp(log + 0.049 * (Math.sin(c1 * log) + Math.sin(c2 * log)));
}

export const oscillateAll = (x: Vector): number[] => x.map(oscillate);

/** Asymmetry T_asy^beta: only the positive coordinates are bent, more so for later ones. */
export function asymmetric(x: Vector, beta: number): number[] {
  const last = x.length - 1;
  return x.map((v, i) => (v > 0 ? v ** (1 + (beta * i * Math.sqrt(v)) / last) : v));
}

/** The i-th diagonal entry of Lambda^alpha (conditioning sqrt(alpha) across the axes). */
export const conditioning = (alpha: number, i: number, dims: number): number =>
  alpha ** (0.5 * (i / (dims - 1)));

export const scaleAxes = (x: Vector, alpha: number): number[] =>
  x.map((v, i) => v * conditioning(alpha, i, x.length));

export function multiply(matrix: Matrix, x: Vector): number[] {
  return matrix.map((row) => row.reduce((sum, m, j) => sum + m * x[j]!, 0));
}

export const minus = (x: Vector, y: Vector): number[] => x.map((v, i) => v - y[i]!);

/** Boundary penalty: how far outside [-5, 5] each coordinate is, squared. */
export const penalty = (x: Vector): number =>
  x.reduce((sum, v) => sum + Math.max(0, Math.abs(v) - 5) ** 2, 0);

export const sumOfSquares = (x: Vector): number => x.reduce((sum, v) => sum + v * v, 0);

export const rastriginTerm = (z: Vector): number =>
  10 * (z.length - z.reduce((sum, v) => sum + Math.cos(2 * Math.PI * v), 0)) + sumOfSquares(z);
