// Each parameter's fANOVA importance for each objective of an experiment's trials from the read
// model (../importance/importance-by-objective.ts), bounded in time: each objective's forest learns
// from at most IMPORTANCE_MAX_TRIALS of the counted trials, drawn at random with a fixed seed (the
// same trials give the same answer), so 10,000 trials cost about what 500 do.
import type {
  ImportanceView,
  ObjectiveView,
  SearchParameterView,
  TrialObjectiveValues,
} from '../../common/read-model.ts';
import { importancesByObjective } from '../importance/importance-by-objective.ts';
import type { TrialRecord } from '../katib-space.ts';
import { createRng } from '../rng.ts';
import { countedRecords, dimensionsOf, namedObjectives } from './records.ts';

export const IMPORTANCE_MAX_TRIALS = 500;

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
  parameters: readonly SearchParameterView[],
  objectives: readonly ObjectiveView[],
  trials: TrialObjectiveValues,
): TrialRecord[] {
  const dimensions = dimensionsOf(parameters);
  if (dimensions.length === 0) return [];
  return countedRecords(trials, objectives, dimensions).filter((r) => r.point !== undefined);
}

/** Importance from the records importanceRecords gave for the same parameters and objectives. */
export function importanceView(
  parameters: readonly SearchParameterView[],
  objectives: readonly ObjectiveView[],
  records: readonly TrialRecord[],
  max = IMPORTANCE_MAX_TRIALS,
): ImportanceView {
  const dimensions = dimensionsOf(parameters);
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
