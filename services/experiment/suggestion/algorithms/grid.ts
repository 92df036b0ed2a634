// Grid search over every combination (INT by step, DOUBLE by numpy arange as Katib computes it,
// lists as listed), visited in a seeded pseudo-random order like Optuna's GridSampler, but never
// repeating a point: once every combination has a trial, the call fails instead.

import { AppError, invalidArgument } from '../../../../shared/errors.ts';
import type { Algorithm, ExperimentView } from '../algorithm.ts';
import { toAssignments } from '../katib-space.ts';
import { type GridSettings, readGridSettings } from '../settings/katib-settings.ts';
import type { Dimension, Point } from '../space.ts';
import { pointKey } from '../space.ts';
import { stepCount, stepValue } from '../values.ts';

/** Grids larger than this are not enumerated (2^52: indices stay exact doubles). */
const MAX_GRID_POINTS = 2 ** 52;

/** Values per dimension; undefined for a DOUBLE without step. */
function axisSize(dimension: Dimension): number | undefined {
  return dimension.kind === 'categorical' ? dimension.choices.length : stepCount(dimension);
}

export function gridSize(dimensions: readonly Dimension[]): number {
  return dimensions.reduce((size, dimension) => size * (axisSize(dimension) ?? Number.NaN), 1);
}

function checkGrid(experiment: ExperimentView): void {
  const { dimensions, maxTrialCount } = experiment;
  const continuous = dimensions.find((d) => axisSize(d) === undefined);
  if (continuous) {
    // Katib's Optuna message (it names the parameters, then the first one without step).
    throw invalidArgument(
      `failed to validate parameters(${dimensions.map((d) => d.name).join(', ')}): Param ${continuous.name} step is nil; For discrete search space, all parameters must include step`,
    );
  }
  const size = gridSize(dimensions);
  if (maxTrialCount > size)
    throw invalidArgument(`Max Trial Count: ${maxTrialCount} > all possible search combinations: ${size}`);
  if (size > MAX_GRID_POINTS)
    throw invalidArgument(`grid: ${size} combinations are too many to enumerate (at most 2^52)`);
}

function pointAt(dimensions: readonly Dimension[], index: number): Point {
  let rest = index;
  const point: (number | string)[] = [];
  for (let i = dimensions.length - 1; i >= 0; i--) {
    const dimension = dimensions[i]!;
    const size = axisSize(dimension)!;
    const k = rest % size;
    rest = Math.floor(rest / size);
    point[i] = dimension.kind === 'categorical' ? dimension.choices[k]! : stepValue(dimension, k);
  }
  return point;
}

/**
 * A bijection of [0, size) keyed by the seed: a 4-round Feistel network on the smallest even
 * power of two that holds size, walking the cycle until it lands inside (format-preserving).
 */
export function permuteIndex(index: number, size: number, key: number): number {
  const halfBits = Math.max(1, Math.ceil(Math.ceil(Math.log2(Math.max(size, 2))) / 2));
  const half = 2 ** halfBits;
  let x = index;
  do {
    let left = Math.floor(x / half);
    let right = x % half;
    for (let round = 0; round < 4; round++) {
      const mixed =
        mix32((Math.imul(right, 0x9e3779b1) ^ key ^ Math.imul(round + 1, 0x85ebca6b)) >>> 0) % half;
      [left, right] = [right, (left ^ mixed) % half];
    }
    x = left * half + right;
  } while (x >= size);
  return x;
}

function mix32(value: number): number {
  let z = value >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x7feb352d) >>> 0;
  z = Math.imul(z ^ (z >>> 15), 0x846ca68b) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

export const grid: Algorithm<GridSettings> = {
  readSettings: readGridSettings,
  checkExperiment: checkGrid,
  suggest({ experiment, trials, count, seeds }) {
    const { dimensions } = experiment;
    const size = gridSize(dimensions);
    const visited = new Set(trials.all.map(pointKey));
    const points: Point[] = [];
    // Trials outside the grid (other values) do not use up grid points.
    for (let i = 0; i < size && points.length < count; i++) {
      const point = pointAt(dimensions, permuteIndex(i, size, seeds.experiment));
      if (!visited.has(pointKey(point))) points.push(point);
    }
    if (points.length < count) {
      throw new AppError(
        'FAILED_PRECONDITION',
        `grid is exhausted: ${points.length} of its ${size} points have no trial yet and ${count} were requested (grid search never repeats a point)`,
      );
    }
    return { suggestions: points.map((point) => ({ assignments: toAssignments(dimensions, point) })) };
  },
};
