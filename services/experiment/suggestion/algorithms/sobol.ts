// Sobol' quasi-random search (Joe–Kuo direction numbers, Gray-code order), scrambled by default
// with a random linear matrix scramble and digital shift (as scipy's Sobol does), seeded per
// experiment. The point at sequence position p is a pure function of p, so the service keeps no
// state: a call continues the sequence where the experiment's previous suggestions stopped.

import { invalidArgument } from '../../../../shared/errors.ts';
import type { Algorithm } from '../algorithm.ts';
import { toAssignments } from '../katib-space.ts';
import { createRng, type Rng } from '../rng.ts';
import { readSobolSettings, type SobolSettings } from '../settings/katib-settings.ts';
import type { Point } from '../space.ts';
import { pointKey } from '../space.ts';
import { fromUnit } from '../values.ts';
import { JOE_KUO } from './sobol-directions.ts';

const BITS = 32;
export const MAX_SOBOL_DIMENSIONS = JOE_KUO.length + 1;
/** Sequence positions tried per requested point before a repeat is accepted (finite spaces fill up). */
const MAX_SKIPS_PER_POINT = 64;

/** Direction numbers v_1..v_32 of one dimension, as unsigned 32-bit integers (index 0 unused). */
function directions(dimension: number): number[] {
  const v = new Array<number>(BITS + 1).fill(0);
  if (dimension === 0) {
    for (let k = 1; k <= BITS; k++) v[k] = 2 ** (BITS - k);
    return v;
  }
  const [s, a, m] = JOE_KUO[dimension - 1]!;
  for (let k = 1; k <= Math.min(s, BITS); k++) v[k] = (m[k - 1]! * 2 ** (BITS - k)) >>> 0;
  for (let k = s + 1; k <= BITS; k++) {
    let value = (v[k - s]! ^ (v[k - s]! >>> s)) >>> 0;
    for (let i = 1; i < s; i++) if ((a >>> (s - 1 - i)) & 1) value = (value ^ v[k - i]!) >>> 0;
    v[k] = value;
  }
  return v;
}

/** Multiplies every direction number by a random unit lower-triangular matrix over GF(2). */
function linearMatrixScramble(v: number[], rng: Rng): number[] {
  const rows: number[] = [];
  for (let digit = 0; digit < BITS; digit++) {
    const position = BITS - 1 - digit;
    // Digits above this one (more significant bits) mix in at random; the digit itself stays.
    const above = position === BITS - 1 ? 0 : ~(2 ** (position + 1) - 1) >>> 0;
    rows.push(((randomUint32(rng) & above) | (2 ** position)) >>> 0);
  }
  return v.map((word) => {
    let scrambled = 0;
    for (let digit = 0; digit < BITS; digit++) {
      if (parity(word & rows[digit]!)) scrambled = (scrambled | (2 ** (BITS - 1 - digit))) >>> 0;
    }
    return scrambled;
  });
}

const randomUint32 = (rng: Rng): number => Math.floor(rng.next() * 2 ** 32) >>> 0;

function parity(word: number): number {
  let x = word >>> 0;
  x ^= x >>> 16;
  x ^= x >>> 8;
  x ^= x >>> 4;
  x ^= x >>> 2;
  x ^= x >>> 1;
  return x & 1;
}

export interface SobolSequence {
  /** The point at a position of the sequence, each coordinate in [0, 1). */
  at(position: number): number[];
}

export function createSobolSequence(
  dimensionCount: number,
  scramble: { seed: number } | undefined,
): SobolSequence {
  if (dimensionCount > MAX_SOBOL_DIMENSIONS)
    throw new RangeError(`at most ${MAX_SOBOL_DIMENSIONS} dimensions`);
  const rng = scramble ? createRng(scramble.seed) : undefined;
  const table = Array.from({ length: dimensionCount }, (_, d) => {
    const v = directions(d);
    return rng ? { v: linearMatrixScramble(v, rng), shift: randomUint32(rng) } : { v, shift: 0 };
  });
  return {
    at(position) {
      const gray = (position ^ (position >>> 1)) >>> 0;
      return table.map(({ v, shift }) => {
        let x = shift;
        for (let bit = 0; bit < BITS; bit++) if ((gray >>> bit) & 1) x = (x ^ v[bit + 1]!) >>> 0;
        return x / 2 ** BITS;
      });
    },
  };
}

export const sobol: Algorithm<SobolSettings> = {
  readSettings: readSobolSettings,
  checkExperiment({ dimensions }) {
    if (dimensions.length > MAX_SOBOL_DIMENSIONS) {
      throw invalidArgument(
        `sobol supports at most ${MAX_SOBOL_DIMENSIONS} parameters; the experiment has ${dimensions.length}`,
      );
    }
  },
  suggest({ experiment, config, trials, count, issuedBefore, seeds }) {
    const { dimensions } = experiment;
    const sequence = createSobolSequence(
      dimensions.length,
      config.scramble ? { seed: seeds.experiment } : undefined,
    );
    const taken = new Set([...trials.history.map((o) => pointKey(o.point)), ...trials.pending.map(pointKey)]);
    const points: Point[] = [];
    // Unscrambled, position 0 is the corner of every minimum: start at 1 instead.
    let position = issuedBefore + (config.scramble ? 0 : 1);
    const lastPosition = position + count * MAX_SKIPS_PER_POINT;
    while (points.length < count) {
      const point = sequence.at(position).map((u, i) => fromUnit(dimensions[i]!, u));
      position++;
      // A finite space that is nearly full takes repeats rather than failing.
      if (taken.has(pointKey(point)) && position < lastPosition) continue;
      taken.add(pointKey(point));
      points.push(point);
    }
    return { suggestions: points.map((point) => ({ assignments: toAssignments(dimensions, point) })) };
  },
};
