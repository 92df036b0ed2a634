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

/** Experiments remembered per instance; the least recently used is forgotten beyond it. */
export const REMEMBERED_EXPERIMENTS = 1_000;

export class PublishedTrials {
  private readonly experiments = new Map<string, Map<string, ListedTrial>>();
  private readonly capacity: number;

  constructor(capacity = REMEMBERED_EXPERIMENTS) {
    this.capacity = capacity;
  }

  /** The trials of a request the next event lists. */
  toList(experiment: string, trials: readonly Trial__Output[]): TrialsToList {
    const known = this.experiments.get(experiment);
    if (known === undefined) return { trials: trials.map(listed), complete: true };
    // Most recently used last: the first key is the one to forget.
    this.experiments.delete(experiment);
    this.experiments.set(experiment, known);
    const changed: ListedTrial[] = [];
    for (const trial of trials) {
      const said = known.get(trial.name);
      if (said === undefined || !sameAs(said, trial)) changed.push(listed(trial));
    }
    return { trials: changed, complete: false };
  }

  /** After the event listing `trials` was acknowledged: the topic now says this of them. */
  acknowledge(experiment: string, trials: readonly ListedTrial[]): void {
    let known = this.experiments.get(experiment);
    if (known === undefined) {
      known = new Map();
      this.experiments.set(experiment, known);
      if (this.experiments.size > this.capacity)
        this.experiments.delete(this.experiments.keys().next().value as string);
    }
    for (const trial of trials) known.set(trial.name, trial);
  }

  /** Experiments remembered now. */
  get size(): number {
    return this.experiments.size;
  }
}

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
