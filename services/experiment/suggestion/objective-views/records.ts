// The read model's trials as the multi-objective domain reads them (TrialRecords of
// ../katib-space.ts): a trial counts as the algorithms count it, when SUCCEEDED or EARLYSTOPPED, and
// then only when it reported every objective.
import type { ParameterSpec__Output } from '../../../../proto/gen/api/v1/beta1/ParameterSpec.ts';
import type { ObjectiveView, SearchParameterView, TrialObjectiveValues } from '../../common/read-model.ts';
import { type Condition, type TrialRecord, toDimensions, toPoint } from '../katib-space.ts';
import type { NamedObjective } from '../multi-objective/objectives.ts';
import type { Dimension } from '../space.ts';

const COUNTED: ReadonlySet<string> = new Set(['SUCCEEDED', 'EARLYSTOPPED']);
const NO_ASSIGNMENTS: ReadonlyMap<string, string> = new Map();
const EMPTY_POINT: readonly (number | string)[] = [];

export const namedObjectives = (objectives: readonly ObjectiveView[]): NamedObjective[] =>
  objectives.map((o) => ({ metricName: o.metricName, direction: o.type }));

/** The search space as the samplers see it; none for an experiment without parameters. */
export function dimensionsOf(parameters: readonly SearchParameterView[]): Dimension[] {
  if (parameters.length === 0) return [];
  return toDimensions(
    parameters.map(
      (p): ParameterSpec__Output => ({
        name: p.name,
        parameter_type: p.parameterType as ParameterSpec__Output['parameter_type'],
        feasible_space: {
          min: p.min,
          max: p.max,
          step: p.step,
          list: [...p.list],
          distribution: (p.distribution || 'DISTRIBUTION_UNSPECIFIED') as NonNullable<
            ParameterSpec__Output['feasible_space']
          >['distribution'],
        },
      }),
    ),
  );
}

/**
 * The counted trials, in the trials' order. `dimensions` places each in the search space (a trial
 * whose assignments do not fit it has no point, and the importance leaves it out); with none, every
 * trial is at the empty point (the front reads no parameter).
 */
export function countedRecords(
  trials: TrialObjectiveValues,
  objectives: readonly ObjectiveView[],
  dimensions: readonly Dimension[] = [],
): TrialRecord[] {
  const records: TrialRecord[] = [];
  trials.names.forEach((name, i) => {
    if (!COUNTED.has(trials.conditions[i]!)) return;
    const values = trials.values.map((column) => column[i]);
    if (values.length === 0 || values.some((v) => v === null || v === undefined)) return;
    const [first, ...others] = values as number[];
    // The front reads no parameter: no map of them for each of its trials.
    const assignments =
      dimensions.length === 0
        ? NO_ASSIGNMENTS
        : new Map(trials.assignments[i]!.map((a) => [a.name, a.value]));
    records.push({
      name,
      condition: trials.conditions[i] as Condition,
      startTime: '',
      completionTime: '',
      assignments,
      point: dimensions.length === 0 ? EMPTY_POINT : toPoint(dimensions, assignments),
      objective: first,
      loss: objectives[0]!.type === 'MAXIMIZE' ? -first! : first,
      // The further objectives as an observation carries them; the first is `objective`.
      metrics: others.map((value, k) => ({ name: objectives[k + 1]!.metricName, value: String(value) })),
    });
  });
  return records;
}
