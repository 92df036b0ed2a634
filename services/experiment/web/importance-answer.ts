// GET /api/experiments/{name}/importance: each parameter's fANOVA importance for each objective
// (../suggestion/importance/importance-by-objective.ts), bounded in time: each objective's forest
// learns from at most IMPORTANCE_MAX_TRIALS of the counted trials, drawn at random with a fixed
// seed (the same trials give the same answer), so 10,000 trials cost about what 500 do.
import type { ExperimentView, ObjectiveView, TrialObjectiveValues } from '../common/ports.ts';
import { importancesByObjective } from '../suggestion/importance/importance-by-objective.ts';
import type { TrialRecord } from '../suggestion/katib-space.ts';
import { createRng } from '../suggestion/rng.ts';
import { countedRecords, dimensionsOf, namedObjectives } from './objective-records.ts';

export const IMPORTANCE_MAX_TRIALS = 500;

export interface ImportanceAnswer {
  /** Counted trials that fit the search space (what importance could learn from). */
  readonly trials: number;
  /** How many of them the forests learnt from: all, or IMPORTANCE_MAX_TRIALS drawn among them. */
  readonly fittedOn: number;
  /** Per objective, each parameter's share in the search space's order (summing to 1); null below two trials or without parameters. */
  readonly objectives: readonly (ObjectiveView & {
    readonly importances: readonly { readonly parameter: string; readonly importance: number }[] | null;
  })[];
}

/** At most `max` of the records, drawn without replacement, kept in their order. */
export function boundedSample<T>(records: readonly T[], max: number, seed = 0): T[] {
  if (records.length <= max) return [...records];
  const rng = createRng(seed);
  const indices = [...records.keys()];
  // Partial Fisher-Yates: the first `max` places hold a uniform sample.
  for (let k = 0; k < max; k++) {
    const j = k + rng.int(indices.length - k);
    [indices[k], indices[j]] = [indices[j]!, indices[k]!];
  }
  return indices
    .slice(0, max)
    .sort((a, b) => a - b)
    .map((i) => records[i]!);
}

/** The trials importance learns from: counted, and inside the search space (none without one). */
export function importanceRecords(
  experiment: ExperimentView,
  objectives: readonly ObjectiveView[],
  trials: TrialObjectiveValues,
): TrialRecord[] {
  const dimensions = dimensionsOf(experiment.parameters);
  if (dimensions.length === 0) return [];
  return countedRecords(trials, objectives, dimensions).filter((r) => r.point !== undefined);
}

export function importanceAnswer(
  experiment: ExperimentView,
  objectives: readonly ObjectiveView[],
  records: readonly TrialRecord[],
  max = IMPORTANCE_MAX_TRIALS,
): ImportanceAnswer {
  const dimensions = dimensionsOf(experiment.parameters);
  const named = namedObjectives(objectives);
  const sample = boundedSample(records, max);
  const fitted = dimensions.length === 0 ? [] : importancesByObjective(dimensions, sample, named);
  return {
    trials: records.length,
    fittedOn: dimensions.length === 0 ? 0 : sample.length,
    objectives: objectives.map((o, k) => ({
      ...o,
      importances:
        fitted[k]?.importances?.map((p) => ({ parameter: p.name, importance: p.importance })) ?? null,
    })),
  };
}
