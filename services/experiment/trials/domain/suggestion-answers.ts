// What a GetSuggestions answer does to an experiment: new trials (TrialsCreated, then each
// CREATED), with the algorithm settings the reply left merged over the last ones as Katib's
// controller keeps them (hyperband's state round-trips there); or, when the call failed, wait for
// a trial to change (FAILED_PRECONDITION: the algorithm waits for trials, or has nothing left),
// try again shortly (an outage), or fail the experiment (the algorithm refused it).
import type { Setting } from '../definition/definition.ts';
import { type Decision, trialStatus } from './decisions.ts';
import { EXPERIMENT_REASONS, experimentFinished, TRIAL_REASONS } from './lifecycle.ts';
import { type Asks, conditionsOf, counts, killActive, status } from './reconcile.ts';
import type { Assignment, World } from './world.ts';

export interface SuggestedTrial {
  /** The reply's own name for it (PBT names its trials); '' for a name of the controller's. */
  readonly trialName: string;
  readonly assignments: readonly Assignment[];
  readonly labels: Readonly<Record<string, string>>;
}

/** Katib's merge: a setting of the reply replaces the one of the same name, a new one is added. */
export function mergeSettings(base: readonly Setting[], update: readonly Setting[]): Setting[] {
  const merged = base.map((s) => ({ ...s }));
  for (const s of update) {
    const known = merged.find((m) => m.name === s.name);
    if (known) known.value = s.value;
    else merged.push({ ...s });
  }
  return merged;
}

export function suggestionsAnswered(
  world: World,
  asks: Asks,
  name: string,
  answer: {
    readonly trials: readonly SuggestedTrial[];
    readonly algorithmSettings: readonly Setting[];
    /** Names the controller made, one per trial (used where the reply gives none). */
    readonly names: readonly string[];
    readonly eventId: string;
    readonly now: number;
  },
): Decision[] {
  asks.suggesting.delete(name);
  asks.retryAt.delete(name);
  const experiment = world.experiments.get(name);
  if (
    !experiment?.definition ||
    experimentFinished(experiment.condition ?? 'Created') ||
    answer.trials.length === 0
  )
    return [];
  const created = answer.trials.map((t, i) => ({
    name: t.trialName !== '' ? t.trialName : answer.names[i]!,
    assignments: t.assignments.map((a) => ({ name: a.name, value: a.value })),
    labels: { ...t.labels },
  }));
  asks.rulesDue.add(name);
  return [
    {
      kind: 'emit',
      event: {
        topic: 'experiments',
        eventType: 'TrialsCreated',
        key: name,
        payload: {
          event_id: answer.eventId,
          occurred_at: answer.now,
          experiment_name: name,
          generation: experiment.generation,
          total_request_number: experiment.totalRequests + created.length,
          trials: created,
          algorithm_settings: mergeSettings(experiment.algorithmSettings, answer.algorithmSettings),
        },
      },
    },
    ...created.map((t) =>
      trialStatus(
        { name: t.name, experiment: name, attempt: 0 },
        'CREATED',
        TRIAL_REASONS.created,
        'Trial is created',
        answer.now,
      ),
    ),
  ];
}

/** How long an experiment waits before asking again after GetSuggestions failed on an outage. */
export const SUGGESTION_RETRY_MS = 2_000;

export function suggestionsFailed(
  world: World,
  asks: Asks,
  name: string,
  failure: { readonly code: string; readonly message: string; readonly now: number },
): Decision[] {
  asks.suggesting.delete(name);
  const experiment = world.experiments.get(name);
  if (!experiment?.definition || experimentFinished(experiment.condition ?? 'Created')) return [];
  const trials = world.trialsOf(experiment);
  if (failure.code === 'FAILED_PRECONDITION') {
    asks.blocked.set(name, conditionsOf(trials));
    return [];
  }
  if (
    failure.code === 'UNAVAILABLE' ||
    failure.code === 'DEADLINE_EXCEEDED' ||
    failure.code === 'RESOURCE_EXHAUSTED'
  ) {
    asks.retryAt.set(name, failure.now + SUGGESTION_RETRY_MS);
    return [];
  }
  const message = `Suggestion has failed: ${failure.message}`;
  return [
    status(
      experiment,
      counts(trials, world),
      experiment.condition ?? 'Created',
      'Failed',
      EXPERIMENT_REASONS.failed,
      message,
      failure.now,
    ),
    ...killActive(trials, message, failure.now),
  ];
}
