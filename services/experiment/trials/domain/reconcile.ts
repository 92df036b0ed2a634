// One round of the trial controller for one experiment, as Katib's experiment controller reconciles
// it: first each trial's own next step (trial-decisions.ts); once no trial has one, the experiment's
// status (written when it changes), its end (goal, failures, trials, suggestions; what still runs
// is then killed), and the suggestions asked for to keep parallelTrialCount trials in flight.
// Pure: `now` and event ids come in, decisions go out; the calls in flight are marked in `Asks`.
import { type Decision, statusKeyOf, trialStatus } from './decisions.ts';
import {
  type BestTrial,
  bestTrial,
  completion,
  countTrials,
  type TrialCounts,
  trialsToAdd,
} from './experiment-status.ts';
import {
  EXPERIMENT_REASONS,
  type ExperimentCondition,
  experimentFinished,
  FINISHED,
  moveExperiment,
  TRIAL_REASONS,
} from './lifecycle.ts';
import { decideTrial, runOver, type TrialPolicy } from './trial-decisions.ts';
import type { ExperimentRecord, TrialRecord, World } from './world.ts';

/** The calls under way and what they left (not from the topics: a restart starts with none). */
export class Asks {
  readonly suggesting = new Set<string>();
  /** Experiments whose algorithm said "not now" (FAILED_PRECONDITION): the trials' conditions then. */
  readonly blocked = new Map<string, string>();
  /** Experiments whose GetSuggestions failed on an outage: not asked again before this time. */
  readonly retryAt = new Map<string, number>();
  readonly observing = new Set<string>();
  /** Experiments whose early-stopping rules are to be asked again (new trials, a trial succeeded). */
  readonly rulesDue = new Set<string>();
  readonly askingRules = new Set<string>();
  /** `<trial>:<attempt>` whose late-started run was told to stop. */
  readonly cancelSent = new Set<string>();
}

export interface ReconcileOptions extends TrialPolicy {
  readonly now: number;
}

/** The trials' conditions in one text: the algorithm is asked again once it changes. */
export const conditionsOf = (trials: readonly TrialRecord[]): string =>
  trials.map((t) => t.condition).join(',');

export function reconcile(world: World, asks: Asks, name: string, options: ReconcileOptions): Decision[] {
  const experiment = world.experiments.get(name);
  if (!experiment) return [];
  const { now } = options;
  const definition = experiment.definition;
  const condition: ExperimentCondition = experiment.condition ?? 'Created';
  if (!definition)
    return experimentFinished(condition)
      ? []
      : [
          status(
            experiment,
            undefined,
            condition,
            'Failed',
            EXPERIMENT_REASONS.failed,
            `the experiment's YAML no longer reads:\n${experiment.unreadable}`,
            now,
          ),
        ];
  const trials = world.trialsOf(experiment);

  if (experimentFinished(condition)) {
    // Given more trials (a restartable experiment sent again): Restarting, then Running.
    if (condition === 'Succeeded' && experiment.generation > experiment.statusGeneration)
      return [
        status(
          experiment,
          counts(trials, world),
          condition,
          'Restarting',
          EXPERIMENT_REASONS.restarting,
          'Experiment is restarted',
          now,
        ),
      ];
    return killActive(trials, `the experiment ${condition === 'Succeeded' ? 'succeeded' : 'failed'}`, now);
  }

  const trialDecisions = trials.flatMap((trial) =>
    decideTrial(trial, {
      definition,
      observation: world.observations.get(trial.name),
      now,
      policy: options,
      observing: asks.observing.has(trial.name),
      cancelSent: asks.cancelSent.has(`${trial.name}:${trial.attempt}`),
    }),
  );
  for (const d of trialDecisions) {
    if (d.kind === 'observe') asks.observing.add(d.trial);
    if (
      d.kind === 'emit' &&
      d.event.eventType === 'TrialRunChanged' &&
      FINISHED.has(world.trial(d.event.key).condition)
    )
      asks.cancelSent.add(`${d.event.key}:${d.event.payload.attempt}`);
    if (
      d.kind === 'emit' &&
      d.event.eventType === 'TrialStatusChanged' &&
      d.event.payload.condition === 'SUCCEEDED'
    )
      asks.rulesDue.add(name);
  }
  // Decisions about trials first: the experiment is judged on them once they are written.
  if (trialDecisions.some((d) => d.kind === 'emit')) return trialDecisions;
  const out: Decision[] = [...trialDecisions];
  // The goal and the best trial need the values of every finished trial.
  const waiting = trials.some(
    (t) =>
      (t.condition === 'SUCCEEDED' || (t.condition === 'EARLYSTOPPED' && runOver(t, now))) &&
      !world.observations.has(t.name),
  );
  if (waiting) return out;

  const tally = counts(trials, world);
  const conditions = conditionsOf(trials);
  const blockedAt = asks.blocked.get(name);
  const suggestionsEnded = blockedAt !== undefined && blockedAt === conditions;
  const done = completion(definition, tally.counts, tally.best, suggestionsEnded);
  const running: ExperimentCondition = 'Running';
  if (done) {
    out.push(status(experiment, tally, condition, done.condition, done.reason, done.message, now));
    out.push(
      ...killActive(
        trials,
        `the experiment ${done.condition === 'Succeeded' ? 'succeeded' : 'failed'}: ${done.reason}`,
        now,
      ),
    );
    return out;
  }
  const current = status(
    experiment,
    tally,
    condition,
    running,
    EXPERIMENT_REASONS.running,
    'Experiment is running',
    now,
  );
  if (
    current.kind === 'emit' &&
    current.event.eventType === 'ExperimentStatusChanged' &&
    statusKeyOf(current.event.payload) !== experiment.statusKey
  )
    out.push(current);

  if (blockedAt !== undefined && blockedAt !== conditions) asks.blocked.delete(name);
  const add = trialsToAdd(definition, tally.counts);
  if (
    add > 0 &&
    !asks.suggesting.has(name) &&
    !asks.blocked.has(name) &&
    now >= (asks.retryAt.get(name) ?? 0)
  ) {
    asks.suggesting.add(name);
    out.push({ kind: 'suggest', experiment: name, count: add });
  }
  if (definition.earlyStopping && asks.rulesDue.has(name) && !asks.askingRules.has(name)) {
    asks.rulesDue.delete(name);
    asks.askingRules.add(name);
    out.push({ kind: 'rules', experiment: name });
  }
  return out;
}

/** Pending and running trials of an experiment that ended: killed (runners stop them). */
export function killActive(trials: readonly TrialRecord[], why: string, now: number): Decision[] {
  return trials
    .filter((t) => !FINISHED.has(t.condition))
    .map((t) => trialStatus(t, 'KILLED', TRIAL_REASONS.killed, `Trial was stopped: ${why}`, now));
}

export function counts(
  trials: readonly TrialRecord[],
  world: World,
): { counts: TrialCounts; best: BestTrial | undefined } {
  const experiment = world.experiments.get(trials[0]?.experiment ?? '');
  return {
    counts: countTrials(trials),
    best: experiment?.definition ? bestTrial(experiment.definition, trials, world.observations) : undefined,
  };
}

export function status(
  experiment: ExperimentRecord,
  tally: { counts: TrialCounts; best: BestTrial | undefined } | undefined,
  from: ExperimentCondition,
  to: ExperimentCondition,
  reason: string,
  message: string,
  now: number,
): Decision {
  const c = tally?.counts;
  const condition = from === to ? to : moveExperiment(experiment.name, from, to);
  return {
    kind: 'emit',
    event: {
      topic: 'experiments',
      eventType: 'ExperimentStatusChanged',
      key: experiment.name,
      payload: {
        event_id: `${experiment.name}:${experiment.generation}:${condition}:${now}`,
        occurred_at: now,
        experiment_name: experiment.name,
        generation: experiment.generation,
        condition,
        reason,
        message,
        trials: {
          pending: c?.pending ?? 0,
          running: c?.running ?? 0,
          succeeded: c?.succeeded ?? 0,
          failed: c?.failed ?? 0,
          killed: c?.killed ?? 0,
          early_stopped: c?.earlyStopped ?? 0,
          metrics_unavailable: c?.metricsUnavailable ?? 0,
        },
        best_trial: tally?.best
          ? {
              name: tally.best.name,
              objective: tally.best.objective,
              assignments: tally.best.assignments.map((a) => ({ ...a })),
            }
          : null,
      },
    },
  };
}
