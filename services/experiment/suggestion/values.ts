// Where the values of a dimension lie: its step grid (numpy arange as Katib computes it) and a
// map from the unit interval onto the dimension under its distribution, shared by the simple
// samplers (random, sobol, hyperband, pbt) so that they agree on what every distribution means.

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

/** Standard normal CDF (via erfc, relative error below 1.2e-7). */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 +
                            t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** Standard normal quantile (Acklam's rational approximation, relative error below 1.2e-9). */
export function normalQuantile(p: number): number {
  if (p <= 0) return -Infinity;
  if (p >= 1) return Infinity;
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
    );
  }
  if (p > 1 - low) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}
