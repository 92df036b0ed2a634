// fANOVA importance for each objective of an experiment, from Katib's trials as every algorithm
// reads them (../katib-space.ts readTrials): the trials that report every objective
// (../multi-objective/objectives.ts), one forest per objective.

import type { TrialRecord } from '../katib-space.ts';
import { type NamedObjective, scoreTrials } from '../multi-objective/objectives.ts';
import type { Dimension } from '../space.ts';
import { type FanovaOptions, fanovaImportances, type ParameterImportance } from './fanova.ts';

export interface ObjectiveImportance {
  readonly metricName: string;
  /** How many trials the forest learnt from. */
  readonly trials: number;
  /** Per parameter in dimension order, summing to 1; null with fewer than two trials. */
  readonly importances: readonly ParameterImportance[] | null;
}

export function importancesByObjective(
  dimensions: readonly Dimension[],
  records: readonly TrialRecord[],
  objectives: readonly NamedObjective[],
  options: Partial<FanovaOptions> = {},
): ObjectiveImportance[] {
  const scored = scoreTrials(records, objectives);
  return objectives.map(({ metricName }, k) => ({
    metricName,
    trials: scored.length,
    importances:
      scored.length < 2
        ? null
        : fanovaImportances(
            dimensions,
            scored.map((t) => ({ point: t.point, value: t.losses[k]! })),
            options,
          ),
  }));
}
