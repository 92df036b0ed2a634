// What GetEarlyStoppingRules answers, for any algorithm, from the curves it read: the rules for
// Katib's metrics collector and the reference the early-stopping judges run a pruner with.
import { parseFinite } from '../common/katib-numbers.ts';
import { type AlgorithmSpec, isPruner } from './algorithms.ts';
import { medianStopRule, type ObjectiveType, type StoppingRule } from './medianstop.ts';
import { collectorRules, needsListedCurves, pruningReference } from './pruners/issue.ts';
import { directionOf, EMPTY_REFERENCE, type Reference } from './pruners/types.ts';

export interface IssuedRulesAndReference {
  readonly rules: StoppingRule[];
  readonly reference: Reference;
}

/** Which trials' objective curves the answer needs. */
export function curvesNeeded(
  spec: AlgorithmSpec,
  trials: readonly { readonly name: string; readonly condition: string }[],
): { readonly succeeded: readonly string[]; readonly listed: readonly string[] } {
  const succeeded = trials.filter((t) => t.condition === 'SUCCEEDED').map((t) => t.name);
  const listed = isPruner(spec) && needsListedCurves(spec) ? trials.map((t) => t.name) : [];
  return { succeeded, listed };
}

const numeric = (values: readonly string[]): number[] =>
  values.map(parseFinite).filter((v): v is number => v !== undefined);

export function issueRules(input: {
  readonly spec: AlgorithmSpec;
  readonly objectiveMetric: string;
  readonly objectiveType: ObjectiveType;
  /** The succeeded trials' objective values as reported (text), in time order. */
  readonly succeeded: readonly (readonly string[])[];
  /** The listed trials' objective values by name, for those `curvesNeeded` named. */
  readonly listed: ReadonlyMap<string, readonly string[]>;
}): IssuedRulesAndReference {
  const { spec, objectiveMetric } = input;
  if (!isPruner(spec)) {
    const rule = medianStopRule({
      objectiveMetric,
      objectiveType: input.objectiveType,
      settings: spec.settings,
      succeededCurves: input.succeeded,
    });
    return { rules: rule ? [rule] : [], reference: EMPTY_REFERENCE };
  }
  const direction = directionOf(input.objectiveType);
  const succeeded = input.succeeded.map(numeric);
  const reference = pruningReference(spec, direction, input.succeeded.length, succeeded);
  const listed = new Map([...input.listed].map(([name, values]) => [name, numeric(values)]));
  return { rules: collectorRules({ spec, objectiveMetric, direction, reference, listed }), reference };
}
