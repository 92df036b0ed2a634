// The fuzzing harness: a target draws its inputs from a seeded generator and compares the project's
// hand-written reader or writer with the library it stands in for (the oracle). Every input ends
// in the same value, an error on both sides (or an error on ours where the library is laxer), or a
// finding: a difference (another value, or a value where the oracle says the input is malformed)
// or a crash (an exception that is not the reader's own error). Same seed, same inputs.
import { createRng, type Rng } from '../../services/experiment/suggestion/rng.ts';

export type { Rng };

export interface Finding {
  readonly kind: 'difference' | 'crash';
  /** The input, as text a regression test can paste (hex for bytes). */
  readonly input: string;
  readonly detail: string;
}

export interface FuzzTarget {
  readonly name: string;
  /** What the target is compared with, in a few words. */
  readonly oracle: string;
  /** Runs `count` inputs drawn from `rng`, reporting each difference or crash to `found`. */
  run(rng: Rng, count: number, found: (finding: Finding) => void): void | Promise<void>;
  /** How many inputs so far the oracle could not judge (counted apart, not as agreements). */
  notCompared?(): number;
  /** Releases what the target holds (clients, sessions) once the run is over. */
  close?(): void | Promise<void>;
}

export interface FuzzResult {
  readonly name: string;
  readonly inputs: number;
  readonly differences: number;
  readonly crashes: number;
  /** Inputs the oracle could not judge (the target says why). */
  readonly notCompared: number;
  /** The first findings, for the report and for regression tests. */
  readonly findings: readonly Finding[];
  readonly ms: number;
  /** The longest one batch took: a parser that hangs on some input shows here (or never returns). */
  readonly slowestBatchMs: number;
}

export async function fuzz(
  target: FuzzTarget,
  options: {
    seed: number;
    inputs: number;
    batch?: number;
    /** Stops after the batch that passes this many milliseconds (the count says how far it got). */
    maxMs?: number;
    onProgress?: (done: number, differences: number, crashes: number) => void;
  },
): Promise<FuzzResult> {
  const rng = createRng(options.seed);
  const batch = options.batch ?? 1_000;
  const findings: Finding[] = [];
  let differences = 0;
  let crashes = 0;
  const found = (finding: Finding): void => {
    if (finding.kind === 'difference') differences++;
    else crashes++;
    if (findings.length < 20) findings.push(finding);
  };
  const started = performance.now();
  const notComparedBefore = target.notCompared?.() ?? 0;
  let slowestBatchMs = 0;
  let done = 0;
  try {
    while (
      done < options.inputs &&
      performance.now() - started < (options.maxMs ?? Number.POSITIVE_INFINITY)
    ) {
      const count = Math.min(batch, options.inputs - done);
      const batchStarted = performance.now();
      await target.run(rng, count, found);
      slowestBatchMs = Math.max(slowestBatchMs, performance.now() - batchStarted);
      done += count;
      options.onProgress?.(done, differences, crashes);
      // A target whose batch is synchronous would otherwise never let timers run: h2-mutated's
      // connections that end with GOAWAY (a 1 s timer each to close the socket) were all kept,
      // and the 1,000,000-input run died out of memory near 550,000.
      await new Promise(setImmediate);
    }
  } finally {
    await target.close?.();
  }
  return {
    name: target.name,
    inputs: done,
    differences,
    crashes,
    notCompared: (target.notCompared?.() ?? 0) - notComparedBefore,
    findings,
    ms: performance.now() - started,
    slowestBatchMs,
  };
}

/**
 * Runs one input's comparison: `compare` returns undefined when both sides agree, or what differs;
 * `ownError` says which exceptions are the reader's own errors (anything else thrown is a crash).
 */
export function check(
  found: (finding: Finding) => void,
  input: () => string,
  compare: () => string | undefined,
): void {
  try {
    const difference = compare();
    if (difference !== undefined) found({ kind: 'difference', input: input(), detail: difference });
  } catch (error) {
    found({
      kind: 'crash',
      input: input(),
      detail: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
  }
}

/** The outcome of a call: its value, or the error it threw (kept, to be compared or classified). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export function outcome<T>(call: () => T): Outcome<T> {
  try {
    return { ok: true, value: call() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** JSON with Buffers as hex and undefined kept visible: equal texts mean equal values. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => {
    if (v === undefined) return '<undefined>';
    if (typeof v === 'number' && !Number.isFinite(v)) return `<${v}>`;
    if (typeof v === 'object' && v !== null && (v as { type?: string }).type === 'Buffer')
      return `<hex ${Buffer.from((v as { data: number[] }).data).toString('hex')}>`;
    return v;
  });
}

// Random inputs, biased to the edges where readers go wrong.

export const pick = <T>(rng: Rng, items: readonly T[]): T => items[rng.int(items.length)]!;

const EDGE_NUMBERS = [
  0,
  1,
  2,
  127,
  128,
  255,
  256,
  16_383,
  16_384,
  65_535,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32 - 1,
  2 ** 32,
];

/** A non-negative integer, often an edge value, below `max` when given. */
export function integer(rng: Rng, max = 2 ** 32): number {
  const roll = rng.int(4);
  const value = roll === 0 ? pick(rng, EDGE_NUMBERS) : roll === 1 ? rng.int(16) : rng.int(2 ** rng.int(33));
  return Math.min(value, max);
}

export function bytes(rng: Rng, length: number): Buffer {
  const out = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i++) out[i] = rng.int(256);
  return out;
}

const ALPHABETS = [
  'abcdefghijklmnopqrstuvwxyz',
  'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:',
  ' \t!"#$%&\'()*+,-./0123456789:;<=>?@[\\]^_`{|}~',
  'éüßñøåç€中文日本語😀\u0000\u007f\u0080\u00ff\ud800\udfff',
];

/** A string of up to `max` characters from one of a few alphabets (ASCII to astral and lone surrogates). */
export function text(rng: Rng, max = 24): string {
  const alphabet = [...pick(rng, ALPHABETS)];
  let out = '';
  for (let n = rng.int(max + 1); n > 0; n--) out += pick(rng, alphabet);
  return out;
}

/** `input` changed in 1 to 4 places: bits flipped, bytes set, inserted, deleted, duplicated, cut. */
export function mutate(rng: Rng, input: Buffer): Buffer {
  let out = input;
  for (let n = 1 + rng.int(4); n > 0; n--) {
    const at = rng.int(out.length + 1);
    switch (rng.int(7)) {
      case 0:
        if (at < out.length) {
          out = Buffer.from(out);
          out[at]! ^= 1 << rng.int(8);
        }
        break;
      case 1:
        if (at < out.length) {
          out = Buffer.from(out);
          out[at] = pick(rng, [0, 0x7f, 0x80, 0xff, rng.int(256)]);
        }
        break;
      case 2:
        out = Buffer.concat([out.subarray(0, at), bytes(rng, 1 + rng.int(4)), out.subarray(at)]);
        break;
      case 3:
        out = Buffer.concat([out.subarray(0, at), out.subarray(Math.min(out.length, at + 1 + rng.int(8)))]);
        break;
      case 4: {
        const end = Math.min(out.length, at + 1 + rng.int(16));
        out = Buffer.concat([out.subarray(0, end), out.subarray(at, end), out.subarray(end)]);
        break;
      }
      case 5:
        out = out.subarray(0, at);
        break;
      default:
        out = Buffer.concat([
          out.subarray(0, at),
          Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]),
          out.subarray(at),
        ]);
    }
  }
  return out;
}
