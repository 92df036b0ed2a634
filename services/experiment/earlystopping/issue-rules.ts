// What GetEarlyStoppingRules answers, for any algorithm, from the curves it read: the rules for
// Katib's metrics collector and the reference the early-stopping judges run a pruner with.
import { parseFinite } from '../common/katib-numbers.ts';
import { type AlgorithmSpec, isPruner } from './algorithms.ts';
import { medianStopRule, type ObjectiveType, type StoppingRule } from './medianstop.ts';
import {
  collectorRules,
  needsListedCurves,
  needsSucceededCurves,
  pruningReference,
} from './pruners/issue.ts';
import { directionOf, EMPTY_REFERENCE, type Reference } from './pruners/types.ts';

export interface IssuedRulesAndReference {
  readonly rules: StoppingRule[];
  readonly reference: Reference;
}

/** Which trials' objective curves the answer needs. */
export function curvesNeeded(
  spec: AlgorithmSpec,
  trials: readonly { readonly name: string; readonly condition: string }[],
): {
  /** How many trials succeeded. */
  readonly succeededTrials: number;
  /** Those whose curves are needed. */
  readonly succeeded: readonly string[];
  readonly listed: readonly string[];
} {
  const pruner = isPruner(spec) ? spec : undefined;
  const succeeded =
    pruner === undefined || needsSucceededCurves(pruner)
      ? trials.filter((t) => t.condition === 'SUCCEEDED').map((t) => t.name)
      : [];
  const listed = pruner && needsListedCurves(pruner) ? trials.map((t) => t.name) : [];
  return { succeededTrials: trials.filter((t) => t.condition === 'SUCCEEDED').length, succeeded, listed };
}

const numeric = (values: readonly string[]): number[] =>
  values.map(parseFinite).filter((v): v is number => v !== undefined);

export function issueRules(input: {
  readonly spec: AlgorithmSpec;
  readonly objectiveMetric: string;
  readonly objectiveType: ObjectiveType;
  /** How many trials the request listed as SUCCEEDED. */
  readonly succeededTrials: number;
  /** The objective values (text, in time order) of the succeeded trials `curvesNeeded` named. */
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
  const reference = pruningReference(spec, direction, input.succeededTrials, succeeded);
  const listed = new Map([...input.listed].map(([name, values]) => [name, numeric(values)]));
  return { rules: collectorRules({ spec, objectiveMetric, direction, reference, listed }), reference };
}
