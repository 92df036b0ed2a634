// The ENAS controller's pass over one architecture, taped: `forward` makes the decisions layer by
// layer (sampled, or forced to a given architecture) and records what `backward` needs to compute
// the gradient of the REINFORCE loss and the skip penalty by hand.

import {
  type LstmRecord,
  lstmBackward,
  lstmForward,
  sigmoid,
  softmax,
  vecMat,
  vecMatBackward,
} from './controller-ops.ts';
import {
  type ControllerShape,
  type ControllerState,
  layout,
  type PolicyOptions,
} from './controller-params.ts';

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

export interface Tape {
  readonly layers: readonly LayerRecord[];
  readonly anchors: readonly Float64Array[];
  readonly logProb: number;
  /** ENAS's entropy term: Σ over decisions of −log p·p of the chosen value (no gradient). */
  readonly entropy: number;
  /** Mean over layers > 0 of Σ KL(sigmoid(skip logits) ‖ [1−target, target]). */
  readonly skipPenalty: number;
}

export type Decide = (layer: number, slot: number, probs: Float64Array) => number;

export function forward(
  state: ControllerState,
  shape: ControllerShape,
  o: PolicyOptions,
  decide: Decide,
): Tape {
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
export function backward(
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
