// The algorithms' own view of a search space and of past trials. Katib's ParameterSpec,
// its string-typed bounds and its objective direction are converted to and from these
// types at the domain's edge (see ./katib-space.ts), so every sampler sees plain numbers,
// always minimises, and never parses a string.

import type { Rng } from './rng.ts';

export type Distribution = 'uniform' | 'log-uniform' | 'normal' | 'log-normal';

export type Dimension =
  | {
      readonly kind: 'float';
      readonly name: string;
      readonly low: number;
      readonly high: number;
      /** Values snap to low + k·step when present. */
      readonly step?: number;
      readonly distribution: Distribution;
    }
  | {
      readonly kind: 'int';
      readonly name: string;
      readonly low: number;
      readonly high: number;
      /** Always ≥ 1 (Katib defaults an INT step to 1). */
      readonly step: number;
      readonly distribution: Distribution;
    }
  | {
      /** CATEGORICAL and DISCRETE lists; `numeric` when every choice parses as a number (DISCRETE). */
      readonly kind: 'categorical';
      readonly name: string;
      readonly choices: readonly string[];
      readonly numeric: boolean;
    };

/** One value per dimension, in dimension order: a number for float/int, a choice string for categorical. */
export type Point = readonly (number | string)[];

/** A finished trial, its objective turned into a loss to minimise (negated for MAXIMIZE). */
export interface Observation {
  readonly point: Point;
  readonly loss: number;
  /**
   * Every objective's loss, in the `objectives` setting's order (loss is the first), when the
   * experiment has several and the sampler ranks on all of them; absent otherwise.
   */
  readonly losses?: readonly number[];
}

export interface SamplerInput<Options> {
  readonly dimensions: readonly Dimension[];
  /** Completed trials, oldest first. */
  readonly history: readonly Observation[];
  /** Points already handed out whose results are unknown (running trials): for constant liar and distinctness. */
  readonly pending: readonly Point[];
  /** How many points to return: exactly this many, distinct from each other and from `pending`. */
  readonly count: number;
  readonly rng: Rng;
  readonly options: Options;
  /** The experiment's max_trial_count when it sets one: how long a run the sampler may plan for. */
  readonly budget?: number;
}

export type Sampler<Options> = (input: SamplerInput<Options>) => Point[];

const keyNumber = new Float64Array(1);
const keyHalves = new Uint16Array(keyNumber.buffer);

/**
 * A key that is equal for equal points (for distinctness checks, within one call). Numbers go in
 * as their 64 bits rather than as decimal text, which took a third of a random call at 200 trials
 * (every completed trial's point is keyed on each call); -0 and 0 are one value, as in JSON.
 */
export function pointKey(point: Point): string {
  let key = '';
  for (let i = 0; i < point.length; i++) {
    const value = point[i]!;
    if (typeof value === 'number') {
      keyNumber[0] = value === 0 ? 0 : value;
      key += String.fromCharCode(0, keyHalves[0]!, keyHalves[1]!, keyHalves[2]!, keyHalves[3]!);
    } else key += `\u0001${value.length}:${value}`;
  }
  return key;
}
