// GET /api/experiments/{name}/pareto: the Pareto rank of every counted trial, the non-dominated set
// and its hypervolume against a stated reference point (../suggestion/multi-objective/trial-front.ts).
// An experiment of one objective answers the same way: its front is its best trial (or the trials
// that tie for best), and the hypervolume is the length from the best value to the reference.
import { AppError, invalidArgument } from '../../../shared/errors.ts';
import type { ExperimentView, ObjectiveView, TrialObjectiveValues } from '../common/ports.ts';
import { readFinite } from '../suggestion/katib-space.ts';
import { type RankedTrial, trialFront } from '../suggestion/multi-objective/trial-front.ts';
import { countedRecords, namedObjectives } from './objective-records.ts';

export interface ParetoAnswer {
  readonly objectives: readonly ObjectiveView[];
  /** Counted trials (SUCCEEDED or EARLYSTOPPED, every objective reported), in the trials' order. */
  readonly trials: readonly RankedTrial[];
  /** Names of the rank-0 trials: the experiment's best trials. */
  readonly front: readonly string[];
  /** The reference point, in the metrics' units; null when no trial counts and none was given. */
  readonly reference: readonly number[] | null;
  /** `query`: ?reference; `default`: each objective's worst value plus 10% of its range. */
  readonly referenceFrom: 'query' | 'default';
  readonly hypervolume: number;
}

/** The experiment's objectives; FAILED_PRECONDITION while none has a known direction. */
export function objectivesOf(experiment: ExperimentView): readonly ObjectiveView[] {
  if (experiment.objectives.length === 0)
    throw new AppError(
      'FAILED_PRECONDITION',
      `experiment ${JSON.stringify(experiment.name)}: no objective with a direction (MAXIMIZE or MINIMIZE) known yet`,
    );
  return experiment.objectives;
}

/** ?reference: one number per objective, comma-separated, in the metrics' units. */
export function referenceOf(
  text: string | undefined,
  objectives: readonly ObjectiveView[],
): number[] | undefined {
  if (text === undefined) return undefined;
  const values = text.split(',').map((part) => readFinite(part.trim()));
  const names = objectives.map((o) => o.metricName).join(', ');
  if (values.length !== objectives.length || values.some((v) => v === undefined))
    throw invalidArgument(
      `query parameter reference: ${JSON.stringify(text)} is not ${objectives.length} comma-separated number${objectives.length === 1 ? '' : 's'} (${names})`,
    );
  return values as number[];
}

export function paretoAnswer(
  objectives: readonly ObjectiveView[],
  trials: TrialObjectiveValues,
  reference?: readonly number[],
): ParetoAnswer {
  const front = trialFront(countedRecords(trials, objectives), namedObjectives(objectives), reference);
  return { objectives, ...front, referenceFrom: reference === undefined ? 'default' : 'query' };
}
