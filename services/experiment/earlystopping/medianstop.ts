// Katib's `medianstop` early-stopping algorithm: its settings with Katib's validation messages, and
// the rule computed from the experiment's succeeded trials. Pure: the objective curves come in.
//
// Difference from Katib, on purpose: Katib's service takes the arithmetic MEAN of the trials'
// averages, although its name and the rule it implements (Vizier's median stopping rule) call for
// the MEDIAN. We take the median of the trials' running averages up to `start_step`.

import { invalidArgument } from '../../../shared/errors.ts';
import { formatDouble, parseFinite, readInt } from '../common/katib-numbers.ts';

export const MEDIANSTOP = 'medianstop';

export interface MedianStopSettings {
  /** How many succeeded trials must have a running average before a rule is issued. */
  readonly minTrialsRequired: number;
  /** The step at which a running trial is compared, and how many values the averages take. */
  readonly startStep: number;
}

export const DEFAULT_MEDIANSTOP_SETTINGS: MedianStopSettings = Object.freeze({
  minTrialsRequired: 3,
  startStep: 4,
});

export type Comparison = 'EQUAL' | 'LESS' | 'GREATER';
export type ObjectiveType = 'UNKNOWN' | 'MINIMIZE' | 'MAXIMIZE';

export interface StoppingRule {
  readonly name: string;
  /** The threshold as text, as Katib carries it. */
  readonly value: string;
  readonly comparison: Comparison;
  readonly startStep: number;
}

/**
 * Reads Katib's EarlyStoppingSpec; throws INVALID_ARGUMENT with Katib's message for an unknown
 * algorithm or setting, a value that is not an integer, or one out of range.
 */
export function readMedianStopSettings(spec: {
  readonly algorithmName: string;
  readonly settings: readonly { readonly name: string; readonly value: string }[];
}): MedianStopSettings {
  if (spec.algorithmName !== MEDIANSTOP)
    throw invalidArgument(`unknown algorithm name ${spec.algorithmName}`);
  let { minTrialsRequired, startStep } = DEFAULT_MEDIANSTOP_SETTINGS;
  for (const { name, value } of spec.settings) {
    if (name !== 'min_trials_required' && name !== 'start_step')
      throw invalidArgument(`unknown setting ${name} for algorithm ${MEDIANSTOP}`);
    const number = readInt(name, value);
    if (name === 'min_trials_required') {
      if (number <= 0) throw invalidArgument('min_trials_required must be greater than zero (>0)');
      minTrialsRequired = number;
    } else {
      if (number < 1) throw invalidArgument('start_step must be greater or equal than one (>=1)');
      startStep = number;
    }
  }
  return Object.freeze({ minTrialsRequired, startStep });
}

/** Katib's direction: stop a maximised trial that is LESS than the threshold, else GREATER. */
export const comparisonFor = (objectiveType: ObjectiveType): Comparison =>
  objectiveType === 'MAXIMIZE' ? 'LESS' : 'GREATER';

/**
 * The running average of a trial's first `startStep` numeric objective values (Katib reads them in
 * time order). Values that are not numbers, such as Katib's "unavailable", are skipped; undefined
 * when none is left.
 */
export function runningAverage(values: readonly string[], startStep: number): number | undefined {
  const numbers: number[] = [];
  for (const text of values) {
    const value = parseFinite(text);
    if (value !== undefined) numbers.push(value);
    if (numbers.length === startStep) break;
  }
  if (numbers.length === 0) return undefined;
  return numbers.reduce((sum, v) => sum + v, 0) / numbers.length;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * The median stopping rule from the succeeded trials' objective curves; undefined until
 * `minTrialsRequired` trials have at least one numeric value.
 */
export function medianStopRule(input: {
  readonly objectiveMetric: string;
  readonly objectiveType: ObjectiveType;
  readonly settings: MedianStopSettings;
  readonly succeededCurves: readonly (readonly string[])[];
}): StoppingRule | undefined {
  const { settings } = input;
  const averages = input.succeededCurves
    .map((curve) => runningAverage(curve, settings.startStep))
    .filter((average): average is number => average !== undefined);
  if (averages.length < settings.minTrialsRequired) return undefined;
  return Object.freeze({
    name: input.objectiveMetric,
    value: formatDouble(median(averages)),
    comparison: comparisonFor(input.objectiveType),
    startStep: settings.startStep,
  });
}
