// `wilcoxon` (Optuna's WilcoxonPruner): compares the trial's values step by step with those of the
// best succeeded trial (best last value) at the same steps, and stops the trial when the Wilcoxon
// signed-rank test says it is worse with p below p_threshold, unless its average is still at least
// as good as the best trial's (Optuna's safeguard).
import { integerFrom, numberWithin, readDeclared, type Setting } from './settings.ts';
import { GO_ON, type StepInput, type StepVerdict, stopBecause } from './types.ts';
import { wilcoxonSignedRankP } from './wilcoxon-test.ts';

export const WILCOXON = 'wilcoxon';

export interface WilcoxonSettings {
  readonly pThreshold: number;
  readonly nStartupSteps: number;
}

export const WILCOXON_SETTINGS = {
  p_threshold: { kind: numberWithin(0, 1, 'a number from 0 to 1'), default: 0.1 },
  n_startup_steps: { kind: integerFrom(0), default: 2 },
};

export function readWilcoxonSettings(
  settings: readonly Setting[],
  algorithm = WILCOXON,
  extra: readonly string[] = [],
): WilcoxonSettings {
  const read = readDeclared(algorithm, settings, WILCOXON_SETTINGS, extra);
  return Object.freeze({ pThreshold: read.p_threshold, nStartupSteps: read.n_startup_steps });
}

export function wilcoxonStep(settings: WilcoxonSettings, input: StepInput): StepVerdict {
  const best = input.reference.steps;
  if (best.length === 0) return GO_ON;
  const { curve, step, direction } = input;
  const diffs: number[] = [];
  for (const { step: at, value } of best) {
    if (at > step) break;
    diffs.push(curve.value(at - 1) - value);
  }
  if (diffs.length < Math.max(2, settings.nStartupSteps)) return GO_ON;
  let trialSum = 0;
  for (let i = 0; i < step; i++) trialSum += curve.value(i);
  const bestMean = best.reduce((total, s) => total + s.value, 0) / best.length;
  const trialMean = trialSum / step;
  const averageIsBest = direction === 'MAXIMIZE' ? bestMean <= trialMean : bestMean >= trialMean;
  const p = wilcoxonSignedRankP(diffs, direction === 'MAXIMIZE' ? 'less' : 'greater');
  if (!(p < settings.pThreshold) || averageIsBest) return GO_ON;
  return stopBecause(
    `values of steps 1 to ${diffs.length} are worse than the best succeeded trial's at the same steps: ` +
      `Wilcoxon signed-rank p ${p} < p_threshold ${settings.pThreshold} (means ${trialMean} and ${bestMean})`,
  );
}
