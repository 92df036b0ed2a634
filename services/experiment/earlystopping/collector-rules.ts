// How a running trial is judged against issued rules, the way Katib's metrics collector does it:
// each rule is checked once, at the `start_step`-th value of its metric; for the objective metric
// the value compared is the best so far (max when maximising, min otherwise), for any other metric
// the value itself; comparisons are strict; the trial stops when every rule of the set holds.
//
// Our addition: rules are issued over time, so a rule set only judges a value reported at or after
// the set was issued (Katib fixes rules on a trial when it creates it, which has the same effect).

import { parseFinite } from '../common/katib-numbers.ts';
import { type Comparison, MEDIANSTOP, type ObjectiveType, type StoppingRule } from './medianstop.ts';

/** The numeric values of one metric, in report order, with when each one's report was acknowledged. */
export interface Series {
  readonly length: number;
  value(index: number): number;
  atMs(index: number): number;
}

export interface IssuedRules {
  readonly issuedAtMs: number;
  /** The experiment's algorithm; '' or absent for rules alone (medianstop, v1 events). */
  readonly algorithm?: string;
  readonly objectiveMetric: string;
  readonly objectiveType: ObjectiveType;
  readonly rules: readonly StoppingRule[];
}

export interface Verdict {
  /** Who decided: medianstop for rules, else the pruner. */
  readonly algorithm: string;
  /** Why, for the status message: each rule (or the pruner's test) with the values it compared. */
  readonly evidence: string;
}

const holds = (value: number, comparison: Comparison, threshold: number): boolean =>
  comparison === 'LESS'
    ? value < threshold
    : comparison === 'GREATER'
      ? value > threshold
      : value === threshold;

interface Compared {
  readonly value: number;
  /** When the step's value was reported. */
  readonly atMs: number;
}

/** What a rule compares at its step, or undefined before the step is reached. */
function compared(rule: StoppingRule, set: IssuedRules, samples: Series): Compared | undefined {
  const step = Math.max(rule.startStep, 1);
  if (samples.length < step) return undefined;
  const atMs = samples.atMs(step - 1);
  if (rule.name !== set.objectiveMetric) return { value: samples.value(step - 1), atMs };
  let best = samples.value(0);
  for (let i = 1; i < step; i++) {
    const value = samples.value(i);
    best = set.objectiveType === 'MAXIMIZE' ? Math.max(best, value) : Math.min(best, value);
  }
  return { value: best, atMs };
}

/**
 * Stops the trial when some rule set holds in full, judged on values reported while that set was
 * the one in force (issued at or before them, and not yet replaced by a newer set).
 *
 * @param ruleSets the experiment's sets, oldest first
 */
export function judge(
  samplesOf: (metric: string) => Series,
  ruleSets: readonly IssuedRules[],
): Verdict | undefined {
  for (const [index, set] of ruleSets.entries()) {
    if (set.rules.length === 0) continue;
    const replacedAtMs = ruleSets[index + 1]?.issuedAtMs ?? Number.POSITIVE_INFINITY;
    const evidence: string[] = [];
    const allHold = set.rules.every((rule) => {
      const threshold = parseFinite(rule.value);
      const seen = compared(rule, set, samplesOf(rule.name));
      if (threshold === undefined || seen === undefined) return false;
      if (seen.atMs < set.issuedAtMs || seen.atMs >= replacedAtMs) return false;
      if (!holds(seen.value, rule.comparison, threshold)) return false;
      const what = rule.name === set.objectiveMetric ? `best ${rule.name}` : rule.name;
      evidence.push(
        `${what} ${seen.value} at step ${rule.startStep} is ${rule.comparison.toLowerCase()} than ${rule.value}`,
      );
      return true;
    });
    if (allHold) return { algorithm: set.algorithm || MEDIANSTOP, evidence: evidence.join('; ') };
  }
  return undefined;
}
