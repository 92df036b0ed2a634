// The ENAS controller's parameters: its shape, the policy's options, the state kept between calls
// (every weight in one Float64Array, laid out by `layout`, and Adam's moments), and a fresh one.

import type { Rng } from '../rng.ts';

export interface ControllerShape {
  readonly hidden: number;
  readonly operations: number;
  readonly layers: number;
}

export interface PolicyOptions {
  readonly temperature: number | null;
  readonly tanhConst: number | null;
  readonly skipTarget: number;
  readonly skipWeight: number | null;
  readonly entropyWeight: number | null;
  readonly baselineDecay: number;
  readonly learningRate: number;
}

/** Layer l: [op, skip_0, ..., skip_{l-1}], as Katib's `architecture` assignment. */
export type Architecture = number[][];

export interface ControllerState {
  /** Every trainable parameter, laid out by `layout(shape)`. */
  readonly params: Float64Array;
  /** Adam's second moment, same layout (beta1 is 0: no first moment to keep). */
  readonly adamV: Float64Array;
  readonly adamStep: number;
  /** null until the first training step (then the first reward, where Katib starts at 0). */
  readonly baseline: number | null;
}

interface Layout {
  readonly lstm: number; // (2H × 4H): [x; h] → i, f, o, g
  readonly gEmb: number; // H
  readonly wEmb: number; // N × H
  readonly wSoft: number; // H × N
  readonly attn1: number; // H × H
  readonly attn2: number; // H × H
  readonly vAttn: number; // H
  readonly size: number;
}

export function layout({ hidden: H, operations: N }: ControllerShape): Layout {
  let at = 0;
  const take = (n: number) => {
    const start = at;
    at += n;
    return start;
  };
  const lstm = take(2 * H * 4 * H);
  const gEmb = take(H);
  const wEmb = take(N * H);
  const wSoft = take(H * N);
  const attn1 = take(H * H);
  const attn2 = take(H * H);
  const vAttn = take(H);
  return { lstm, gEmb, wEmb, wSoft, attn1, attn2, vAttn, size: at };
}

/** A fresh controller: every weight uniform in [-0.1, 0.1), as ENAS initialises it. */
export function initController(shape: ControllerShape, rng: Rng): ControllerState {
  const { size } = layout(shape);
  const params = new Float64Array(size);
  for (let i = 0; i < size; i++) params[i] = rng.next() * 0.2 - 0.1;
  return { params, adamV: new Float64Array(size), adamStep: 0, baseline: null };
}
