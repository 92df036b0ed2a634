// The dense pieces the ENAS controller is made of, each with its backward pass: one LSTM step,
// a vector times a matrix stored in the parameter array, and the softmax.

export const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

export interface LstmRecord {
  readonly x: Float64Array;
  readonly hPrev: Float64Array;
  readonly cPrev: Float64Array;
  /** i, f, o, g after their activations. */
  readonly gates: Float64Array;
  readonly c: Float64Array;
  readonly tc: Float64Array;
  readonly h: Float64Array;
}

export function lstmForward(
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
export function lstmBackward(
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
export function vecMat(
  p: Float64Array,
  at: number,
  v: Float64Array,
  rows: number,
  cols: number,
): Float64Array {
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
export function vecMatBackward(
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

export function softmax(y: Float64Array): Float64Array {
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
