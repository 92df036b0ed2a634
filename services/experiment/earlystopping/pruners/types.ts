// What every pruner sees when it judges one step of a running trial, and what it answers.
// Steps are Katib's: the n-th numeric value of the objective metric is step n (1-based).
import type { ObjectiveType } from '../medianstop.ts';

export type Direction = 'MINIMIZE' | 'MAXIMIZE';

/** Katib minimises when the objective type is not MAXIMIZE (UNKNOWN compares as MINIMIZE does). */
export const directionOf = (objectiveType: ObjectiveType | string): Direction =>
  objectiveType === 'MAXIMIZE' ? 'MAXIMIZE' : 'MINIMIZE';

/** Whether `a` is strictly better than `b`. */
export const better = (a: number, b: number, direction: Direction): boolean =>
  direction === 'MAXIMIZE' ? a > b : a < b;

/** A trial's objective values in report order: value(i) is step i + 1. */
export interface Curve {
  readonly length: number;
  value(index: number): number;
}

export interface ReferenceStep {
  readonly step: number;
  readonly value: number;
}

/** What the experiment's succeeded trials showed when the rules were issued (GetEarlyStoppingRules). */
export interface Reference {
  /** The request's SUCCEEDED trials (Optuna: completed trials). */
  readonly succeededTrials: number;
  /** The most steps one of them reported (resolves `auto` resources). */
  readonly succeededMaxSteps: number;
  /**
   * By step, ascending. percentile: the threshold at each checked step that has one; wilcoxon: the
   * curve of the best succeeded trial (best last value). Empty for the others.
   */
  readonly steps: readonly ReferenceStep[];
}

export const EMPTY_REFERENCE: Reference = Object.freeze({
  succeededTrials: 0,
  succeededMaxSteps: 0,
  steps: Object.freeze([]),
});

/** A trial's value where successive halving compared it; shared by every judge of the experiment. */
export interface RungRecord {
  readonly trialName: string;
  /** Hyperband's bracket (0 for successivehalving). */
  readonly bracket: number;
  readonly rung: number;
  readonly step: number;
  readonly value: number;
  /** Whether the trial went on past the rung. */
  readonly promoted: boolean;
}

/** The rung records of one experiment (read only: a pruner returns new ones, the caller adds them). */
export interface RungValues {
  /** Values recorded at the rung by trials other than `exceptTrial`. */
  valuesAt(bracket: number, rung: number, exceptTrial: string): number[];
  /** The trial's records, in rung order. */
  recordsOf(trialName: string): readonly RungRecord[];
}

export interface StepInput {
  readonly trialName: string;
  readonly curve: Curve;
  /** The step judged (1..curve.length): a pruner sees only values up to it. */
  readonly step: number;
  readonly direction: Direction;
  readonly reference: Reference;
  readonly rungs: RungValues;
}

export interface StepVerdict {
  readonly stop: boolean;
  /** Why, for the status message: the algorithm's test with the values it compared. */
  readonly evidence: string;
  /** Rung records made at this step (successive halving, hyperband). */
  readonly records: readonly RungRecord[];
}

export const GO_ON: StepVerdict = Object.freeze({ stop: false, evidence: '', records: Object.freeze([]) });

export const stopBecause = (evidence: string, records: readonly RungRecord[] = []): StepVerdict => ({
  stop: true,
  evidence,
  records,
});

/** The best of `count` values (≥ 1) from index `from`. */
export function bestOf(curve: Curve, from: number, count: number, direction: Direction): number {
  let best = curve.value(from);
  for (let i = from + 1; i < from + count; i++) {
    const value = curve.value(i);
    if (better(value, best, direction)) best = value;
  }
  return best;
}

/**
 * Optuna's pruning checkpoints: from `warmup` on, every `interval` steps. Katib's steps come one
 * after another, so the first step of each interval is exactly the checkpoint.
 */
export const isCheckStep = (step: number, warmup: number, interval: number): boolean =>
  step >= warmup && (step - warmup) % interval === 0;
