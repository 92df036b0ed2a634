// `successivehalving` (asynchronous successive halving, Optuna's SuccessiveHalvingPruner): rungs at
// min_resource · reduction_factor^(min_early_stopping_rate + k) steps; at each rung the trial's value
// at that step is recorded, and the trial goes on only while it is in the top 1/reduction_factor of
// the values recorded there so far (with fewer than reduction_factor values: only if it is the best).
// Records are shared by every judge of the experiment and decide once: a rung already recorded for
// a trial is never judged again (after a restart too).
import { invalidArgument } from '../../../../shared/errors.ts';
import { integerFrom, integerFromOrAuto, notAllowed, readDeclared, type Setting } from './settings.ts';
import {
  type Direction,
  GO_ON,
  type RungRecord,
  type StepInput,
  type StepVerdict,
  stopBecause,
} from './types.ts';

export const SUCCESSIVE_HALVING = 'successivehalving';

export interface SuccessiveHalvingSettings {
  readonly minResource: number | 'auto';
  readonly reductionFactor: number;
  readonly minEarlyStoppingRate: number;
  readonly bootstrapCount: number;
}

export const SUCCESSIVE_HALVING_SETTINGS = {
  min_resource: { kind: integerFromOrAuto(1), default: 'auto' as const },
  reduction_factor: { kind: integerFrom(2), default: 4 },
  min_early_stopping_rate: { kind: integerFrom(0), default: 0 },
  bootstrap_count: { kind: integerFrom(0), default: 0 },
};

export function readSuccessiveHalvingSettings(
  settings: readonly Setting[],
  algorithm = SUCCESSIVE_HALVING,
  extra: readonly string[] = [],
): SuccessiveHalvingSettings {
  const read = readDeclared(algorithm, settings, SUCCESSIVE_HALVING_SETTINGS, extra);
  if (read.bootstrap_count > 0 && read.min_resource === 'auto')
    throw invalidArgument(
      notAllowed(algorithm, 'bootstrap_count', String(read.bootstrap_count), '0 while min_resource is auto'),
    );
  return Object.freeze({
    minResource: read.min_resource,
    reductionFactor: read.reduction_factor,
    minEarlyStoppingRate: read.min_early_stopping_rate,
    bootstrapCount: read.bootstrap_count,
  });
}

/** Optuna's estimate of `auto`: a hundredth of the longest succeeded trial, at least 1. */
export const autoMinResource = (succeededMaxSteps: number): number =>
  Math.max(Math.floor(succeededMaxSteps / 100), 1);

/** One successive-halving ladder: successivehalving has one, hyperband one per bracket. */
export interface Ladder {
  readonly bracket: number;
  readonly minResource: number;
  readonly reductionFactor: number;
  /** min_early_stopping_rate (hyperband: the bracket). */
  readonly rate: number;
  readonly bootstrapCount: number;
}

export const rungStep = (ladder: Ladder, rung: number): number =>
  ladder.minResource * ladder.reductionFactor ** (ladder.rate + rung);

/**
 * The value a new trial must reach at a rung to go on, given the values others recorded there: it
 * is promoted when it is at least as good. Undefined when any value goes on (nothing recorded yet).
 */
export function promotionCutOff(
  others: readonly number[],
  reductionFactor: number,
  direction: Direction,
): number | undefined {
  if (others.length === 0) return undefined;
  const index = Math.max(0, Math.floor((others.length + 1) / reductionFactor) - 1);
  const sorted = [...others].sort((a, b) => (direction === 'MAXIMIZE' ? b - a : a - b));
  return sorted[index];
}

function completedRungs(records: readonly RungRecord[]): number {
  let rung = 0;
  while (records.some((r) => r.rung === rung)) rung++;
  return rung;
}

export function ladderStep(ladder: Ladder, input: StepInput, label: string): StepVerdict {
  const { trialName, step, direction } = input;
  const records = input.rungs.recordsOf(trialName).filter((r) => r.bracket === ladder.bracket);
  const refused = records.find((r) => !r.promoted);
  // Decided before (a restart, or another judge): the recorded decision stands.
  if (refused)
    return stopBecause(
      `${label}value ${refused.value} at step ${refused.step} (rung ${refused.rung}) was not promoted`,
    );
  const value = input.curve.value(step - 1);
  const made: RungRecord[] = [];
  for (let rung = completedRungs(records); step >= rungStep(ladder, rung); rung++) {
    const others = input.rungs.valuesAt(ladder.bracket, rung, trialName);
    const record = (promoted: boolean): RungRecord => ({
      trialName,
      bracket: ladder.bracket,
      rung,
      step,
      value,
      promoted,
    });
    const where = `${label}value ${value} at step ${step} (rung ${rung}, from step ${rungStep(ladder, rung)})`;
    if (others.length + 1 <= ladder.bootstrapCount) {
      made.push(record(false));
      return stopBecause(
        `${where}: only ${others.length + 1} values recorded at the rung, bootstrap_count is ${ladder.bootstrapCount}`,
        made,
      );
    }
    const cutOff = promotionCutOff(others, ladder.reductionFactor, direction);
    const promoted = cutOff === undefined || (direction === 'MAXIMIZE' ? value >= cutOff : value <= cutOff);
    made.push(record(promoted));
    if (!promoted)
      return stopBecause(
        `${where} is not in the top 1/${ladder.reductionFactor} of the ${others.length + 1} values recorded at the rung (cut-off ${cutOff})`,
        made,
      );
  }
  return made.length === 0 ? GO_ON : { stop: false, evidence: '', records: made };
}

/**
 * @param autoSteps the longest succeeded trial when `auto` was first resolvable, 0 before: no
 *   pruning until then (Optuna: until a trial completed)
 */
export function successiveHalvingStep(
  settings: SuccessiveHalvingSettings,
  input: StepInput,
  autoSteps: number,
): StepVerdict {
  const minResource =
    settings.minResource === 'auto'
      ? autoSteps > 0
        ? autoMinResource(autoSteps)
        : undefined
      : settings.minResource;
  if (minResource === undefined) return GO_ON;
  return ladderStep(
    {
      bracket: 0,
      minResource,
      reductionFactor: settings.reductionFactor,
      rate: settings.minEarlyStoppingRate,
      bootstrapCount: settings.bootstrapCount,
    },
    input,
    '',
  );
}
