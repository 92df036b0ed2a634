// `threshold` (Optuna's ThresholdPruner): at each checkpoint, stop a trial whose latest value is
// below `lower` or above `upper`, whatever the objective's direction (e.g. a diverging loss).
import { invalidArgument } from '../../../../shared/errors.ts';
import { ANY_NUMBER, integerFrom, notAllowed, readDeclared, type Setting } from './settings.ts';
import { GO_ON, isCheckStep, type StepInput, type StepVerdict, stopBecause } from './types.ts';

export const THRESHOLD = 'threshold';

export interface ThresholdSettings {
  /** -Infinity when not set. */
  readonly lower: number;
  /** Infinity when not set. */
  readonly upper: number;
  readonly nWarmupSteps: number;
  readonly intervalSteps: number;
}

export const THRESHOLD_SETTINGS = {
  lower: { kind: ANY_NUMBER, optional: true as const },
  upper: { kind: ANY_NUMBER, optional: true as const },
  n_warmup_steps: { kind: integerFrom(0), default: 0 },
  interval_steps: { kind: integerFrom(1), default: 1 },
};

export function readThresholdSettings(
  settings: readonly Setting[],
  algorithm = THRESHOLD,
  extra: readonly string[] = [],
): ThresholdSettings {
  const read = readDeclared(algorithm, settings, THRESHOLD_SETTINGS, extra);
  if (read.lower === undefined && read.upper === undefined)
    throw invalidArgument(`algorithm ${algorithm} needs lower or upper (a finite number), or both`);
  if (read.lower !== undefined && read.upper !== undefined && read.lower > read.upper)
    throw invalidArgument(
      notAllowed(algorithm, 'lower', String(read.lower), `at most upper (${read.upper})`),
    );
  return Object.freeze({
    lower: read.lower ?? -Infinity,
    upper: read.upper ?? Infinity,
    nWarmupSteps: read.n_warmup_steps,
    intervalSteps: read.interval_steps,
  });
}

export function thresholdStep(settings: ThresholdSettings, input: StepInput): StepVerdict {
  const { step } = input;
  if (!isCheckStep(step, settings.nWarmupSteps, settings.intervalSteps)) return GO_ON;
  const value = input.curve.value(step - 1);
  if (value < settings.lower)
    return stopBecause(`value ${value} at step ${step} is below lower ${settings.lower}`);
  if (value > settings.upper)
    return stopBecause(`value ${value} at step ${step} is above upper ${settings.upper}`);
  return GO_ON;
}
