// The pieces of Katib's messages that GetSuggestionsRequest's experiment and trials share, read
// from their bytes as suggestions-request.ts reads the whole (field numbers from
// suggestions-request-schema.ts; the differential tests against protobufjs, which loads proto/,
// hold the reading to it).
import type { _api_v1_beta1_ExperimentSpec_ParameterSpecs__Output as ExperimentParameterSpecs } from '../../../../proto/gen/api/v1/beta1/ExperimentSpec.ts';
import type { FeasibleSpace__Output } from '../../../../proto/gen/api/v1/beta1/FeasibleSpace.ts';
import type { ObjectiveSpec__Output } from '../../../../proto/gen/api/v1/beta1/ObjectiveSpec.ts';
import type { ParameterSpec__Output } from '../../../../proto/gen/api/v1/beta1/ParameterSpec.ts';
import type { StepAsideReader } from '../../../../shared/protobuf/step-aside-reader.ts';
import { fields, NAME_VALUE, PARAMETER_SPECS } from './suggestions-request-schema.ts';

const OBJECTIVE = fields('api.v1.beta1.ObjectiveSpec');
const PARAMETER_SPEC = fields('api.v1.beta1.ParameterSpec');
const FEASIBLE_SPACE = fields('api.v1.beta1.FeasibleSpace');

/** Enum names by number, as api.proto declares them (the trial conditions are katib-space's). */
const PARAMETER_TYPES = ['UNKNOWN_TYPE', 'DOUBLE', 'INT', 'DISCRETE', 'CATEGORICAL'] as const;
const DISTRIBUTIONS = ['DISTRIBUTION_UNSPECIFIED', 'UNIFORM', 'LOG_UNIFORM', 'NORMAL', 'LOG_NORMAL'] as const;
const OBJECTIVE_TYPES = ['UNKNOWN', 'MINIMIZE', 'MAXIMIZE'] as const;

/**
 * An enum's name; a number without one stays the number, as protobufjs's toObject leaves it (the
 * generated types do not say so, for either decoder).
 */
export function enumName<Name extends string>(names: readonly Name[], value: number): Name {
  return (names[value] ?? value) as Name;
}

/** AlgorithmSetting, EarlyStoppingSetting, ParameterAssignment and Metric: one layout (NAME_VALUE). */
export function readNameValue(r: StepAsideReader, end: number): { name: string; value: string } {
  let name = '';
  let value = '';
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === NAME_VALUE.name) name = r.string(tag, end);
    else if (field === NAME_VALUE.value) value = r.string(tag, end);
    else r.skip(tag, end);
  }
  return { name, value };
}
export function readObjective(r: StepAsideReader, end: number): ObjectiveSpec__Output {
  const additionalMetricNames: string[] = [];
  let type = 0;
  let goal = 0;
  let metricName = '';
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === OBJECTIVE.type) type = r.int32(tag, end);
    else if (field === OBJECTIVE.goal) goal = r.double(tag, end);
    else if (field === OBJECTIVE.objective_metric_name) metricName = r.string(tag, end);
    else if (field === OBJECTIVE.additional_metric_names) additionalMetricNames.push(r.string(tag, end));
    else r.skip(tag, end);
  }
  return {
    additional_metric_names: additionalMetricNames,
    type: enumName(OBJECTIVE_TYPES, type),
    goal,
    objective_metric_name: metricName,
  };
}
/** ExperimentSpec.ParameterSpecs and Operation.ParameterSpecs, one layout (PARAMETER_SPECS). */
export function readParameterSpecs(r: StepAsideReader, end: number): ExperimentParameterSpecs {
  const parameters: ParameterSpec__Output[] = [];
  while (r.at < end) {
    const tag = r.tag(end);
    if (tag >>> 3 === PARAMETER_SPECS.parameters)
      parameters.push(readParameterSpec(r, r.messageEnd(tag, end)));
    else r.skip(tag, end);
  }
  return { parameters };
}
function readParameterSpec(r: StepAsideReader, end: number): ParameterSpec__Output {
  let name = '';
  let parameterType = 0;
  let feasibleSpace: FeasibleSpace__Output | null = null;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === PARAMETER_SPEC.name) name = r.string(tag, end);
    else if (field === PARAMETER_SPEC.parameter_type) parameterType = r.int32(tag, end);
    else if (field === PARAMETER_SPEC.feasible_space)
      feasibleSpace = readFeasibleSpace(r, r.messageEnd(tag, end));
    else r.skip(tag, end);
  }
  return {
    name,
    parameter_type: enumName(PARAMETER_TYPES, parameterType),
    feasible_space: feasibleSpace,
  };
}
function readFeasibleSpace(r: StepAsideReader, end: number): FeasibleSpace__Output {
  const list: string[] = [];
  let max = '';
  let min = '';
  let step = '';
  let distribution = 0;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === FEASIBLE_SPACE.max) max = r.string(tag, end);
    else if (field === FEASIBLE_SPACE.min) min = r.string(tag, end);
    else if (field === FEASIBLE_SPACE.list) list.push(r.string(tag, end));
    else if (field === FEASIBLE_SPACE.step) step = r.string(tag, end);
    else if (field === FEASIBLE_SPACE.distribution) distribution = r.int32(tag, end);
    else r.skip(tag, end);
  }
  return { list, max, min, step, distribution: enumName(DISTRIBUTIONS, distribution) };
}
