// The ENAS controller's state as bytes (the `state` of a NasControllerStateSaved event):
// "NASC", a format byte, a JSON header (shape, fingerprint, baseline, Adam step, the history of
// trials it learned from, batch by batch), then the parameters and Adam's second moment as
// little-endian float64. Decoding checks everything and throws on any mismatch.

import { type ControllerShape, type ControllerState, layout } from './controller-params.ts';

export const STATE_FORMAT = 1;
const MAGIC = 'NASC';

export interface StoredController {
  readonly shape: ControllerShape;
  /** What the controller was built for (space, settings, seed): another fingerprint means start over. */
  readonly fingerprint: string;
  /** The trials each training call learned from, as trial keys, in order. */
  readonly history: readonly (readonly string[])[];
  readonly state: ControllerState;
}

interface Header {
  shape: ControllerShape;
  fingerprint: string;
  history: string[][];
  adamStep: number;
  baseline: number | null;
}

export function encodeController(stored: StoredController): Uint8Array {
  const header: Header = {
    shape: stored.shape,
    fingerprint: stored.fingerprint,
    history: stored.history.map((batch) => [...batch]),
    adamStep: stored.state.adamStep,
    baseline: stored.state.baseline,
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const n = stored.state.params.length;
  const out = Buffer.alloc(4 + 1 + 4 + json.length + 16 * n);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt8(STATE_FORMAT, 4);
  out.writeUInt32LE(json.length, 5);
  json.copy(out, 9);
  let at = 9 + json.length;
  for (const array of [stored.state.params, stored.state.adamV])
    for (let i = 0; i < n; i++, at += 8) out.writeDoubleLE(array[i]!, at);
  return out;
}

export function decodeController(bytes: Uint8Array): StoredController {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 9 || buf.toString('latin1', 0, 4) !== MAGIC)
    throw new Error('not an ENAS controller state');
  const format = buf.readUInt8(4);
  if (format !== STATE_FORMAT)
    throw new Error(`controller state format ${format}, this service reads ${STATE_FORMAT}`);
  const length = buf.readUInt32LE(5);
  if (9 + length > buf.length) throw new Error('controller state header is cut short');
  const header = JSON.parse(buf.toString('utf8', 9, 9 + length)) as Header;
  const { shape } = header;
  const positive = (v: unknown) => Number.isSafeInteger(v) && (v as number) > 0;
  if (!positive(shape?.hidden) || !positive(shape?.operations) || !positive(shape?.layers))
    throw new Error('controller state has no valid shape');
  if (typeof header.fingerprint !== 'string' || !Array.isArray(header.history))
    throw new Error('controller state header is incomplete');
  if (!header.history.every((b) => Array.isArray(b) && b.every((k) => typeof k === 'string')))
    throw new Error('controller state history is malformed');
  if (!Number.isSafeInteger(header.adamStep) || header.adamStep < 0)
    throw new Error('controller state has a bad Adam step');
  if (header.baseline !== null && !Number.isFinite(header.baseline))
    throw new Error('controller state has a bad baseline');
  const n = layout(shape).size;
  if (buf.length !== 9 + length + 16 * n)
    throw new Error(
      `controller state holds ${buf.length - 9 - length} bytes of weights, its shape needs ${16 * n}`,
    );
  const params = new Float64Array(n);
  const adamV = new Float64Array(n);
  let at = 9 + length;
  for (const array of [params, adamV])
    for (let i = 0; i < n; i++, at += 8) {
      const v = buf.readDoubleLE(at);
      if (!Number.isFinite(v)) throw new Error('controller state holds a non-finite weight');
      array[i] = v;
    }
  return {
    shape,
    fingerprint: header.fingerprint,
    history: header.history,
    state: { params, adamV, adamStep: header.adamStep, baseline: header.baseline },
  };
}

/** Bytes a controller of this shape takes, with a history of `historyKeys` trials. */
export const controllerStateBytes = (shape: ControllerShape, historyKeys = 0): number =>
  9 + 200 + historyKeys * 40 + 16 * layout(shape).size;
