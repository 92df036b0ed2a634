// What a multi-objective experiment answers about its trials: the Pareto rank of every trial that
// reports every objective, the non-dominated set, and its hypervolume against a stated reference
// point. Values and the reference point are in the metrics' own units and directions (a MAXIMIZE
// objective's reference lies below its values); the ranking runs on losses.

import type { TrialRecord } from '../katib-space.ts';
import { defaultReferencePoint, hypervolume } from './hypervolume.ts';
import { type NamedObjective, scoreTrials } from './objectives.ts';
import { paretoRanks } from './pareto.ts';

export interface RankedTrial {
  readonly name: string;
  /** 0 for the non-dominated trials. */
  readonly rank: number;
  /** One value per objective, as reported. */
  readonly values: readonly number[];
}

export interface TrialFront {
  /** Every trial that reports every objective, in request order. */
  readonly trials: readonly RankedTrial[];
  /** Names of the rank-0 trials. */
  readonly front: readonly string[];
  /** The reference point used, in the metrics' units; null when no trial counts. */
  readonly reference: readonly number[] | null;
  readonly hypervolume: number;
}

/**
 * `reference`, when given, is in the metrics' units (one value per objective); otherwise the
 * default of ./hypervolume.ts (the nadir plus 10% of each range, beyond the worst value).
 */
export function trialFront(
  records: readonly TrialRecord[],
  objectives: readonly NamedObjective[],
  reference?: readonly number[],
): TrialFront {
  if (reference !== undefined && reference.length !== objectives.length)
    throw new RangeError(
      `the reference point has ${reference.length} values for ${objectives.length} objectives`,
    );
  const scored = scoreTrials(records, objectives);
  if (scored.length === 0) return { trials: [], front: [], reference: reference ?? null, hypervolume: 0 };
  const sign = objectives.map((o) => (o.direction === 'MAXIMIZE' ? -1 : 1));
  const losses = scored.map((t) => t.losses);
  const ranks = paretoRanks(losses);
  const lossReference =
    reference === undefined ? defaultReferencePoint(losses) : reference.map((value, k) => value * sign[k]!);
  const trials = scored.map((t, i) => ({
    name: records[t.index]!.name,
    rank: ranks[i]!,
    values: t.losses.map((loss, k) => loss * sign[k]!),
  }));
  return {
    trials,
    front: trials.filter((t) => t.rank === 0).map((t) => t.name),
    // + 0 turns a negated 0 into 0, so the answer reads as written.
    reference: lossReference.map((value, k) => value * sign[k]! + 0),
    hypervolume: hypervolume(losses, lossReference),
  };
}
