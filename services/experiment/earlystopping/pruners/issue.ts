// What GetEarlyStoppingRules computes for a pruner: the reference the judges need (from the
// succeeded trials' curves) and the rules for Katib's metrics collector. The collector can check
// one threshold at one step on the best value so far, all rules together, so the rules are a
// snapshot it can apply safely: a trial they stop is one the pruner would stop too (the pruner,
// run by our judge, stops more, and later). Pruners whose test has no such form get no rule.
import { formatDouble } from '../../common/katib-numbers.ts';
import type { StoppingRule } from '../medianstop.ts';
import { bracketOf, HYPERBAND, hyperbandBrackets, ladderOf } from './hyperband.ts';
import { PATIENT } from './patient.ts';
import { PERCENTILE, percentileThresholds } from './percentile.ts';
import { innermost, type PrunerSpec } from './pruner.ts';
import { type Ladder, promotionCutOff, rungStep, SUCCESSIVE_HALVING } from './successive-halving.ts';
import { THRESHOLD } from './threshold.ts';
import type { Direction, Reference, ReferenceStep } from './types.ts';
import { WILCOXON } from './wilcoxon.ts';

/** As many steps as the judge keeps of a curve. */
export const MAX_REFERENCE_STEPS = 10_000;

/** The best succeeded curve by its last value (the first of equals). */
function bestCurve(curves: readonly (readonly number[])[], direction: Direction): readonly number[] {
  let best: readonly number[] = [];
  for (const curve of curves) {
    if (curve.length === 0) continue;
    const last = curve[curve.length - 1]!;
    const bestLast = best[best.length - 1];
    if (bestLast === undefined || (direction === 'MAXIMIZE' ? last > bestLast : last < bestLast))
      best = curve;
  }
  return best;
}

/**
 * @param succeededTrials how many SUCCEEDED trials the request listed
 * @param succeeded their numeric objective values, when `needsSucceededCurves` (else none: the
 *   longest is then recorded as 0)
 */
export function pruningReference(
  spec: PrunerSpec,
  direction: Direction,
  succeededTrials: number,
  succeeded: readonly (readonly number[])[],
): Reference {
  const inner = innermost(spec);
  let steps: ReferenceStep[] = [];
  if (inner?.algorithm === PERCENTILE)
    steps = percentileThresholds(inner.settings, direction, succeeded, MAX_REFERENCE_STEPS);
  else if (inner?.algorithm === WILCOXON)
    steps = bestCurve(succeeded, direction)
      .slice(0, MAX_REFERENCE_STEPS)
      .map((value, i) => ({ step: i + 1, value }));
  return Object.freeze({
    succeededTrials,
    succeededMaxSteps: Math.max(0, ...succeeded.map((c) => c.length)),
    steps: Object.freeze(steps),
  });
}

/**
 * Whether the reference needs the succeeded trials' curves: percentile's thresholds, wilcoxon's
 * best trial, the steps that resolve `auto` resources. The others need only how many succeeded.
 */
export function needsSucceededCurves(spec: PrunerSpec): boolean {
  const inner = innermost(spec);
  switch (inner?.algorithm) {
    case PERCENTILE:
    case WILCOXON:
      return true;
    case SUCCESSIVE_HALVING:
      return inner.settings.minResource === 'auto';
    case HYPERBAND:
      return inner.settings.maxResource === 'auto';
    default:
      return false;
  }
}

/** Whether the collector's rules need every listed trial's curve (the values at a rung). */
export function needsListedCurves(spec: PrunerSpec): boolean {
  if (spec.algorithm === SUCCESSIVE_HALVING) return spec.settings.minResource !== 'auto';
  return spec.algorithm === HYPERBAND && spec.settings.maxResource !== 'auto';
}

/** The cut-off of a ladder's rung at `step`, from the values the listed trials had there. */
function rungCutOff(
  ladder: Ladder,
  step: number,
  curves: Iterable<readonly number[]>,
  direction: Direction,
): number | undefined {
  const values: number[] = [];
  for (const curve of curves) if (curve.length >= step) values.push(curve[step - 1]!);
  if (values.length + 1 <= ladder.bootstrapCount) return undefined;
  return promotionCutOff(values, ladder.reductionFactor, direction);
}

/** The threshold and step of the one rule the collector gets, if the pruner has one now. */
function snapshot(
  spec: PrunerSpec,
  direction: Direction,
  reference: Reference,
  listed: ReadonlyMap<string, readonly number[]>,
): { value: number; step: number } | undefined {
  switch (spec.algorithm) {
    case PERCENTILE: {
      if (reference.succeededTrials < Math.max(1, spec.settings.nStartupTrials)) return undefined;
      const first = reference.steps[0];
      return first && { value: first.value, step: first.step };
    }
    case SUCCESSIVE_HALVING: {
      const { minResource, reductionFactor, minEarlyStoppingRate, bootstrapCount } = spec.settings;
      if (minResource === 'auto') return undefined;
      const ladder = { bracket: 0, minResource, reductionFactor, rate: minEarlyStoppingRate, bootstrapCount };
      const step = rungStep(ladder, 0);
      const value = rungCutOff(ladder, step, listed.values(), direction);
      return value === undefined ? undefined : { value, step };
    }
    case HYPERBAND: {
      // A new trial's bracket is unknown: the rule is the last bracket's first rung, which every
      // bracket has, with the most lenient of their cut-offs there.
      if (spec.settings.maxResource === 'auto') return undefined;
      const brackets = hyperbandBrackets(spec.settings, 0)!;
      const step = rungStep(ladderOf(spec.settings, brackets.count - 1), 0);
      let lenient: number | undefined;
      for (let bracket = 0; bracket < brackets.count; bracket++) {
        const members = [...listed]
          .filter(([name]) => bracketOf(name, brackets) === bracket)
          .map(([, c]) => c);
        const cutOff = rungCutOff(ladderOf(spec.settings, bracket), step, members, direction);
        if (cutOff === undefined) return undefined;
        if (lenient === undefined || (direction === 'MAXIMIZE' ? cutOff < lenient : cutOff > lenient))
          lenient = cutOff;
      }
      return lenient === undefined ? undefined : { value: lenient, step };
    }
    case THRESHOLD: {
      // The collector compares the best value so far: only the bound on the side of bad values
      // stops the same trials.
      const bound = direction === 'MAXIMIZE' ? spec.settings.lower : spec.settings.upper;
      if (!Number.isFinite(bound)) return undefined;
      // The first checkpoint.
      const { nWarmupSteps, intervalSteps } = spec.settings;
      return { value: bound, step: nWarmupSteps >= 1 ? nWarmupSteps : intervalSteps };
    }
    case WILCOXON:
    case PATIENT:
      return undefined;
  }
}

/** The rules GetEarlyStoppingRules answers for a pruner (none, or one on the objective). */
export function collectorRules(input: {
  readonly spec: PrunerSpec;
  readonly objectiveMetric: string;
  readonly direction: Direction;
  readonly reference: Reference;
  /** Every listed trial's numeric objective values, by name, when `needsListedCurves`. */
  readonly listed: ReadonlyMap<string, readonly number[]>;
}): StoppingRule[] {
  if (input.objectiveMetric === '') return [];
  const found = snapshot(input.spec, input.direction, input.reference, input.listed);
  if (found === undefined) return [];
  return [
    {
      name: input.objectiveMetric,
      value: formatDouble(found.value),
      comparison: input.direction === 'MAXIMIZE' ? 'LESS' : 'GREATER',
      startStep: found.step,
    },
  ];
}
