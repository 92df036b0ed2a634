// What one trial needs next, from what the controller knows of it: assign it (again), move it to
// RUNNING when a runner took it, end it as its process ended, read its observation, or deal with a
// run whose runner is gone. The rule for a lost run (its lease ran out, or the runner stopped
// while it ran): it is assigned again with a new attempt (the fencing epoch: events of the old
// attempt are ignored from then on), its earlier observations deleted, until `maxRuns` runs were
// lost; then it is FAILED with reason RunnerLost. A runner that stops cleanly gives its runs back
// (RELEASED): they are assigned again at once and not counted as lost.
import { UNAVAILABLE_METRIC_VALUE } from '../../common/trial-run.ts';
import type { ExperimentDefinition } from '../definition/definition.ts';
import { trialRunSpec } from '../definition/trial-run-spec.ts';
import { type Decision, runCancelled, trialAssigned, trialStatus } from './decisions.ts';
import { FINISHED, moveTrial, TRIAL_REASONS, type TrialCondition } from './lifecycle.ts';
import type { ObservedMetric } from './observation.ts';
import type { TrialRecord } from './world.ts';

export interface TrialPolicy {
  /** How long an assignment waits for a runner before it is assigned again. */
  readonly pickupTimeoutMs: number;
  /** Runs a trial may lose with their runner before it fails (RunnerLost). */
  readonly maxRuns: number;
}

/** What the decisions of one trial may read and mark. */
export interface TrialContext {
  readonly definition: ExperimentDefinition;
  readonly observation: readonly ObservedMetric[] | undefined;
  readonly now: number;
  readonly policy: TrialPolicy;
  /** Whether a read of this trial's observation is under way. */
  readonly observing: boolean;
  /** Whether this attempt's runner was already told to stop it (a run started after its trial ended). */
  readonly cancelSent: boolean;
}

/** A run is over (nothing more will be reported) once it ended, or its runner is gone. */
export const runOver = (trial: TrialRecord, now: number): boolean =>
  trial.started === undefined || trial.ended !== undefined || now > trial.leaseUntil;

/** The message of a process that ended badly: how it ended, and the last lines of its stderr. */
export function exitMessage(end: {
  exitCode: number | null;
  signal: string;
  stderrTail: string;
  message: string;
}): string {
  const how = end.exitCode === null ? `killed by ${end.signal || 'a signal'}` : `exit code ${end.exitCode}`;
  const detail = end.message === '' ? '' : ` (${end.message})`;
  const tail = end.stderrTail.trim();
  return tail === ''
    ? `The process ended with ${how}${detail}`
    : `The process ended with ${how}${detail}; stderr:\n${tail}`;
}

export function decideTrial(trial: TrialRecord, context: TrialContext): Decision[] {
  const { now, definition, policy } = context;
  const move = (to: TrialCondition, reason: string, message: string): Decision =>
    trialStatus(trial, moveTrial(trial.name, trial.condition, to), reason, message, now);
  const assign = (attempt: number, fresh: boolean): Decision =>
    trialAssigned(trial, attempt, trialRunSpec(definition, trial), now + policy.pickupTimeoutMs, fresh, now);

  if (FINISHED.has(trial.condition)) {
    const out: Decision[] = [];
    // Still running somewhere (a runner took it as it ended): that runner is told to stop.
    if (
      trial.started?.attempt === trial.attempt &&
      trial.ended === undefined &&
      !context.cancelSent &&
      now <= trial.leaseUntil
    )
      out.push(runCancelled(trial, trial.attempt, `trial is ${trial.condition}`, now));
    const wantsObservation = trial.condition === 'SUCCEEDED' || trial.condition === 'EARLYSTOPPED';
    if (wantsObservation && context.observation === undefined && !context.observing && runOver(trial, now))
      out.push({ kind: 'observe', trial: trial.name });
    return out;
  }

  const current = trial.attempt > 0 && trial.started?.attempt === trial.attempt;
  if (trial.condition === 'CREATED') {
    if (current)
      return [
        move(
          'RUNNING',
          TRIAL_REASONS.running,
          `Trial is running on ${trial.started!.host} (runner ${trial.started!.runner}, run ${trial.attempt})`,
        ),
      ];
    if (trial.attempt === 0) return [assign(1, false)];
    if (now > trial.notAfter)
      return [
        runCancelled(trial, trial.attempt, 'no runner took it in time', now),
        assign(trial.attempt + 1, false),
      ];
    return [];
  }

  // RUNNING, but assigned again since (the CREATED that goes with it was not written): it waits.
  if (!current) return [move('CREATED', TRIAL_REASONS.runnerLost, `run ${trial.attempt} waits for a runner`)];
  const end = trial.ended;
  if (end?.phase === 'EXITED') {
    if (end.exitCode !== 0) return [move('FAILED', TRIAL_REASONS.failed, exitMessage(end))];
    if (context.observation === undefined)
      return context.observing ? [] : [{ kind: 'observe', trial: trial.name }];
    const objective = context.observation.find((m) => m.name === definition.objective.metricName);
    return objective === undefined || objective.latest === UNAVAILABLE_METRIC_VALUE
      ? [
          move(
            'METRICSUNAVAILABLE',
            TRIAL_REASONS.metricsUnavailable,
            `Metrics are not available: ${definition.objective.metricName} was not in the trial's output (Katib's ${definition.collector.kind} rules)`,
          ),
        ]
      : [move('SUCCEEDED', TRIAL_REASONS.succeeded, 'Trial has succeeded')];
  }
  if (end?.phase === 'RELEASED')
    return [
      assign(trial.attempt + 1, true),
      move(
        'CREATED',
        TRIAL_REASONS.released,
        `runner ${end.runner} stopped and gave the trial back: assigned again`,
      ),
    ];
  const lost =
    end?.phase === 'KILLED'
      ? `runner ${end.runner} stopped it without being asked (${end.message || 'it lost Kafka'})`
      : now > trial.leaseUntil
        ? `runner ${trial.started?.runner ?? '?'} on ${trial.started?.host ?? '?'} stopped answering (no heartbeat for its lease)`
        : undefined;
  if (lost === undefined) return [];
  const runs = trial.lostRuns + 1;
  if (runs < policy.maxRuns)
    return [
      runCancelled(trial, trial.attempt, lost, now),
      assign(trial.attempt + 1, true),
      move(
        'CREATED',
        TRIAL_REASONS.runnerLost,
        `${lost}: run ${runs} of at most ${policy.maxRuns} lost, assigned again`,
      ),
    ];
  return [
    runCancelled(trial, trial.attempt, lost, now),
    move(
      'FAILED',
      TRIAL_REASONS.runnerLost,
      `${lost}: ${runs} runs lost, the most a trial may lose (TRIAL_MAX_RUNS ${policy.maxRuns})`,
    ),
  ];
}
