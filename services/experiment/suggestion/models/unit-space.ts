// The unit cube the model-based samplers work in. Every numeric dimension maps to [0, 1] on
// its own scale (logarithmic for LOG_UNIFORM and LOG_NORMAL); a stepped or integer dimension
// maps its bounds widened by half a step, so that each allowed value owns an interval of the
// cube and a uniform draw hits every value equally often. Decoding snaps back to the step.

import type { Rng } from '../rng.ts';
import { type Dimension, type Point, pointKey } from '../space.ts';
import { normalQuantile } from './numeric.ts';

export type NumericDimension = Extract<Dimension, { kind: 'float' | 'int' }>;
export type CategoricalDimension = Extract<Dimension, { kind: 'categorical' }>;

export interface NumericAxis {
  readonly kind: 'numeric';
  readonly dimension: NumericDimension;
  /** Number of allowed values when the dimension is stepped (always for INT), else undefined. */
  readonly levels: number | undefined;
  /** Random draws follow a normal of mean 0.5 and sd 1/6 on the unit axis instead of a uniform. */
  readonly normalPrior: boolean;
  toUnit(value: number): number;
  /** Snapped, clamped value for a unit coordinate (values outside [0, 1] are clamped). */
  fromUnit(unit: number): number;
  /** The unit interval that decodes to the same value as `unit` (the whole cell of a stepped value). */
  cellOf(unit: number): readonly [number, number];
}

export interface CategoricalAxis {
  readonly kind: 'categorical';
  readonly dimension: CategoricalDimension;
  readonly choices: readonly string[];
}

export type Axis = NumericAxis | CategoricalAxis;

export function axesOf(dimensions: readonly Dimension[]): Axis[] {
  return dimensions.map((dimension) =>
    dimension.kind === 'categorical'
      ? { kind: 'categorical', dimension, choices: dimension.choices }
      : numericAxis(dimension),
  );
}

function numericAxis(dimension: NumericDimension): NumericAxis {
  const { low, high } = dimension;
  const step = dimension.step !== undefined && dimension.step > 0 ? dimension.step : undefined;
  const logScale =
    (dimension.distribution === 'log-uniform' || dimension.distribution === 'log-normal') && low > 0;
  const levels = step === undefined ? undefined : Math.floor((high - low) / step + 1e-9) + 1;
  const top = step === undefined ? high : low + (levels! - 1) * step;
  let lo = step === undefined ? low : low - step / 2;
  const hi = step === undefined ? high : top + step / 2;
  if (logScale && lo <= 0) lo = low;
  const forward = logScale ? Math.log : (x: number) => x;
  const a = forward(lo);
  const span = forward(hi) - a;
  const toUnit = (value: number): number => (span > 0 ? (forward(value) - a) / span : 0.5);
  const raw = (unit: number): number => {
    const t = a + Math.min(1, Math.max(0, unit)) * span;
    return logScale ? Math.exp(t) : t;
  };
  const snapIndex = (value: number): number =>
    Math.min(levels! - 1, Math.max(0, Math.round((value - low) / step!)));
  const valueAt = (index: number): number => {
    const value = low + index * step!;
    return dimension.kind === 'int' ? Math.round(value) : value;
  };
  const fromUnit = (unit: number): number => {
    const value = raw(unit);
    if (step === undefined) return Math.min(high, Math.max(low, value));
    return valueAt(snapIndex(value));
  };
  const cellOf = (unit: number): readonly [number, number] => {
    if (step === undefined) return [unit, unit];
    const index = snapIndex(raw(unit));
    const from = index === 0 ? 0 : toUnit(low + (index - 0.5) * step);
    const to = index === levels! - 1 ? 1 : toUnit(low + (index + 0.5) * step);
    return [from, to];
  };
  const normalPrior = dimension.distribution === 'normal' || dimension.distribution === 'log-normal';
  return { kind: 'numeric', dimension, levels, normalPrior, toUnit, fromUnit, cellOf };
}

/** A unit coordinate drawn from the axis' prior (uniform, or a normal truncated to the cube). */
export function drawUnit(axis: NumericAxis, rng: Rng): number {
  if (!axis.normalPrior) return rng.next();
  // Inverse-CDF sampling of N(0.5, 1/6) truncated to [0, 1]: 3 sd either side.
  const edge = 0.0013498980316301; // Φ(−3)
  return 0.5 + normalQuantile(edge + rng.next() * (1 - 2 * edge)) / 6;
}

export function randomPoint(axes: readonly Axis[], rng: Rng): Point {
  return axes.map((axis) =>
    axis.kind === 'categorical'
      ? axis.choices[rng.int(axis.choices.length)]!
      : axis.fromUnit(drawUnit(axis, rng)),
  );
}

/** Number of distinct points of a fully discrete space, or Infinity when any dimension is continuous. */
export function spaceSize(axes: readonly Axis[]): number {
  let size = 1;
  for (const axis of axes)
    size *= axis.kind === 'categorical' ? axis.choices.length : (axis.levels ?? Infinity);
  return size;
}

/** Every point of a fully discrete space, in a fixed order. */
function enumerate(axes: readonly Axis[]): Point[] {
  let points: (number | string)[][] = [[]];
  for (const axis of axes) {
    const values: (number | string)[] =
      axis.kind === 'categorical'
        ? [...axis.choices]
        : Array.from({ length: axis.levels! }, (_, k) =>
            axis.fromUnit(axis.toUnit(axis.dimension.low + k * axis.dimension.step!)),
          );
    points = points.flatMap((prefix) => values.map((value) => [...prefix, value]));
  }
  return points;
}

const ENUMERABLE = 100_000;

/**
 * Collects a batch of distinct points, also distinct from the pending ones. `propose` is asked
 * again when it returns a point already taken; after a few refusals a random point stands in.
 * In a small discrete space the free points are listed and one of them is drawn; only when
 * none is left does a repeat go through (the caller asked for exactly `count` points).
 */
export function collectDistinct(
  axes: readonly Axis[],
  pending: readonly Point[],
  count: number,
  rng: Rng,
  propose: (chosen: readonly Point[]) => Point,
): Point[] {
  const taken = new Set(pending.map(pointKey));
  const chosen: Point[] = [];
  const size = spaceSize(axes);
  let all: Point[] | undefined;
  for (let i = 0; i < count; i++) {
    let point = propose(chosen);
    for (let attempt = 0; taken.has(pointKey(point)) && attempt < 16; attempt++) {
      point = attempt < 8 ? propose(chosen) : randomPoint(axes, rng);
    }
    if (taken.has(pointKey(point)) && size <= ENUMERABLE) {
      all ??= enumerate(axes);
      const free = all.filter((p) => !taken.has(pointKey(p)));
      if (free.length > 0) point = free[rng.int(free.length)]!;
    }
    taken.add(pointKey(point));
    chosen.push(point);
  }
  return chosen;
}
