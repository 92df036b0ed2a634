// `percentile` (Optuna's PercentilePruner): at each checkpoint, stop a trial whose best value so far
// is worse than the given percentile of the succeeded trials' values at the same step. The
// percentiles come from GetEarlyStoppingRules (the succeeded trials' curves when it was called).
import { integerFrom, numberWithin, readDeclared, type Setting } from './settings.ts';
import {
  bestOf,
  type Direction,
  GO_ON,
  isCheckStep,
  type ReferenceStep,
  type StepInput,
  type StepVerdict,
  stopBecause,
} from './types.ts';

export const PERCENTILE = 'percentile';

export const PERCENTILE_SETTINGS = {
  percentile: { kind: numberWithin(0, 100, 'a number from 0 to 100') },
  n_startup_trials: { kind: integerFrom(0), default: 5 },
  n_warmup_steps: { kind: integerFrom(0), default: 0 },
  interval_steps: { kind: integerFrom(1), default: 1 },
  n_min_trials: { kind: integerFrom(1), default: 1 },
} as const;

export interface PercentileSettings {
  readonly percentile: number;
  readonly nStartupTrials: number;
  readonly nWarmupSteps: number;
  readonly intervalSteps: number;
  readonly nMinTrials: number;
}

export function readPercentileSettings(
  settings: readonly Setting[],
  algorithm = PERCENTILE,
  extra: readonly string[] = [],
): PercentileSettings {
  const read = readDeclared(algorithm, settings, PERCENTILE_SETTINGS, extra);
  return Object.freeze({
    percentile: read.percentile,
    nStartupTrials: read.n_startup_trials,
    nWarmupSteps: read.n_warmup_steps,
    intervalSteps: read.interval_steps,
    nMinTrials: read.n_min_trials,
  });
}

/** numpy's linear percentile (its default), with numpy's way of interpolating. */
export function linearPercentile(values: readonly number[], percent: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = (sorted.length - 1) * (percent / 100);
  const below = Math.floor(index);
  const above = Math.min(below + 1, sorted.length - 1);
  const t = index - below;
  const a = sorted[below]!;
  const b = sorted[above]!;
  const span = b - a;
  return t >= 0.5 ? b - span * (1 - t) : a + span * t;
}

/**
 * The threshold at each checkpoint that at least `nMinTrials` succeeded curves reach. A maximised
 * objective keeps the top: its threshold is the (100 − percentile)-th percentile.
 */
export function percentileThresholds(
  settings: PercentileSettings,
  direction: Direction,
  curves: readonly (readonly number[])[],
  maxSteps: number,
): ReferenceStep[] {
  const longest = Math.min(maxSteps, Math.max(0, ...curves.map((c) => c.length)));
  const percent = direction === 'MAXIMIZE' ? 100 - settings.percentile : settings.percentile;
  const out: ReferenceStep[] = [];
  for (let step = 1; step <= longest; step++) {
    if (!isCheckStep(step, settings.nWarmupSteps, settings.intervalSteps)) continue;
    const atStep = curves.filter((c) => c.length >= step).map((c) => c[step - 1]!);
    if (atStep.length >= settings.nMinTrials && atStep.length > 0)
      out.push({ step, value: linearPercentile(atStep, percent) });
  }
  return out;
}

/** The reference step `step`, by binary search (steps ascend). */
export function referenceAt(steps: readonly ReferenceStep[], step: number): number | undefined {
  let lo = 0;
  let hi = steps.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = steps[mid]!.step;
    if (at === step) return steps[mid]!.value;
    if (at < step) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

export function percentileStep(settings: PercentileSettings, input: StepInput): StepVerdict {
  const { step, reference, direction } = input;
  if (!isCheckStep(step, settings.nWarmupSteps, settings.intervalSteps)) return GO_ON;
  const trials = reference.succeededTrials;
  if (trials === 0 || trials < settings.nStartupTrials) return GO_ON;
  const threshold = referenceAt(reference.steps, step);
  if (threshold === undefined) return GO_ON;
  const best = bestOf(input.curve, 0, step, direction);
  const worse = direction === 'MAXIMIZE' ? best < threshold : best > threshold;
  if (!worse) return GO_ON;
  return stopBecause(
    `best value ${best} by step ${step} is ${direction === 'MAXIMIZE' ? 'below' : 'above'} ${threshold}, ` +
      `the ${settings.percentile}th percentile (best first) of the ${trials} succeeded trials at that step`,
  );
}
