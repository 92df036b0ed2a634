// How the Gaussian process sees a point: unit coordinates for numeric parameters (snapped to
// their step first, so the model scores the value that would be run), the rank of the choice
// for a DISCRETE list of numbers, and one-hot columns for a CATEGORICAL list. Also the
// candidate generation and local refinement the acquisition maximiser uses.

import type { Rng } from '../rng.ts';
import type { Point } from '../space.ts';
import type { Encoded } from './parzen.ts';
import { decodePoint } from './tpe-core.ts';
import { type Axis, drawUnit } from './unit-space.ts';

export interface Features {
  readonly width: number;
  vector(encoded: Encoded): Float64Array;
  decode(encoded: Encoded): Point;
  /** `random` draws from the prior, and `perCentre` perturbations of each centre. */
  candidates(random: number, centres: readonly Encoded[], perCentre: number, rng: Rng): number[][];
  /** Compass search from `start` (numeric axes) plus every other choice of each categorical axis. */
  refine(
    start: readonly number[],
    value: number,
    score: (c: readonly number[]) => number,
  ): { c: number[]; value: number };
}

export function featuresOf(axes: readonly Axis[]): Features {
  const offsets: number[] = [];
  let width = 0;
  for (const axis of axes) {
    offsets.push(width);
    width += axis.kind === 'categorical' && !axis.dimension.numeric ? axis.choices.length : 1;
  }
  const vector = (encoded: Encoded): Float64Array => {
    const out = new Float64Array(width);
    axes.forEach((axis, d) => {
      const value = encoded[d]!;
      if (axis.kind === 'numeric') out[offsets[d]!] = axis.toUnit(axis.fromUnit(value));
      else if (axis.dimension.numeric)
        out[offsets[d]!] = axis.choices.length > 1 ? value / (axis.choices.length - 1) : 0.5;
      else out[offsets[d]! + value] = 1;
    });
    return out;
  };
  const randomCandidate = (rng: Rng): number[] =>
    axes.map((axis) => (axis.kind === 'numeric' ? drawUnit(axis, rng) : rng.int(axis.choices.length)));
  const perturb = (centre: Encoded, rng: Rng): number[] => {
    const scale = 10 ** (-1 - 2 * rng.next()); // 0.1 down to 0.001 of the range
    return axes.map((axis, d) => {
      if (axis.kind === 'numeric') return Math.min(1, Math.max(0, centre[d]! + scale * rng.normal()));
      return rng.next() < 0.15 ? rng.int(axis.choices.length) : centre[d]!;
    });
  };
  return {
    width,
    vector,
    decode: (encoded) => decodePoint(axes, encoded),
    candidates: (random, centres, perCentre, rng) => [
      ...Array.from({ length: random }, () => randomCandidate(rng)),
      ...centres.flatMap((centre) => Array.from({ length: perCentre }, () => perturb(centre, rng))),
    ],
    refine: (start, startValue, score) => {
      let c = [...start];
      let value = startValue;
      let step = 0.05;
      for (let iteration = 0; iteration < 30 && step > 1e-5; iteration++) {
        let improved = false;
        for (let d = 0; d < axes.length; d++) {
          const axis = axes[d]!;
          const tries =
            axis.kind === 'numeric'
              ? [
                  c[d]! - Math.max(step, cellHalf(axis.levels)),
                  c[d]! + Math.max(step, cellHalf(axis.levels)),
                ].filter((u) => u >= 0 && u <= 1)
              : iteration === 0
                ? axis.choices.map((_, i) => i).filter((i) => i !== c[d])
                : [];
          for (const t of tries) {
            const candidate = [...c];
            candidate[d] = t;
            const v = score(candidate);
            if (v > value) {
              value = v;
              c = candidate;
              improved = true;
            }
          }
        }
        if (!improved) step /= 2;
      }
      return { c, value };
    },
  };
}

function cellHalf(levels: number | undefined): number {
  return levels === undefined ? 0 : 1 / levels;
}
