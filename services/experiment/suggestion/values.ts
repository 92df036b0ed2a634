// Where the values of a dimension lie: its step grid (numpy arange as Katib computes it) and a
// map from the unit interval onto the dimension under its distribution, shared by the simple
// samplers (random, sobol, hyperband, pbt) so that they agree on what every distribution means.

import { normalCdf, normalQuantile } from './models/numeric.ts';
import type { Dimension } from './space.ts';

type NumericDimension = Exclude<Dimension, { kind: 'categorical' }>;

/**
 * How many values a stepped dimension has: INT `range(min, max+1, step)`; DOUBLE
 * `np.arange(min, max+step, step)` without a last value above max. Undefined for a DOUBLE
 * without step (a continuum).
 */
export function stepCount(dimension: NumericDimension): number | undefined {
  if (dimension.kind === 'int') return Math.floor((dimension.high - dimension.low) / dimension.step) + 1;
  const { low, high, step } = dimension;
  if (step === undefined) return undefined;
  let count = Math.ceil((high + step - low) / step);
  while (count > 1 && stepValue(dimension, count - 1) > high) count--;
  return Math.max(count, 1);
}

/** The k-th value of a stepped dimension; for DOUBLE exactly the double numpy's arange gives. */
export function stepValue(dimension: NumericDimension, k: number): number {
  if (dimension.kind === 'int') return dimension.low + k * dimension.step;
  const { low, step } = dimension;
  if (step === undefined) throw new RangeError(`${dimension.name} has no step`);
  // numpy computes the increment as (start + step) - start, then start + i * increment.
  const increment = low + step - low;
  return low + k * increment;
}

/** The nearest allowed value: a step value when the dimension has a step, else clamped to [low, high]. */
export function snap(dimension: NumericDimension, x: number): number {
  const count = stepCount(dimension);
  if (count === undefined) return Math.min(dimension.high, Math.max(dimension.low, x));
  const increment =
    dimension.kind === 'int' ? dimension.step : dimension.low + dimension.step! - dimension.low;
  const k = Math.min(count - 1, Math.max(0, Math.round((x - dimension.low) / increment)));
  return stepValue(dimension, k);
}

/**
 * The value at quantile u ∈ [0, 1) of the dimension's distribution. UNIFORM and LOG_UNIFORM span
 * [min, max]; NORMAL is centred on (min+max)/2 with σ = (max−min)/6 as Katib's hyperopt service
 * sets it, but truncated to [min, max] (hyperopt's is not, and leaves the range); LOG_NORMAL is the
 * same on the log scale. Stepped and INT dimensions snap to their values, each value getting the
 * probability mass of the half-step around it.
 */
export function fromUnit(dimension: Dimension, u: number): number | string {
  if (dimension.kind === 'categorical') {
    return dimension.choices[
      Math.min(dimension.choices.length - 1, Math.floor(u * dimension.choices.length))
    ]!;
  }
  const { low, high, distribution } = dimension;
  if (low === high) return low;
  const count = stepCount(dimension);
  if (count !== undefined && distribution === 'uniform')
    return stepValue(dimension, Math.min(count - 1, Math.floor(u * count)));
  const log = distribution === 'log-uniform' || distribution === 'log-normal';
  const half = count === undefined ? 0 : (dimension.kind === 'int' ? dimension.step : dimension.step!) / 2;
  const lo = log && low - half <= 0 ? low : low - half;
  const hi = high + half;
  const [a, b] = log ? [Math.log(lo), Math.log(hi)] : [lo, hi];
  let x: number;
  if (distribution === 'uniform' || distribution === 'log-uniform') {
    x = a + u * (b - a);
  } else {
    const [centreLow, centreHigh] = log ? [Math.log(low), Math.log(high)] : [low, high];
    const mu = (centreLow + centreHigh) / 2;
    const sigma = (centreHigh - centreLow) / 6;
    const pa = normalCdf((a - mu) / sigma);
    const pb = normalCdf((b - mu) / sigma);
    x = mu + sigma * normalQuantile(pa + u * (pb - pa));
    x = Math.min(b, Math.max(a, x));
  }
  const value = log ? Math.exp(x) : x;
  return snap(dimension, value);
}
