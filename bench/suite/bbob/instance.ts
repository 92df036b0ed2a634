// Instances of a BBOB function: the optimum x_opt, the value f_opt there, two rotations R and
// Q, and the random draws some functions need. The distributions are the paper's (x_opt uniform
// in [-4, 4]^D on a 1e-4 grid, f_opt Cauchy-like rounded to 0.01 within ±1000, rotations from
// Gram–Schmidt on Gaussian matrices), but the generator is this project's, not COCO's, so the
// numbers differ from cocoex's instances; see make-fixture.py for how the formulas are checked.
import type { Matrix, Vector } from './transforms.ts';

export interface Instance {
  readonly dims: number;
  readonly xOpt: Vector;
  readonly fOpt: number;
  readonly rotationR: Matrix;
  readonly rotationQ: Matrix;
  /** Uniform draws in [0, 1) for functions that place peaks or permute scales (f21, f22). */
  readonly extra: (count: number) => number[];
}

/** Mulberry32: a small, fast 32-bit generator; quality is ample for placing optima. */
export function uniformStream(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(next: () => number): number {
  const u = 1 - next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
}

export function randomRotation(dims: number, next: () => number): number[][] {
  const rows: number[][] = [];
  for (let i = 0; i < dims; i++) {
    let row = Array.from({ length: dims }, () => gaussian(next));
    for (const done of rows) {
      const dot = row.reduce((s, v, j) => s + v * done[j]!, 0);
      row = row.map((v, j) => v - dot * done[j]!);
    }
    const norm = Math.sqrt(row.reduce((s, v) => s + v * v, 0));
    rows.push(row.map((v) => v / norm));
  }
  return rows;
}

export function createInstance(functionId: number, dims: number, instanceId: number): Instance {
  const next = uniformStream(functionId * 1_000_003 + instanceId * 7919 + dims * 104_729);
  const xOpt = Array.from({ length: dims }, () => {
    const v = (8 * Math.floor(1e4 * next())) / 1e4 - 4;
    // A zero coordinate would sit on the kink of the oscillation transform.
    return v === 0 ? -1e-5 : v;
  });
  const ratio = gaussian(next) / gaussian(next);
  const fOpt = Math.min(1000, Math.max(-1000, Math.round(100 * ratio * 100) / 100));
  const rotationR = randomRotation(dims, next);
  const rotationQ = randomRotation(dims, next);
  const extraStream = uniformStream(functionId * 31 + instanceId * 65_537 + dims);
  return {
    dims,
    xOpt,
    fOpt,
    rotationR,
    rotationQ,
    extra: (count) => Array.from({ length: count }, extraStream),
  };
}
