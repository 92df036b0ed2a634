// GetSuggestionsRequest read straight from its bytes into the plain object proto-loader would give
// (same keys in the same order, defaults, enum names, null for absent messages): Katib's controller
// sends every trial in every request, and protobufjs's generic decode + toObject costs ~0.45 ms at
// 200 trials (56 KB), this reader ~0.14 ms (bench/suggest/request-decode.ts). Anything it does not
// read exactly as protobufjs would (a known field with another wire type, a group, a string running
// past its message, an over-long tag or length) is handed to the method's own deserializer, and
// malformed bytes fail there, with grpc-js's own error. Unknown fields are skipped, a repeated
// singular field keeps its last occurrence (protobufjs replaces a message, it does not merge), and
// an enum number without a name stays a number, as protobufjs's toObject leaves it. Each trial's
// strings are cut from one Latin-1 decoding of its bytes when ASCII (StepAsideReader.stringsFrom).
// Field numbers come from SUGGESTIONS_REQUEST_SCHEMA (suggestions-request-schema.ts), which
// test/unit/shared/protobuf-schemas.test.ts checks against api.proto; the differential tests
// (suggestions-request.test.ts, the fuzz target) compare every field with protobufjs loading it.
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
import type { GetSuggestionsRequest__Output } from '../../../../proto/gen/api/v1/beta1/GetSuggestionsRequest.ts';
import type { GraphConfig__Output } from '../../../../proto/gen/api/v1/beta1/GraphConfig.ts';
import type {
  NasConfig__Output,
  _api_v1_beta1_NasConfig_Operations__Output as NasOperations,
} from '../../../../proto/gen/api/v1/beta1/NasConfig.ts';
import type { Operation__Output } from '../../../../proto/gen/api/v1/beta1/Operation.ts';
import type { Trial__Output } from '../../../../proto/gen/api/v1/beta1/Trial.ts';
import { STEP_ASIDE, StepAsideReader } from '../../../../shared/protobuf/step-aside-reader.ts';
import { readNameValue, readObjective, readParameterSpecs } from './suggestions-request-parts.ts';
import { ALGORITHM, fields } from './suggestions-request-schema.ts';
import { readTrial } from './suggestions-request-trials.ts';

const REQUEST = fields('api.v1.beta1.GetSuggestionsRequest');
const EXPERIMENT = fields('api.v1.beta1.Experiment');
const EXPERIMENT_SPEC = fields('api.v1.beta1.ExperimentSpec');
const NAS_CONFIG = fields('api.v1.beta1.NasConfig');
const GRAPH_CONFIG = fields('api.v1.beta1.GraphConfig');
const OPERATIONS = fields('api.v1.beta1.NasConfig.Operations');
const OPERATION = fields('api.v1.beta1.Operation');

/** The request as proto-loader would decode it, or undefined when these bytes are left to it. */
export function readSuggestionsRequest(bytes: Buffer): GetSuggestionsRequest__Output | undefined {
  try {
    return readRequest(new StepAsideReader(bytes), bytes.length);
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

function readRequest(r: StepAsideReader, end: number): GetSuggestionsRequest__Output {
  const trials: Trial__Output[] = [];
  let experiment: Experiment__Output | null = null;
  let currentRequestNumber = 0;
  let totalRequestNumber = 0;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === REQUEST.experiment) experiment = readExperiment(r, r.messageEnd(tag, end));
    else if (field === REQUEST.trials) trials.push(readTrial(r, r.messageEnd(tag, end)));
    else if (field === REQUEST.current_request_number) currentRequestNumber = r.int32(tag, end);
    else if (field === REQUEST.total_request_number) totalRequestNumber = r.int32(tag, end);
    else r.skip(tag, end);
  }
  return {
    trials,
    experiment,
    current_request_number: currentRequestNumber,
    total_request_number: totalRequestNumber,
  };
}

function readExperiment(r: StepAsideReader, end: number): Experiment__Output {
  r.stringsFrom(end);
  let name = '';
  let spec: ExperimentSpec__Output | null = null;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === EXPERIMENT.name) name = r.string(tag, end);
    else if (field === EXPERIMENT.spec) spec = readExperimentSpec(r, r.messageEnd(tag, end));
    else r.skip(tag, end);
  }
  return { name, spec };
}

function readExperimentSpec(r: StepAsideReader, end: number): ExperimentSpec__Output {
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
    if (field === EXPERIMENT_SPEC.parameter_specs)
      spec.parameter_specs = readParameterSpecs(r, r.messageEnd(tag, end));
    else if (field === EXPERIMENT_SPEC.objective) spec.objective = readObjective(r, r.messageEnd(tag, end));
    else if (field === EXPERIMENT_SPEC.algorithm) spec.algorithm = readAlgorithm(r, r.messageEnd(tag, end));
    else if (field === EXPERIMENT_SPEC.early_stopping)
      spec.early_stopping = readAlgorithm(r, r.messageEnd(tag, end));
    else if (field === EXPERIMENT_SPEC.parallel_trial_count) spec.parallel_trial_count = r.int32(tag, end);
    else if (field === EXPERIMENT_SPEC.max_trial_count) spec.max_trial_count = r.int32(tag, end);
    else if (field === EXPERIMENT_SPEC.nas_config) spec.nas_config = readNasConfig(r, r.messageEnd(tag, end));
    else r.skip(tag, end);
  }
  return spec;
}

/** AlgorithmSpec and EarlyStoppingSpec, one layout (ALGORITHM); so are their settings. */
function readAlgorithm(r: StepAsideReader, end: number): AlgorithmSpec__Output {
  const settings: { name: string; value: string }[] = [];
  let algorithmName = '';
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === ALGORITHM.algorithm_name) algorithmName = r.string(tag, end);
    else if (field === ALGORITHM.algorithm_settings) settings.push(readNameValue(r, r.messageEnd(tag, end)));
    else r.skip(tag, end);
  }
  return { algorithm_settings: settings, algorithm_name: algorithmName };
}

function readNasConfig(r: StepAsideReader, end: number): NasConfig__Output {
  let graphConfig: GraphConfig__Output | null = null;
  let operations: NasOperations | null = null;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === NAS_CONFIG.graph_config) graphConfig = readGraphConfig(r, r.messageEnd(tag, end));
    else if (field === NAS_CONFIG.operations) operations = readOperations(r, r.messageEnd(tag, end));
    else r.skip(tag, end);
  }
  return { graph_config: graphConfig, operations };
}

function readGraphConfig(r: StepAsideReader, end: number): GraphConfig__Output {
  const inputSizes: number[] = [];
  const outputSizes: number[] = [];
  let numLayers = 0;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === GRAPH_CONFIG.num_layers) numLayers = r.int32(tag, end);
    else if (field === GRAPH_CONFIG.input_sizes) r.int32s(tag, end, inputSizes);
    else if (field === GRAPH_CONFIG.output_sizes) r.int32s(tag, end, outputSizes);
    else r.skip(tag, end);
  }
  return { input_sizes: inputSizes, output_sizes: outputSizes, num_layers: numLayers };
}

function readOperations(r: StepAsideReader, end: number): NasOperations {
  const operation: Operation__Output[] = [];
  while (r.at < end) {
    const tag = r.tag(end);
    if (tag >>> 3 === OPERATIONS.operation) operation.push(readOperation(r, r.messageEnd(tag, end)));
    else r.skip(tag, end);
  }
  return { operation };
}

function readOperation(r: StepAsideReader, end: number): Operation__Output {
  let operationType = '';
  let parameterSpecs: ExperimentParameterSpecs | null = null;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === OPERATION.operation_type) operationType = r.string(tag, end);
    else if (field === OPERATION.parameter_specs)
      parameterSpecs = readParameterSpecs(r, r.messageEnd(tag, end));
    else r.skip(tag, end);
  }
  return { operation_type: operationType, parameter_specs: parameterSpecs };
}
