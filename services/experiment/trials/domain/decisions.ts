// What the trial controller decides: events to publish (in order: each is folded into the world once
// Kafka acknowledged it) and calls to make (GetSuggestions, GetObservationLog, GetEarlyStoppingRules),
// whose answers come back as facts. Built here so the decisions stay plain data.
import type { EventPayloads } from '../../../../schemas/gen/events.ts';
import type { TrialRunSpec } from '../../common/trial-run.ts';
import type { TrialCondition } from './lifecycle.ts';

type Out<T extends keyof EventPayloads> = EventPayloads<number>[T];

/** One event to publish: its topic, its type and a payload of that type. */
interface EmittedOn<Topic extends string, Type extends keyof EventPayloads> {
  readonly topic: Topic;
  readonly eventType: Type;
  readonly key: string;
  readonly payload: Out<Type>;
}

export type Emitted =
  | EmittedOn<'experiments', 'ExperimentStatusChanged'>
  | EmittedOn<'experiments', 'TrialsCreated'>
  | EmittedOn<'trialAssignments', 'TrialAssigned'>
  | EmittedOn<'trialRuns', 'TrialRunChanged'>
  | EmittedOn<'trialStatus', 'TrialStatusChanged'>;

export type Decision =
  | { readonly kind: 'emit'; readonly event: Emitted }
  | { readonly kind: 'suggest'; readonly experiment: string; readonly count: number }
  | { readonly kind: 'observe'; readonly trial: string }
  | { readonly kind: 'rules'; readonly experiment: string };

/** What makes two experiment statuses the same (ids and times aside): one is written only on a change. */
export const statusKeyOf = (p: {
  readonly generation: number;
  readonly condition: string;
  readonly reason: string;
  readonly message: string;
  readonly trials: object;
  readonly best_trial: object | null;
}): string => JSON.stringify([p.generation, p.condition, p.reason, p.message, p.trials, p.best_trial]);

/** Who the controller's trial conditions name as their source. */
export const CONTROLLER_SOURCE = 'trial-controller';

export function trialStatus(
  trial: { readonly name: string; readonly experiment: string; readonly attempt: number },
  condition: TrialCondition,
  reason: string,
  message: string,
  now: number,
): Decision {
  return {
    kind: 'emit',
    event: {
      topic: 'trialStatus',
      eventType: 'TrialStatusChanged',
      key: trial.name,
      payload: {
        // One per trial, attempt and condition: a decision made again after a restart is recognised.
        event_id: `${CONTROLLER_SOURCE}:${trial.name}:${trial.attempt}:${condition}`,
        occurred_at: now,
        trial_name: trial.name,
        experiment_name: trial.experiment,
        condition,
        reason,
        message,
        source: CONTROLLER_SOURCE,
      },
    },
  };
}

export function trialAssigned(
  trial: { readonly name: string; readonly experiment: string },
  attempt: number,
  spec: TrialRunSpec,
  notAfter: number,
  freshObservations: boolean,
  now: number,
): Decision {
  return {
    kind: 'emit',
    event: {
      topic: 'trialAssignments',
      eventType: 'TrialAssigned',
      key: trial.name,
      payload: {
        event_id: `${trial.name}:${attempt}:assigned`,
        occurred_at: now,
        experiment_name: trial.experiment,
        trial_name: trial.name,
        attempt,
        not_after: notAfter,
        command: [...spec.command],
        env: spec.env.map((e) => ({ name: e.name, value: e.value })),
        working_dir: spec.workingDir,
        collector: { ...spec.collector, filters: [...spec.collector.filters] },
        metric_names: [...spec.metricNames],
        objective_type: spec.objectiveType,
        fresh_observations: freshObservations,
      },
    },
  };
}

/** Tells runners to leave (or stop) an attempt: it was assigned again, or its trial is over. */
export function runCancelled(
  trial: { readonly name: string; readonly experiment: string },
  attempt: number,
  message: string,
  now: number,
): Decision {
  return {
    kind: 'emit',
    event: {
      topic: 'trialRuns',
      eventType: 'TrialRunChanged',
      key: trial.name,
      payload: {
        event_id: `${trial.name}:${attempt}:cancelled`,
        occurred_at: now,
        experiment_name: trial.experiment,
        trial_name: trial.name,
        attempt,
        runner_id: '',
        host: '',
        phase: 'CANCELLED',
        exit_code: null,
        signal: '',
        objective_reported: false,
        stderr_tail: '',
        message,
      },
    },
  };
}
