// The crossovers of three parents that act on the numeric coordinates as one vector (of the unit
// cube, ./nsga2-crossover.ts): SPX, simplex crossover (Tsutsui, Yamamura & Higuchi 1999), and
// UNDX, unimodal normal distribution crossover (Ono & Kobayashi 1997). A child that leaves the
// cube is drawn again from the same parents, then clipped after MAX_VECTOR_DRAWS.

import type { Rng } from '../rng.ts';

type Vector = readonly number[];

const MAX_VECTOR_DRAWS = 16;

/** UNDX's spreads as its authors recommend: along the parents' axis, and across it (÷ √n). */
const UNDX_SIGMA_XI = 0.5;
const UNDX_SIGMA_ETA = 0.35;

export function simplexCrossover(parents: readonly Vector[], rng: Rng): number[] {
  return insideCube(() => simplexChild(parents, rng));
}

export function unimodalNormalCrossover(parents: readonly Vector[], rng: Rng): number[] {
  return insideCube(() => unimodalNormalChild(parents, rng));
}

function insideCube(draw: () => number[]): number[] {
  let child = draw();
  for (let attempt = 1; attempt < MAX_VECTOR_DRAWS && !child.every((x) => x >= 0 && x <= 1); attempt++)
    child = draw();
  return child.map((x) => Math.min(1, Math.max(0, x)));
}

/**
 * SPX: the parents' simplex expanded about its centroid by ε = √(n + 2) (the authors' rate for
 * n dimensions), and a point drawn in it by the recurrence C_k = r_{k−1}(p_{k−1} − p_k + C_{k−1}),
 * r_k = u^(1/(k+1)).
 */
function simplexChild(parents: readonly Vector[], rng: Rng): number[] {
  const n = parents[0]!.length;
  const epsilon = Math.sqrt(n + 2);
  const centroid = mean(parents);
  const expanded = parents.map((x) => x.map((v, d) => centroid[d]! + epsilon * (v - centroid[d]!)));
  let c = new Array<number>(n).fill(0);
  for (let k = 1; k < expanded.length; k++) {
    const r = rng.next() ** (1 / k);
    const previous = expanded[k - 1]!;
    const current = expanded[k]!;
    c = c.map((value, d) => r * (previous[d]! - current[d]! + value));
  }
  const last = expanded[expanded.length - 1]!;
  return last.map((v, d) => v + c[d]!);
}

/**
 * UNDX: around the midpoint of the first two parents, normal along the line joining them
 * (σ_ξ·|d|) and normal across it in every orthogonal direction, scaled by the third parent's
 * distance D from that line (σ_η/√n · D).
 */
function unimodalNormalChild(parents: readonly Vector[], rng: Rng): number[] {
  const [x1, x2, x3] = parents as [Vector, Vector, Vector];
  const n = x1.length;
  const middle = x1.map((v, d) => (v + x2[d]!) / 2);
  const along = x2.map((v, d) => v - x1[d]!);
  const length = Math.hypot(...along);
  const unit = length > 0 ? along.map((v) => v / length) : undefined;
  const fromFirst = x3.map((v, d) => v - x1[d]!);
  const projection = unit === undefined ? 0 : dot(fromFirst, unit);
  const distance = Math.sqrt(Math.max(0, dot(fromFirst, fromFirst) - projection * projection));
  const xi = rng.normal() * UNDX_SIGMA_XI;
  const child = middle.map((v, d) => v + xi * along[d]!);
  const sigmaEta = (UNDX_SIGMA_ETA / Math.sqrt(n)) * distance;
  for (const e of orthogonalBasis(unit, n)) {
    const eta = rng.normal() * sigmaEta;
    for (let d = 0; d < n; d++) child[d]! += eta * e[d]!;
  }
  return child;
}

/** An orthonormal basis of the directions orthogonal to `unit` (all of them when it is undefined). */
function orthogonalBasis(unit: Vector | undefined, n: number): number[][] {
  const basis: number[][] = unit === undefined ? [] : [[...unit]];
  for (let axis = 0; axis < n && basis.length < n; axis++) {
    const v = Array.from({ length: n }, (_, d) => (d === axis ? 1 : 0));
    for (const b of basis) {
      const along = dot(v, b);
      for (let d = 0; d < n; d++) v[d]! -= along * b[d]!;
    }
    const norm = Math.hypot(...v);
    // A standard axis (nearly) in the span already adds no new direction.
    if (norm > 1e-9) basis.push(v.map((x) => x / norm));
  }
  return unit === undefined ? basis : basis.slice(1);
}

function mean(vectors: readonly Vector[]): number[] {
  return vectors[0]!.map((_, d) => vectors.reduce((sum, v) => sum + v[d]!, 0) / vectors.length);
}

const dot = (a: Vector, b: Vector): number => a.reduce((sum, v, d) => sum + v * b[d]!, 0);
