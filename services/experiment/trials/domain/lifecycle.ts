// The conditions of a trial and of an experiment, and the only moves between them. A trial's
// condition is the last one written on experiment.trial-status (by the trial controller, or
// EARLYSTOPPED by the early-stopping judge); a condition that the table does not allow after the
// current one is not applied (a late event), and a decision that breaks it is a programming error.

/** Katib's TrialConditionType names, as TrialStatusChanged carries them. */
export type TrialCondition =
  | 'CREATED'
  | 'RUNNING'
  | 'SUCCEEDED'
  | 'KILLED'
  | 'FAILED'
  | 'METRICSUNAVAILABLE'
  | 'EARLYSTOPPED';

export const FINISHED: ReadonlySet<TrialCondition> = new Set([
  'SUCCEEDED',
  'KILLED',
  'FAILED',
  'METRICSUNAVAILABLE',
  'EARLYSTOPPED',
]);

/**
 * CREATED again after RUNNING: the run was lost (its runner gone, or it gave the trial back) and
 * the trial waits for another runner. A finished trial never moves again: the first end wins.
 */
const TRIAL_MOVES: Readonly<Record<TrialCondition, readonly TrialCondition[]>> = {
  CREATED: ['CREATED', 'RUNNING', 'KILLED', 'FAILED', 'EARLYSTOPPED'],
  RUNNING: ['CREATED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'KILLED', 'EARLYSTOPPED', 'METRICSUNAVAILABLE'],
  SUCCEEDED: [],
  KILLED: [],
  FAILED: [],
  METRICSUNAVAILABLE: [],
  EARLYSTOPPED: [],
};

export const canMoveTrial = (from: TrialCondition, to: TrialCondition): boolean =>
  TRIAL_MOVES[from].includes(to);

export class IllegalMove extends Error {
  constructor(what: string, from: string, to: string) {
    super(`${what}: cannot go from ${from} to ${to}`);
    this.name = 'IllegalMove';
  }
}

/** A decision's move; throws on a move the table does not allow. */
export function moveTrial(trialName: string, from: TrialCondition, to: TrialCondition): TrialCondition {
  if (!canMoveTrial(from, to)) throw new IllegalMove(`trial ${trialName}`, from, to);
  return to;
}

/** Katib's ExperimentConditionType. */
export type ExperimentCondition = 'Created' | 'Running' | 'Restarting' | 'Succeeded' | 'Failed';

/** A finished experiment starts again only through Restarting (a restartable one given more trials). */
const EXPERIMENT_MOVES: Readonly<Record<ExperimentCondition, readonly ExperimentCondition[]>> = {
  Created: ['Running', 'Failed'],
  Running: ['Running', 'Succeeded', 'Failed'],
  Restarting: ['Running', 'Failed'],
  Succeeded: ['Restarting'],
  Failed: [],
};

export const canMoveExperiment = (from: ExperimentCondition, to: ExperimentCondition): boolean =>
  EXPERIMENT_MOVES[from].includes(to);

export function moveExperiment(
  name: string,
  from: ExperimentCondition,
  to: ExperimentCondition,
): ExperimentCondition {
  if (!canMoveExperiment(from, to)) throw new IllegalMove(`experiment ${name}`, from, to);
  return to;
}

export const experimentFinished = (condition: ExperimentCondition): boolean =>
  condition === 'Succeeded' || condition === 'Failed';

/** Katib's reasons (pkg/controller.v1beta1/experiment/util/status_util.go). */
export const EXPERIMENT_REASONS = {
  created: 'ExperimentCreated',
  running: 'ExperimentRunning',
  restarting: 'ExperimentRestarting',
  goalReached: 'ExperimentGoalReached',
  maxTrialsReached: 'ExperimentMaxTrialsReached',
  suggestionEndReached: 'ExperimentSuggestionEndReached',
  failed: 'ExperimentFailed',
} as const;

/** Reasons of the trial conditions the controller writes (Katib's where it has one). */
export const TRIAL_REASONS = {
  created: 'TrialCreated',
  running: 'TrialRunning',
  succeeded: 'TrialSucceeded',
  failed: 'TrialFailed',
  metricsUnavailable: 'MetricsUnavailable',
  killed: 'TrialKilled',
  runnerLost: 'RunnerLost',
  released: 'RunnerStopped',
} as const;
