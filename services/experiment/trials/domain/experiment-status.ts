// An experiment's status from its trials, as Katib's experiment controller computes it
// (status_util.go): trials counted by condition, the best trial, and whether the experiment is over
// (goal reached, too many failures, enough trials, or the suggestions came to an end).
import type { ExperimentDefinition } from '../definition/definition.ts';
import { EXPERIMENT_REASONS } from './lifecycle.ts';
import { isBetter, meetsGoal, type ObservedMetric, objectiveValue } from './observation.ts';
import type { Assignment, TrialRecord } from './world.ts';

export interface TrialCounts {
  readonly pending: number;
  readonly running: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly killed: number;
  readonly earlyStopped: number;
  readonly metricsUnavailable: number;
}

export interface BestTrial {
  readonly name: string;
  readonly objective: string;
  readonly value: number;
  readonly assignments: readonly Assignment[];
}

export function countTrials(trials: readonly TrialRecord[]): TrialCounts {
  const count = (condition: string) => trials.filter((t) => t.condition === condition).length;
  return {
    pending: count('CREATED'),
    running: count('RUNNING'),
    succeeded: count('SUCCEEDED'),
    failed: count('FAILED'),
    killed: count('KILLED'),
    earlyStopped: count('EARLYSTOPPED'),
    metricsUnavailable: count('METRICSUNAVAILABLE'),
  };
}

/** Trials in flight: Katib's activeTrialsCount (pending and running). */
export const activeCount = (c: TrialCounts): number => c.pending + c.running;
/** Trials over: Katib's completedTrialsCount (metrics-unavailable ones included). */
export const completedCount = (c: TrialCounts): number =>
  c.succeeded + c.failed + c.killed + c.earlyStopped + c.metricsUnavailable;
/** Katib's failedTrialsCount: a trial without its objective failed too. */
export const failedCount = (c: TrialCounts): number => c.failed + c.metricsUnavailable;

/** The trial with the best objective value among those with an observation (the first on a tie). */
export function bestTrial(
  definition: ExperimentDefinition,
  trials: readonly TrialRecord[],
  observations: ReadonlyMap<string, readonly ObservedMetric[]>,
): BestTrial | undefined {
  const { metricName, strategies, type } = definition.objective;
  let best: BestTrial | undefined;
  for (const trial of trials) {
    const observation = observations.get(trial.name);
    if (!observation) continue;
    const objective = objectiveValue(observation, metricName, strategies[metricName]);
    if (!objective) continue;
    if (best === undefined || isBetter(type, objective.value, best.value))
      best = {
        name: trial.name,
        objective: objective.text,
        value: objective.value,
        assignments: trial.assignments,
      };
  }
  return best;
}

export interface Completion {
  readonly condition: 'Succeeded' | 'Failed';
  readonly reason: string;
  readonly message: string;
}

/**
 * Whether the experiment is over, checked in Katib's order. `suggestionsEnded`: the algorithm has
 * no more to suggest (a grid visited, hyperband done).
 */
export function completion(
  definition: ExperimentDefinition,
  counts: TrialCounts,
  best: BestTrial | undefined,
  suggestionsEnded: boolean,
): Completion | undefined {
  const goal = definition.objective.goal;
  if (goal !== undefined && best !== undefined && meetsGoal(definition.objective.type, best.value, goal))
    return {
      condition: 'Succeeded',
      reason: EXPERIMENT_REASONS.goalReached,
      message: `Experiment has succeeded because Objective goal has reached (${best.name}: ${definition.objective.metricName} ${best.objective}, goal ${goal})`,
    };
  const maxFailed = definition.maxFailedTrialCount;
  const failed = failedCount(counts);
  if (maxFailed !== undefined && failed !== 0 && failed >= maxFailed)
    return {
      condition: 'Failed',
      reason: EXPERIMENT_REASONS.failed,
      message: `Experiment has failed because max failed count has reached (${failed} of maxFailedTrialCount ${maxFailed})`,
    };
  const max = definition.maxTrialCount;
  if (max !== undefined && completedCount(counts) >= max)
    return {
      condition: 'Succeeded',
      reason: EXPERIMENT_REASONS.maxTrialsReached,
      message: `Experiment has succeeded because max trial count has reached (${completedCount(counts)} of ${max})`,
    };
  if (suggestionsEnded && activeCount(counts) === 0)
    return {
      condition: 'Succeeded',
      reason: EXPERIMENT_REASONS.suggestionEndReached,
      message: 'Experiment has succeeded because suggestion service has reached the end',
    };
  return undefined;
}

/** How many trials to add now: Katib's ReconcileTrials (parallelTrialCount, bounded by maxTrialCount). */
export function trialsToAdd(definition: ExperimentDefinition, counts: TrialCounts): number {
  const parallel = definition.parallelTrialCount;
  const max = definition.maxTrialCount;
  const required = max === undefined ? parallel : Math.min(parallel, max - completedCount(counts));
  return Math.max(0, required - activeCount(counts));
}
