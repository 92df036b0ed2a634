// A running trial judged by its experiment's pruner, step by step: each value of the objective
// metric is judged by the rules in force when it was reported (as rules are, see collector-rules),
// so a judge that reads the topics again after a restart comes to the same decisions.
import type { IssuedRules, Series } from './collector-rules.ts';
import { type PrunerSpec, prunerStep } from './pruners/pruner.ts';
import type { RungBook } from './pruners/rung-book.ts';
import { directionOf, type Reference, type RungRecord } from './pruners/types.ts';

export interface IssuedSet extends IssuedRules {
  /** The pruner the judge runs; undefined for rules alone. */
  readonly pruner: PrunerSpec | undefined;
  readonly reference: Reference;
  /**
   * The longest succeeded trial in the earliest set up to this one that had one (0 if none): what
   * `auto` resources resolve to from then on, fixed once as Optuna fixes them.
   */
  autoSteps: number;
}

/** Inserts the set in time order and resolves every set's `autoSteps`. */
export function addSet(sets: IssuedSet[], set: IssuedSet): void {
  sets.push(set);
  sets.sort((a, b) => a.issuedAtMs - b.issuedAtMs);
  let autoSteps = 0;
  for (const each of sets) {
    if (autoSteps === 0) autoSteps = each.reference.succeededMaxSteps;
    each.autoSteps = autoSteps;
  }
}

/** The set in force at `atMs`: the last one issued at or before it (sets in time order). */
export function setInForce(sets: readonly IssuedSet[], atMs: number): IssuedSet | undefined {
  let lo = 0;
  let hi = sets.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sets[mid]!.issuedAtMs <= atMs) lo = mid + 1;
    else hi = mid;
  }
  return sets[lo - 1];
}

/** The objective metric the experiment's pruner judges (its latest set with one). */
export const prunedMetric = (sets: readonly IssuedSet[]): string | undefined =>
  sets.findLast((s) => s.pruner !== undefined)?.objectiveMetric;

export interface PruningOutcome {
  readonly stop?: { readonly algorithm: string; readonly evidence: string };
  /** Rung records this judgement made (already in the book), with the pruner that made them. */
  readonly records: readonly (RungRecord & { readonly algorithm: string })[];
}

/** The first step reported at or after `atMs` (1-based; length + 1 when none). */
export function firstStepFrom(series: Series, atMs: number): number {
  for (let i = 0; i < series.length; i++) if (series.atMs(i) >= atMs) return i + 1;
  return series.length + 1;
}

/**
 * Judges the steps `from`..`series.length` in order, each with the pruner in force when it was
 * reported, until one stops the trial.
 */
export function pruneSteps(input: {
  readonly trialName: string;
  readonly series: Series;
  readonly metric: string;
  readonly sets: readonly IssuedSet[];
  readonly rungs: RungBook;
  readonly from: number;
}): PruningOutcome {
  const { trialName, series, sets, rungs } = input;
  const records: (RungRecord & { algorithm: string })[] = [];
  for (let step = Math.max(1, input.from); step <= series.length; step++) {
    const set = setInForce(sets, series.atMs(step - 1));
    if (set?.pruner === undefined || set.objectiveMetric !== input.metric) continue;
    const verdict = prunerStep(
      set.pruner,
      {
        trialName,
        curve: series,
        step,
        direction: directionOf(set.objectiveType),
        reference: set.reference,
        rungs,
      },
      set.autoSteps,
    );
    for (const record of verdict.records)
      if (rungs.add(record)) records.push({ ...record, algorithm: set.pruner.algorithm });
    if (verdict.stop)
      return { stop: { algorithm: set.pruner.algorithm, evidence: verdict.evidence }, records };
  }
  return { records };
}
