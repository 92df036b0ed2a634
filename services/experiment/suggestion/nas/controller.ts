// ENAS's controller (Katib's TF graph, the ENAS "general" controller) in plain TypeScript: an LSTM
// that, layer by layer, picks an operation and which earlier layers to skip-connect, trained by
// REINFORCE with an exponential-moving-average baseline, a skip-rate KL penalty, an entropy bonus
// in the reward, and Adam (beta1 0, epsilon 1e-3, as Katib). Small dense matrices, Float64Array,
// forward pass taped and differentiated by hand. Pure and deterministic: randomness comes from the
// Rng the caller passes.

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

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

interface LstmRecord {
  readonly x: Float64Array;
  readonly hPrev: Float64Array;
  readonly cPrev: Float64Array;
  /** i, f, o, g after their activations. */
  readonly gates: Float64Array;
  readonly c: Float64Array;
  readonly tc: Float64Array;
  readonly h: Float64Array;
}

function lstmForward(
  p: Float64Array,
  at: number,
  H: number,
  x: Float64Array,
  hPrev: Float64Array,
  cPrev: Float64Array,
): LstmRecord {
  const G = 4 * H;
  const pre = new Float64Array(G);
  for (let r = 0; r < H; r++) {
    const xr = x[r]!;
    if (xr !== 0) {
      const row = at + r * G;
      for (let j = 0; j < G; j++) pre[j]! += xr * p[row + j]!;
    }
    const hr = hPrev[r]!;
    if (hr !== 0) {
      const row = at + (H + r) * G;
      for (let j = 0; j < G; j++) pre[j]! += hr * p[row + j]!;
    }
  }
  const gates = new Float64Array(G);
  const c = new Float64Array(H);
  const tc = new Float64Array(H);
  const h = new Float64Array(H);
  for (let k = 0; k < H; k++) {
    const i = sigmoid(pre[k]!);
    const f = sigmoid(pre[H + k]!);
    const o = sigmoid(pre[2 * H + k]!);
    const g = Math.tanh(pre[3 * H + k]!);
    gates[k] = i;
    gates[H + k] = f;
    gates[2 * H + k] = o;
    gates[3 * H + k] = g;
    c[k] = i * g + f * cPrev[k]!;
    tc[k] = Math.tanh(c[k]!);
    h[k] = o * tc[k]!;
  }
  return { x, hPrev, cPrev, gates, c, tc, h };
}

/** Backward through one LSTM step; adds to grad, returns dx, dhPrev, dcPrev. */
function lstmBackward(
  p: Float64Array,
  grad: Float64Array,
  at: number,
  H: number,
  rec: LstmRecord,
  dh: Float64Array,
  dc: Float64Array,
): { dx: Float64Array; dhPrev: Float64Array; dcPrev: Float64Array } {
  const G = 4 * H;
  const dpre = new Float64Array(G);
  const dcPrev = new Float64Array(H);
  for (let k = 0; k < H; k++) {
    const i = rec.gates[k]!;
    const f = rec.gates[H + k]!;
    const o = rec.gates[2 * H + k]!;
    const g = rec.gates[3 * H + k]!;
    const tc = rec.tc[k]!;
    const dcTotal = dc[k]! + dh[k]! * o * (1 - tc * tc);
    dpre[k] = dcTotal * g * i * (1 - i);
    dpre[H + k] = dcTotal * rec.cPrev[k]! * f * (1 - f);
    dpre[2 * H + k] = dh[k]! * tc * o * (1 - o);
    dpre[3 * H + k] = dcTotal * i * (1 - g * g);
    dcPrev[k] = dcTotal * f;
  }
  const dx = new Float64Array(H);
  const dhPrev = new Float64Array(H);
  for (let r = 0; r < H; r++) {
    const xr = rec.x[r]!;
    const hr = rec.hPrev[r]!;
    const rowX = at + r * G;
    const rowH = at + (H + r) * G;
    let sx = 0;
    let sh = 0;
    for (let j = 0; j < G; j++) {
      const d = dpre[j]!;
      sx += p[rowX + j]! * d;
      sh += p[rowH + j]! * d;
      if (xr !== 0) grad[rowX + j]! += xr * d;
      if (hr !== 0) grad[rowH + j]! += hr * d;
    }
    dx[r] = sx;
    dhPrev[r] = sh;
  }
  return { dx, dhPrev, dcPrev };
}

/** v (length rows) times the (rows × cols) matrix at `at`. */
function vecMat(p: Float64Array, at: number, v: Float64Array, rows: number, cols: number): Float64Array {
  const out = new Float64Array(cols);
  for (let r = 0; r < rows; r++) {
    const vr = v[r]!;
    if (vr === 0) continue;
    const row = at + r * cols;
    for (let c = 0; c < cols; c++) out[c]! += vr * p[row + c]!;
  }
  return out;
}

/** Backward of out = v·M: adds v ⊗ dout to the matrix's gradient, returns dv. */
function vecMatBackward(
  p: Float64Array,
  grad: Float64Array,
  at: number,
  v: Float64Array,
  dout: Float64Array,
  rows: number,
  cols: number,
): Float64Array {
  const dv = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    const vr = v[r]!;
    const row = at + r * cols;
    let s = 0;
    for (let c = 0; c < cols; c++) {
      s += p[row + c]! * dout[c]!;
      grad[row + c]! += vr * dout[c]!;
    }
    dv[r] = s;
  }
  return dv;
}

/** The logit squashing: /temperature, then tanhConst·tanh; and its derivative. */
function squash(z: number, o: PolicyOptions): { y: number; dy: number } {
  let u = z;
  let du = 1;
  if (o.temperature !== null) {
    u = z / o.temperature;
    du = 1 / o.temperature;
  }
  if (o.tanhConst === null) return { y: u, dy: du };
  const t = Math.tanh(u);
  return { y: o.tanhConst * t, dy: o.tanhConst * (1 - t * t) * du };
}

function softmax(y: Float64Array): Float64Array {
  let max = -Infinity;
  for (const v of y) if (v > max) max = v;
  const out = new Float64Array(y.length);
  let sum = 0;
  for (let i = 0; i < y.length; i++) {
    out[i] = Math.exp(y[i]! - max);
    sum += out[i]!;
  }
  for (let i = 0; i < y.length; i++) out[i]! /= sum;
  return out;
}

interface SkipRecord {
  readonly s: Float64Array; // tanh(A_j + h·W2)
  readonly q: number;
  readonly dyq: number; // d y1 / d q
  readonly probs: Float64Array; // softmax([y0, y1])
  readonly y: readonly [number, number];
  readonly bit: number;
}

interface LayerRecord {
  readonly step1: LstmRecord;
  readonly z: Float64Array;
  readonly dz: Float64Array; // d y / d z per logit
  readonly probs: Float64Array;
  readonly op: number;
  readonly step2: LstmRecord;
  readonly hW2: Float64Array | null;
  readonly skips: readonly SkipRecord[];
  readonly skipSum: number;
}

interface Tape {
  readonly layers: readonly LayerRecord[];
  readonly anchors: readonly Float64Array[];
  readonly logProb: number;
  /** ENAS's entropy term: Σ over decisions of −log p·p of the chosen value (no gradient). */
  readonly entropy: number;
  /** Mean over layers > 0 of Σ KL(sigmoid(skip logits) ‖ [1−target, target]). */
  readonly skipPenalty: number;
}

type Decide = (layer: number, slot: number, probs: Float64Array) => number;

function forward(state: ControllerState, shape: ControllerShape, o: PolicyOptions, decide: Decide): Tape {
  const { hidden: H, operations: N, layers: L } = shape;
  const lay = layout(shape);
  const p = state.params;
  const gEmb = p.subarray(lay.gEmb, lay.gEmb + H);
  let h: Float64Array = new Float64Array(H);
  let c: Float64Array = new Float64Array(H);
  let inputs: Float64Array = gEmb;
  const anchors: Float64Array[] = [];
  const anchorsW1: Float64Array[] = [];
  const records: LayerRecord[] = [];
  let logProb = 0;
  let entropy = 0;
  let penalty = 0;
  const t0 = 1 - o.skipTarget;
  const t1 = o.skipTarget;
  for (let l = 0; l < L; l++) {
    const step1 = lstmForward(p, lay.lstm, H, inputs, h, c);
    const z = vecMat(p, lay.wSoft, step1.h, H, N);
    const y = new Float64Array(N);
    const dz = new Float64Array(N);
    for (let n = 0; n < N; n++) {
      const s = squash(z[n]!, o);
      y[n] = s.y;
      dz[n] = s.dy;
    }
    const probs = softmax(y);
    const op = decide(l, 0, probs);
    const pOp = probs[op]!;
    logProb += Math.log(pOp);
    entropy += -Math.log(pOp) * pOp;
    const emb = p.subarray(lay.wEmb + op * H, lay.wEmb + (op + 1) * H);
    const step2 = lstmForward(p, lay.lstm, H, emb, step1.h, step1.c);
    h = step2.h;
    c = step2.c;
    const skips: SkipRecord[] = [];
    let hW2: Float64Array | null = null;
    let skipSum = 0;
    if (l > 0) {
      hW2 = vecMat(p, lay.attn2, h, H, H);
      let kl = 0;
      const mixed = new Float64Array(H);
      for (let j = 0; j < l; j++) {
        const aw = anchorsW1[j]!;
        const s = new Float64Array(H);
        let q = 0;
        for (let k = 0; k < H; k++) {
          s[k] = Math.tanh(aw[k]! + hW2[k]!);
          q += s[k]! * p[lay.vAttn + k]!;
        }
        const sq = squash(q, o);
        const yy = [-sq.y, sq.y] as const;
        const pr = softmax(Float64Array.from(yy));
        const bit = decide(l, j + 1, pr);
        const pb = pr[bit]!;
        logProb += Math.log(pb);
        entropy += -Math.log(pb) * pb;
        const s0 = sigmoid(yy[0]);
        const s1 = sigmoid(yy[1]);
        kl += s0 * Math.log(s0 / t0) + s1 * Math.log(s1 / t1);
        skips.push({ s, q, dyq: sq.dy, probs: pr, y: yy, bit });
        if (bit === 1) {
          skipSum++;
          const anchor = anchors[j]!;
          for (let k = 0; k < H; k++) mixed[k]! += anchor[k]!;
        }
      }
      for (let k = 0; k < H; k++) mixed[k]! /= 1 + skipSum;
      inputs = mixed;
      penalty += kl;
    } else {
      inputs = gEmb;
    }
    anchors.push(h);
    anchorsW1.push(vecMat(p, lay.attn1, h, H, H));
    records.push({ step1, z, dz, probs, op, step2, hW2, skips, skipSum });
  }
  return {
    layers: records,
    anchors,
    logProb,
    entropy,
    skipPenalty: L > 1 ? penalty / (L - 1) : 0,
  };
}

/**
 * Gradient of loss = coefLogProb·log π(arc) + coefPenalty·skipPenalty with respect to every
 * parameter (in `layout` order).
 */
function backward(
  state: ControllerState,
  shape: ControllerShape,
  o: PolicyOptions,
  tape: Tape,
  coefLogProb: number,
  coefPenalty: number,
): Float64Array {
  const { hidden: H, operations: N, layers: L } = shape;
  const lay = layout(shape);
  const p = state.params;
  const grad = new Float64Array(lay.size);
  const dAnchor = Array.from({ length: L }, () => new Float64Array(H));
  const dAnchorW1 = Array.from({ length: L }, () => new Float64Array(H));
  let dhNext: Float64Array = new Float64Array(H);
  let dcNext: Float64Array = new Float64Array(H);
  let dIn: Float64Array = new Float64Array(H); // gradient of the inputs layer l produced for layer l+1
  const klCoef = L > 1 ? coefPenalty / (L - 1) : 0;
  const t = [1 - o.skipTarget, o.skipTarget];
  for (let l = L - 1; l >= 0; l--) {
    const rec = tape.layers[l]!;
    // The inputs this layer produced: g_emb for layer 0, the mean of the skipped-to anchors after.
    if (l === 0) {
      for (let k = 0; k < H; k++) grad[lay.gEmb + k]! += dIn[k]!;
    } else {
      for (let j = 0; j < l; j++) {
        if (rec.skips[j]!.bit !== 1) continue;
        const da = dAnchor[j]!;
        for (let k = 0; k < H; k++) da[k]! += dIn[k]! / (1 + rec.skipSum);
      }
    }
    const h2 = rec.step2.h;
    const dh2 = Float64Array.from(dhNext);
    if (l > 0) {
      const dhW2 = new Float64Array(H);
      for (let j = 0; j < l; j++) {
        const sk = rec.skips[j]!;
        // d/dy of coefLogProb·log p(bit) + klCoef·KL.
        const dy = [0, 0];
        for (let k = 0; k < 2; k++) {
          const sg = sigmoid(sk.y[k]!);
          dy[k] =
            coefLogProb * ((k === sk.bit ? 1 : 0) - sk.probs[k]!) +
            klCoef * sg * (1 - sg) * (Math.log(sg / t[k]!) + 1);
        }
        const dq = (dy[1]! - dy[0]!) * sk.dyq;
        const dA = dAnchorW1[j]!;
        for (let k = 0; k < H; k++) {
          grad[lay.vAttn + k]! += dq * sk.s[k]!;
          const dpre = dq * p[lay.vAttn + k]! * (1 - sk.s[k]! * sk.s[k]!);
          dA[k]! += dpre;
          dhW2[k]! += dpre;
        }
      }
      const dh = vecMatBackward(p, grad, lay.attn2, h2, dhW2, H, H);
      for (let k = 0; k < H; k++) dh2[k]! += dh[k]!;
    }
    // This layer's anchor (h2) and its projection h2·W1 were used by later layers.
    const dFromW1 = vecMatBackward(p, grad, lay.attn1, h2, dAnchorW1[l]!, H, H);
    for (let k = 0; k < H; k++) dh2[k]! += dAnchor[l]![k]! + dFromW1[k]!;
    const b2 = lstmBackward(p, grad, lay.lstm, H, rec.step2, dh2, dcNext);
    for (let k = 0; k < H; k++) grad[lay.wEmb + rec.op * H + k]! += b2.dx[k]!;
    // The operation's logits.
    const dzv = new Float64Array(N);
    for (let n = 0; n < N; n++) dzv[n] = coefLogProb * ((n === rec.op ? 1 : 0) - rec.probs[n]!) * rec.dz[n]!;
    const dh1 = vecMatBackward(p, grad, lay.wSoft, rec.step1.h, dzv, H, N);
    for (let k = 0; k < H; k++) dh1[k]! += b2.dhPrev[k]!;
    const b1 = lstmBackward(p, grad, lay.lstm, H, rec.step1, dh1, b2.dcPrev);
    dhNext = b1.dhPrev;
    dcNext = b1.dcPrev;
    dIn = b1.dx;
  }
  // Layer 0's first step read g_emb.
  for (let k = 0; k < H; k++) grad[lay.gEmb + k]! += dIn[k]!;
  return grad;
}

/** Draws one architecture from the policy. */
export function sampleArchitecture(
  state: ControllerState,
  shape: ControllerShape,
  o: PolicyOptions,
  rng: Rng,
): Architecture {
  const arc: Architecture = Array.from({ length: shape.layers }, () => []);
  forward(state, shape, o, (layer, _slot, probs) => {
    const u = rng.next();
    let acc = 0;
    let chosen = probs.length - 1;
    for (let i = 0; i < probs.length; i++) {
      acc += probs[i]!;
      if (u < acc) {
        chosen = i;
        break;
      }
    }
    arc[layer]!.push(chosen);
    return chosen;
  });
  return arc;
}

const teacher =
  (arc: Architecture): Decide =>
  (layer, slot) =>
    arc[layer]![slot]!;

/** log π(arc), ENAS's entropy term and skip penalty for a given architecture. */
export function evaluateArchitecture(
  state: ControllerState,
  shape: ControllerShape,
  o: PolicyOptions,
  arc: Architecture,
): { logProb: number; entropy: number; skipPenalty: number } {
  const tape = forward(state, shape, o, teacher(arc));
  return { logProb: tape.logProb, entropy: tape.entropy, skipPenalty: tape.skipPenalty };
}

/** The analytic gradient, for the finite-difference test. */
export function lossGradient(
  state: ControllerState,
  shape: ControllerShape,
  o: PolicyOptions,
  arc: Architecture,
  coefLogProb: number,
  coefPenalty: number,
): Float64Array {
  return backward(state, shape, o, forward(state, shape, o, teacher(arc)), coefLogProb, coefPenalty);
}

const ADAM_BETA2 = 0.999;
const ADAM_EPSILON = 1e-3;

/**
 * One REINFORCE step on one architecture and its reward (Katib's train_op): the reward gets the
 * entropy bonus, the baseline moves towards it, loss = −log π(arc)·(reward − baseline) +
 * skipWeight·skipPenalty, one Adam step. Returns the new state (the given one is not changed).
 */
export function trainStep(
  state: ControllerState,
  shape: ControllerShape,
  o: PolicyOptions,
  arc: Architecture,
  reward: number,
): ControllerState {
  const tape = forward(state, shape, o, teacher(arc));
  const total = reward + (o.entropyWeight === null ? 0 : o.entropyWeight * tape.entropy);
  const baseline =
    state.baseline === null ? total : state.baseline - (1 - o.baselineDecay) * (state.baseline - total);
  const advantage = total - baseline;
  const grad = backward(state, shape, o, tape, -advantage, o.skipWeight ?? 0);
  const step = state.adamStep + 1;
  const lr = (o.learningRate * Math.sqrt(1 - ADAM_BETA2 ** step)) / 1; // beta1 = 0: no first-moment correction
  const params = Float64Array.from(state.params);
  const adamV = Float64Array.from(state.adamV);
  for (let i = 0; i < params.length; i++) {
    const g = grad[i]!;
    const v = ADAM_BETA2 * adamV[i]! + (1 - ADAM_BETA2) * g * g;
    adamV[i] = v;
    params[i]! -= (lr * g) / (Math.sqrt(v) + ADAM_EPSILON);
  }
  return { params, adamV, adamStep: step, baseline };
}
