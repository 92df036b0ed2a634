// GetSuggestionsRequest read straight from its bytes into the plain object proto-loader would give
// (same keys in the same order, defaults, enum names, null for absent messages): Katib's controller
// sends every trial in every request, and protobufjs's generic decode + toObject costs ~0.45 ms at
// 200 trials (56 KB), this reader ~0.14 ms (bench/suggest/request-decode.ts). Anything it does not
// read exactly as protobufjs would (a known field with another wire type, a group, a string running
// past its message, an over-long tag or length) is handed to the method's own deserializer, and
// malformed bytes fail there, with grpc-js's own error. Unknown fields are skipped, a repeated
// singular field keeps its last occurrence (protobufjs replaces a message, it does not merge), and
// an enum number without a name stays a number, as protobufjs's toObject leaves it. Each trial's
// strings are cut from one Latin-1 decoding of its bytes when ASCII (WireReader.stringsFrom).
//
//   GetSuggestionsRequest { Experiment experiment = 1; repeated Trial trials = 2;
//                           int32 current_request_number = 4; int32 total_request_number = 5; }
//   Experiment            { string name = 1; ExperimentSpec spec = 2; }
//   ExperimentSpec        { ParameterSpecs parameter_specs = 1; ObjectiveSpec objective = 2;
//                           AlgorithmSpec algorithm = 3; EarlyStoppingSpec early_stopping = 4;
//                           int32 parallel_trial_count = 5; int32 max_trial_count = 6;
//                           NasConfig nas_config = 7; }
//   ParameterSpecs        { repeated ParameterSpec parameters = 1; }  (also Operation's)
//   ParameterSpec         { string name = 1; ParameterType parameter_type = 2; FeasibleSpace feasible_space = 3; }
//   FeasibleSpace         { string max = 1; string min = 2; repeated string list = 3; string step = 4;
//                           Distribution distribution = 5; }
//   ObjectiveSpec         { ObjectiveType type = 1; double goal = 2; string objective_metric_name = 3;
//                           repeated string additional_metric_names = 4; }
//   AlgorithmSpec         { string algorithm_name = 1; repeated AlgorithmSetting algorithm_settings = 2; }
//                         (EarlyStoppingSpec alike)
//   NasConfig             { GraphConfig graph_config = 1; Operations operations = 2; }
//   GraphConfig           { int32 num_layers = 1; repeated int32 input_sizes = 2; repeated int32 output_sizes = 3; }
//   Operations            { repeated Operation operation = 1; }
//   Operation             { string operation_type = 1; ParameterSpecs parameter_specs = 2; }
//   Trial                 { string name = 1; TrialSpec spec = 2; TrialStatus status = 3; }
//   TrialSpec             { ObjectiveSpec objective = 2; ParameterAssignments parameter_assignments = 3;
//                           map<string, string> labels = 4; }
//   ParameterAssignments  { repeated ParameterAssignment assignments = 1; }
//   TrialStatus           { string start_time = 1; string completion_time = 2;
//                           TrialConditionType condition = 3; Observation observation = 4; }
//   Observation           { repeated Metric metrics = 1; }
//   AlgorithmSetting, EarlyStoppingSetting, ParameterAssignment, Metric { string name = 1; string value = 2; }
//
// protobufjs's toObject puts repeated fields first, then maps, then the others by number; so do
// the object literals here.
import type { ServiceDefinition } from '@grpc/grpc-js';
import type { AlgorithmSpec__Output } from '../../../../proto/gen/api/v1/beta1/AlgorithmSpec.ts';
import type { Experiment__Output } from '../../../../proto/gen/api/v1/beta1/Experiment.ts';
import type {
  _api_v1_beta1_ExperimentSpec_ParameterSpecs__Output as ExperimentParameterSpecs,
  ExperimentSpec__Output,
} from '../../../../proto/gen/api/v1/beta1/ExperimentSpec.ts';
import type { FeasibleSpace__Output } from '../../../../proto/gen/api/v1/beta1/FeasibleSpace.ts';
import type { GetSuggestionsRequest__Output } from '../../../../proto/gen/api/v1/beta1/GetSuggestionsRequest.ts';
import type { GraphConfig__Output } from '../../../../proto/gen/api/v1/beta1/GraphConfig.ts';
import type {
  NasConfig__Output,
  _api_v1_beta1_NasConfig_Operations__Output as NasOperations,
} from '../../../../proto/gen/api/v1/beta1/NasConfig.ts';
import type { ObjectiveSpec__Output } from '../../../../proto/gen/api/v1/beta1/ObjectiveSpec.ts';
import type { Observation__Output } from '../../../../proto/gen/api/v1/beta1/Observation.ts';
import type { Operation__Output } from '../../../../proto/gen/api/v1/beta1/Operation.ts';
import type { ParameterSpec__Output } from '../../../../proto/gen/api/v1/beta1/ParameterSpec.ts';
import type { Trial__Output } from '../../../../proto/gen/api/v1/beta1/Trial.ts';
import type {
  _api_v1_beta1_TrialSpec_ParameterAssignments__Output as ParameterAssignments,
  TrialSpec__Output,
} from '../../../../proto/gen/api/v1/beta1/TrialSpec.ts';
import type { TrialStatus__Output } from '../../../../proto/gen/api/v1/beta1/TrialStatus.ts';
import { TRIAL_CONDITIONS } from '../katib-space.ts';
import { STEP_ASIDE, WireReader } from './protobuf-wire.ts';

/** Enum names by number, as api.proto declares them (the trial conditions are katib-space's). */
const PARAMETER_TYPES = ['UNKNOWN_TYPE', 'DOUBLE', 'INT', 'DISCRETE', 'CATEGORICAL'] as const;
const DISTRIBUTIONS = ['DISTRIBUTION_UNSPECIFIED', 'UNIFORM', 'LOG_UNIFORM', 'NORMAL', 'LOG_NORMAL'] as const;
const OBJECTIVE_TYPES = ['UNKNOWN', 'MINIMIZE', 'MAXIMIZE'] as const;

/**
 * An enum's name; a number without one stays the number, as protobufjs's toObject leaves it (the
 * generated types do not say so, for either decoder).
 */
function enumName<Name extends string>(names: readonly Name[], value: number): Name {
  return (names[value] ?? value) as Name;
}

/** The request as proto-loader would decode it, or undefined when these bytes are left to it. */
export function readSuggestionsRequest(bytes: Buffer): GetSuggestionsRequest__Output | undefined {
  try {
    return readRequest(new WireReader(bytes), bytes.length);
  } catch (error) {
    if (error === STEP_ASIDE) return undefined;
    throw error;
  }
}

/**
 * The Suggestion definition with GetSuggestions's requests read by `readSuggestionsRequest`; what
 * it steps aside from, or finds malformed, goes through the generic decoder (which throws for the
 * latter). ValidateAlgorithmSettings keeps the generic decoder.
 */
export function withSuggestionsRequestReader(definition: ServiceDefinition): ServiceDefinition {
  const method = definition.GetSuggestions;
  if (method === undefined) throw new Error('not the Suggestion service: no GetSuggestions');
  return {
    ...definition,
    GetSuggestions: {
      ...method,
      requestDeserialize: (bytes: Buffer) =>
        // protobufjs decodes strings of a plain Uint8Array its own way: those stay generic.
        (Buffer.isBuffer(bytes) ? readSuggestionsRequest(bytes) : undefined) ??
        method.requestDeserialize(bytes),
    },
  };
}

function readRequest(r: WireReader, end: number): GetSuggestionsRequest__Output {
  const trials: Trial__Output[] = [];
  let experiment: Experiment__Output | null = null;
  let currentRequestNumber = 0;
  let totalRequestNumber = 0;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === 1) experiment = readExperiment(r, r.messageEnd(tag, end));
    else if (field === 2) trials.push(readTrial(r, r.messageEnd(tag, end)));
    else if (field === 4) currentRequestNumber = r.int32(tag, end);
    else if (field === 5) totalRequestNumber = r.int32(tag, end);
    else r.skip(tag, end);
  }
  return {
    trials,
    experiment,
    current_request_number: currentRequestNumber,
    total_request_number: totalRequestNumber,
  };
}

function readExperiment(r: WireReader, end: number): Experiment__Output {
  r.stringsFrom(end);
  let name = '';
  let spec: ExperimentSpec__Output | null = null;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === 1) name = r.string(tag, end);
    else if (field === 2) spec = readExperimentSpec(r, r.messageEnd(tag, end));
    else r.skip(tag, end);
  }
  return { name, spec };
}

function readExperimentSpec(r: WireReader, end: number): ExperimentSpec__Output {
  const spec: ExperimentSpec__Output = {
    parameter_specs: null,
    objective: null,
    algorithm: null,
    early_stopping: null,
    parallel_trial_count: 0,
    max_trial_count: 0,
    nas_config: null,
  };
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === 1) spec.parameter_specs = readParameterSpecs(r, r.messageEnd(tag, end));
    else if (field === 2) spec.objective = readObjective(r, r.messageEnd(tag, end));
    else if (field === 3) spec.algorithm = readAlgorithm(r, r.messageEnd(tag, end));
    else if (field === 4) spec.early_stopping = readAlgorithm(r, r.messageEnd(tag, end));
    else if (field === 5) spec.parallel_trial_count = r.int32(tag, end);
    else if (field === 6) spec.max_trial_count = r.int32(tag, end);
    else if (field === 7) spec.nas_config = readNasConfig(r, r.messageEnd(tag, end));
    else r.skip(tag, end);
  }
  return spec;
}

/** ExperimentSpec.ParameterSpecs and Operation.ParameterSpecs, one layout. */
function readParameterSpecs(r: WireReader, end: number): ExperimentParameterSpecs {
  const parameters: ParameterSpec__Output[] = [];
  while (r.at < end) {
    const tag = r.tag(end);
    if (tag >>> 3 === 1) parameters.push(readParameterSpec(r, r.messageEnd(tag, end)));
    else r.skip(tag, end);
  }
  return { parameters };
}

function readParameterSpec(r: WireReader, end: number): ParameterSpec__Output {
  let name = '';
  let parameterType = 0;
  let feasibleSpace: FeasibleSpace__Output | null = null;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === 1) name = r.string(tag, end);
    else if (field === 2) parameterType = r.int32(tag, end);
    else if (field === 3) feasibleSpace = readFeasibleSpace(r, r.messageEnd(tag, end));
    else r.skip(tag, end);
  }
  return {
    name,
    parameter_type: enumName(PARAMETER_TYPES, parameterType),
    feasible_space: feasibleSpace,
  };
}

function readFeasibleSpace(r: WireReader, end: number): FeasibleSpace__Output {
  const list: string[] = [];
  let max = '';
  let min = '';
  let step = '';
  let distribution = 0;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === 1) max = r.string(tag, end);
    else if (field === 2) min = r.string(tag, end);
    else if (field === 3) list.push(r.string(tag, end));
    else if (field === 4) step = r.string(tag, end);
    else if (field === 5) distribution = r.int32(tag, end);
    else r.skip(tag, end);
  }
  return { list, max, min, step, distribution: enumName(DISTRIBUTIONS, distribution) };
}

function readObjective(r: WireReader, end: number): ObjectiveSpec__Output {
  const additionalMetricNames: string[] = [];
  let type = 0;
  let goal = 0;
  let metricName = '';
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === 1) type = r.int32(tag, end);
    else if (field === 2) goal = r.double(tag, end);
    else if (field === 3) metricName = r.string(tag, end);
    else if (field === 4) additionalMetricNames.push(r.string(tag, end));
    else r.skip(tag, end);
  }
  return {
    additional_metric_names: additionalMetricNames,
    type: enumName(OBJECTIVE_TYPES, type),
    goal,
    objective_metric_name: metricName,
  };
}

/** AlgorithmSpec and EarlyStoppingSpec, one layout; so are their settings. */
function readAlgorithm(r: WireReader, end: number): AlgorithmSpec__Output {
  const settings: { name: string; value: string }[] = [];
  let algorithmName = '';
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === 1) algorithmName = r.string(tag, end);
    else if (field === 2) settings.push(readNameValue(r, r.messageEnd(tag, end)));
    else r.skip(tag, end);
  }
  return { algorithm_settings: settings, algorithm_name: algorithmName };
}

/** AlgorithmSetting, EarlyStoppingSetting, ParameterAssignment and Metric: one layout. */
function readNameValue(r: WireReader, end: number): { name: string; value: string } {
  let name = '';
  let value = '';
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === 1) name = r.string(tag, end);
    else if (field === 2) value = r.string(tag, end);
    else r.skip(tag, end);
  }
  return { name, value };
}

function readNasConfig(r: WireReader, end: number): NasConfig__Output {
  let graphConfig: GraphConfig__Output | null = null;
  let operations: NasOperations | null = null;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === 1) graphConfig = readGraphConfig(r, r.messageEnd(tag, end));
    else if (field === 2) operations = readOperations(r, r.messageEnd(tag, end));
    else r.skip(tag, end);
  }
  return { graph_config: graphConfig, operations };
}

function readGraphConfig(r: WireReader, end: number): GraphConfig__Output {
  const inputSizes: number[] = [];
  const outputSizes: number[] = [];
  let numLayers = 0;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === 1) numLayers = r.int32(tag, end);
    else if (field === 2) r.int32s(tag, end, inputSizes);
    else if (field === 3) r.int32s(tag, end, outputSizes);
    else r.skip(tag, end);
  }
  return { input_sizes: inputSizes, output_sizes: outputSizes, num_layers: numLayers };
}

function readOperations(r: WireReader, end: number): NasOperations {
  const operation: Operation__Output[] = [];
  while (r.at < end) {
    const tag = r.tag(end);
    if (tag >>> 3 === 1) operation.push(readOperation(r, r.messageEnd(tag, end)));
    else r.skip(tag, end);
  }
  return { operation };
}

function readOperation(r: WireReader, end: number): Operation__Output {
  let operationType = '';
  let parameterSpecs: ExperimentParameterSpecs | null = null;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === 1) operationType = r.string(tag, end);
    else if (field === 2) parameterSpecs = readParameterSpecs(r, r.messageEnd(tag, end));
    else r.skip(tag, end);
  }
  return { operation_type: operationType, parameter_specs: parameterSpecs };
}

function readTrial(r: WireReader, end: number): Trial__Output {
  r.stringsFrom(end);
  let name = '';
  let spec: TrialSpec__Output | null = null;
  let status: TrialStatus__Output | null = null;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === 1) name = r.string(tag, end);
    else if (field === 2) spec = readTrialSpec(r, r.messageEnd(tag, end));
    else if (field === 3) status = readTrialStatus(r, r.messageEnd(tag, end));
    else r.skip(tag, end);
  }
  return { name, spec, status };
}

function readTrialSpec(r: WireReader, end: number): TrialSpec__Output {
  const labels: Record<string, string> = {};
  let objective: ObjectiveSpec__Output | null = null;
  let assignments: ParameterAssignments | null = null;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === 2) objective = readObjective(r, r.messageEnd(tag, end));
    else if (field === 3) assignments = readAssignments(r, r.messageEnd(tag, end));
    else if (field === 4) readLabel(r, r.messageEnd(tag, end), labels);
    else r.skip(tag, end);
  }
  return { labels, objective, parameter_assignments: assignments };
}

function readAssignments(r: WireReader, end: number): ParameterAssignments {
  const assignments: { name: string; value: string }[] = [];
  while (r.at < end) {
    const tag = r.tag(end);
    if (tag >>> 3 === 1) assignments.push(readNameValue(r, r.messageEnd(tag, end)));
    else r.skip(tag, end);
  }
  return { assignments };
}

/** One map entry { string key = 1; string value = 2; }: a key seen again takes the later value. */
function readLabel(r: WireReader, end: number, labels: Record<string, string>): void {
  let key = '';
  let value = '';
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === 1) key = r.string(tag, end);
    else if (field === 2) value = r.string(tag, end);
    else r.skip(tag, end);
  }
  // An own "__proto__" key, as protobufjs makes it, rather than a new prototype.
  if (key === '__proto__') {
    Object.defineProperty(labels, key, { value, enumerable: true, configurable: true, writable: true });
  } else labels[key] = value;
}

function readTrialStatus(r: WireReader, end: number): TrialStatus__Output {
  let startTime = '';
  let completionTime = '';
  let condition = 0;
  let observation: Observation__Output | null = null;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === 1) startTime = r.string(tag, end);
    else if (field === 2) completionTime = r.string(tag, end);
    else if (field === 3) condition = r.int32(tag, end);
    else if (field === 4) observation = readObservation(r, r.messageEnd(tag, end));
    else r.skip(tag, end);
  }
  return {
    start_time: startTime,
    completion_time: completionTime,
    condition: enumName(TRIAL_CONDITIONS, condition),
    observation,
  };
}

function readObservation(r: WireReader, end: number): Observation__Output {
  const metrics: { name: string; value: string }[] = [];
  while (r.at < end) {
    const tag = r.tag(end);
    if (tag >>> 3 === 1) metrics.push(readNameValue(r, r.messageEnd(tag, end)));
    else r.skip(tag, end);
  }
  return { metrics };
}
