// Which trials a SuggestionsIssued event has to list. Katib's controller sends every trial of the
// experiment in each GetSuggestions request, so listing them all made an experiment's events grow
// with the square of its trials (32 KB an event at 200 trials, kept forever). An instance remembers
// what its acknowledged events said about each trial of an experiment and lists only the trials
// that are new or changed since; the first event of an experiment from an instance (or after the
// experiment was forgotten to make room) lists them all and says so (trials_complete).
//
// What an instance remembers is what its own events said, in the topic's order: acknowledgements
// come in the order the events were written. Another instance's event in between can only have
// moved a trial forward (the controller's requests only move conditions forward; assignments never
// change), and a request that says what this instance said last cannot then say anything newer.
// Pure: no I/O, no clock.
import type { Trial__Output } from '../../../proto/gen/api/v1/beta1/Trial.ts';

/** A trial as an event lists it. */
export interface ListedTrial {
  readonly name: string;
  readonly condition: string;
  readonly assignments: readonly { readonly name: string; readonly value: string }[];
}

export interface TrialsToList {
  readonly trials: readonly ListedTrial[];
  /** Every trial of the request (none remembered for the experiment). */
  readonly complete: boolean;
}

/**
 * Experiments and trials remembered per instance (a few hundred bytes a trial); the least recently
 * used experiments are forgotten beyond either.
 */
export const REMEMBERED_EXPERIMENTS = 1_000;
export const REMEMBERED_TRIALS = 200_000;

export class PublishedTrials {
  private readonly experiments = new Map<string, Map<string, ListedTrial>>();
  private readonly capacity: { readonly experiments: number; readonly trials: number };
  private trials = 0;

  constructor(capacity = { experiments: REMEMBERED_EXPERIMENTS, trials: REMEMBERED_TRIALS }) {
    this.capacity = capacity;
  }

  /** The trials of a request the next event lists. */
  toList(experiment: string, trials: readonly Trial__Output[]): TrialsToList {
    const known = this.experiments.get(experiment);
    if (known === undefined) return { trials: trials.map(listed), complete: true };
    const changed: ListedTrial[] = [];
    for (const trial of trials) {
      const said = known.get(trial.name);
      if (said === undefined || !sameAs(said, trial)) changed.push(listed(trial));
    }
    return { trials: changed, complete: false };
  }

  /** After the event listing `trials` was acknowledged: the topic now says this of them. */
  acknowledge(experiment: string, trials: readonly ListedTrial[]): void {
    // Most recently used last (the first key is the one to forget), under a key of its own.
    const known = this.experiments.get(experiment) ?? new Map<string, ListedTrial>();
    this.experiments.delete(experiment);
    this.experiments.set(ownCopy(experiment), known);
    for (const trial of trials) {
      if (!known.has(trial.name)) this.trials++;
      const own = kept(trial);
      known.set(own.name, own);
    }
    // The least recently used go first; the experiment just told is the most recent.
    while (
      this.experiments.size > 1 &&
      (this.experiments.size > this.capacity.experiments || this.trials > this.capacity.trials)
    ) {
      const [oldest, forgotten] = this.experiments.entries().next().value as [
        string,
        Map<string, ListedTrial>,
      ];
      this.experiments.delete(oldest);
      this.trials -= forgotten.size;
    }
  }

  /** Trials remembered now, over every experiment. */
  get trialCount(): number {
    return this.trials;
  }

  /** Experiments remembered now. */
  get size(): number {
    return this.experiments.size;
  }
}

/**
 * A string of its own: one cut from a request's bytes (the GetSuggestionsRequest reader's) keeps the
 * whole region it was cut from alive for as long as it is remembered.
 */
const ownCopy = (text: string): string => (text.length < 13 ? text : JSON.parse(JSON.stringify(text)));

/** What is remembered of a listed trial: its own strings (the condition is an enum name). */
const kept = (trial: ListedTrial): ListedTrial => ({
  name: ownCopy(trial.name),
  condition: trial.condition,
  assignments: trial.assignments.map((a) => ({ name: ownCopy(a.name), value: ownCopy(a.value) })),
});

const conditionOf = (trial: Trial__Output): string => trial.status?.condition ?? '';
const assignmentsOf = (trial: Trial__Output) => trial.spec?.parameter_assignments?.assignments ?? [];

function listed(trial: Trial__Output): ListedTrial {
  return {
    name: trial.name,
    condition: conditionOf(trial),
    assignments: assignmentsOf(trial).map((a) => ({ name: a.name, value: a.value })),
  };
}

function sameAs(said: ListedTrial, trial: Trial__Output): boolean {
  if (said.condition !== conditionOf(trial)) return false;
  const assignments = assignmentsOf(trial);
  if (assignments.length !== said.assignments.length) return false;
  for (let i = 0; i < assignments.length; i++) {
    const a = assignments[i]!;
    const b = said.assignments[i]!;
    if (a.name !== b.name || a.value !== b.value) return false;
  }
  return true;
}
