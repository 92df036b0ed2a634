// The Pareto front of an experiment's counted trials from the read model (../multi-objective/
// trial-front.ts): ranks, the non-dominated set and its hypervolume. With one objective the same
// answer: its front is its best trial (or the trials tied for best), the hypervolume the length from
// the best value to the reference.
import type { ObjectiveView, ParetoView, TrialObjectiveValues } from '../../common/read-model.ts';
import { trialFront } from '../multi-objective/trial-front.ts';
import { countedRecords, namedObjectives } from './records.ts';

export function paretoView(
  objectives: readonly ObjectiveView[],
  trials: TrialObjectiveValues,
  reference?: readonly number[],
): ParetoView {
  const front = trialFront(countedRecords(trials, objectives), namedObjectives(objectives), reference);
  return { objectives, ...front, referenceFrom: reference === undefined ? 'default' : 'query' };
}
