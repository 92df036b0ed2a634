// What the GetSuggestionsRequest reader (suggestions-request.ts, -parts.ts, -trials.ts) reads of
// proto/api/v1beta1/api.proto, declared once (shared/protobuf/schema.ts): the readers take their
// field numbers from here, and test/unit/shared/protobuf-schemas.test.ts checks this against api.proto.
import {
  fieldNumbers,
  type SchemaDeclaration,
  sharedFieldNumbers,
} from '../../../../shared/protobuf/schema.ts';

export const SUGGESTIONS_REQUEST_SCHEMA = {
  'api.v1.beta1.GetSuggestionsRequest': {
    experiment: [1, 'api.v1.beta1.Experiment'],
    trials: [2, 'repeated api.v1.beta1.Trial'],
    current_request_number: [4, 'int32'],
    total_request_number: [5, 'int32'],
  },
  'api.v1.beta1.Experiment': { name: [1, 'string'], spec: [2, 'api.v1.beta1.ExperimentSpec'] },
  'api.v1.beta1.ExperimentSpec': {
    parameter_specs: [1, 'api.v1.beta1.ExperimentSpec.ParameterSpecs'],
    objective: [2, 'api.v1.beta1.ObjectiveSpec'],
    algorithm: [3, 'api.v1.beta1.AlgorithmSpec'],
    early_stopping: [4, 'api.v1.beta1.EarlyStoppingSpec'],
    parallel_trial_count: [5, 'int32'],
    max_trial_count: [6, 'int32'],
    nas_config: [7, 'api.v1.beta1.NasConfig'],
  },
  'api.v1.beta1.ExperimentSpec.ParameterSpecs': { parameters: [1, 'repeated api.v1.beta1.ParameterSpec'] },
  'api.v1.beta1.ParameterSpec': {
    name: [1, 'string'],
    parameter_type: [2, 'api.v1.beta1.ParameterType'],
    feasible_space: [3, 'api.v1.beta1.FeasibleSpace'],
  },
  'api.v1.beta1.FeasibleSpace': {
    max: [1, 'string'],
    min: [2, 'string'],
    list: [3, 'repeated string'],
    step: [4, 'string'],
    distribution: [5, 'api.v1.beta1.Distribution'],
  },
  'api.v1.beta1.ObjectiveSpec': {
    type: [1, 'api.v1.beta1.ObjectiveType'],
    goal: [2, 'double'],
    objective_metric_name: [3, 'string'],
    additional_metric_names: [4, 'repeated string'],
  },
  'api.v1.beta1.AlgorithmSpec': {
    algorithm_name: [1, 'string'],
    algorithm_settings: [2, 'repeated api.v1.beta1.AlgorithmSetting'],
  },
  'api.v1.beta1.AlgorithmSetting': { name: [1, 'string'], value: [2, 'string'] },
  'api.v1.beta1.EarlyStoppingSpec': {
    algorithm_name: [1, 'string'],
    algorithm_settings: [2, 'repeated api.v1.beta1.EarlyStoppingSetting'],
  },
  'api.v1.beta1.EarlyStoppingSetting': { name: [1, 'string'], value: [2, 'string'] },
  'api.v1.beta1.NasConfig': {
    graph_config: [1, 'api.v1.beta1.GraphConfig'],
    operations: [2, 'api.v1.beta1.NasConfig.Operations'],
  },
  'api.v1.beta1.NasConfig.Operations': { operation: [1, 'repeated api.v1.beta1.Operation'] },
  'api.v1.beta1.GraphConfig': {
    num_layers: [1, 'int32'],
    input_sizes: [2, 'repeated int32'],
    output_sizes: [3, 'repeated int32'],
  },
  'api.v1.beta1.Operation': {
    operation_type: [1, 'string'],
    parameter_specs: [2, 'api.v1.beta1.Operation.ParameterSpecs'],
  },
  'api.v1.beta1.Operation.ParameterSpecs': { parameters: [1, 'repeated api.v1.beta1.ParameterSpec'] },
  'api.v1.beta1.Trial': {
    name: [1, 'string'],
    spec: [2, 'api.v1.beta1.TrialSpec'],
    status: [3, 'api.v1.beta1.TrialStatus'],
  },
  'api.v1.beta1.TrialSpec': {
    objective: [2, 'api.v1.beta1.ObjectiveSpec'],
    parameter_assignments: [3, 'api.v1.beta1.TrialSpec.ParameterAssignments'],
    labels: [4, 'map<string, string>'],
  },
  'api.v1.beta1.TrialSpec.ParameterAssignments': {
    assignments: [1, 'repeated api.v1.beta1.ParameterAssignment'],
  },
  'api.v1.beta1.ParameterAssignment': { name: [1, 'string'], value: [2, 'string'] },
  'api.v1.beta1.TrialStatus': {
    start_time: [1, 'string'],
    completion_time: [2, 'string'],
    condition: [3, 'api.v1.beta1.TrialStatus.TrialConditionType'],
    observation: [4, 'api.v1.beta1.Observation'],
  },
  'api.v1.beta1.Observation': { metrics: [1, 'repeated api.v1.beta1.Metric'] },
  'api.v1.beta1.Metric': { name: [1, 'string'], value: [2, 'string'] },
} as const satisfies SchemaDeclaration;

type Message = keyof typeof SUGGESTIONS_REQUEST_SCHEMA;

/** A message's field numbers by field name. */
export const fields = <M extends Message>(message: M) => fieldNumbers(SUGGESTIONS_REQUEST_SCHEMA[message]);

// The layouts one reader reads for several messages, checked here (so whenever the schema loads).
/** readNameValue's. */
export const NAME_VALUE = sharedFieldNumbers(
  SUGGESTIONS_REQUEST_SCHEMA,
  'api.v1.beta1.AlgorithmSetting',
  'api.v1.beta1.EarlyStoppingSetting',
  'api.v1.beta1.ParameterAssignment',
  'api.v1.beta1.Metric',
);
/** readParameterSpecs's. */
export const PARAMETER_SPECS = sharedFieldNumbers(
  SUGGESTIONS_REQUEST_SCHEMA,
  'api.v1.beta1.ExperimentSpec.ParameterSpecs',
  'api.v1.beta1.Operation.ParameterSpecs',
);
/** readAlgorithm's. */
export const ALGORITHM = sharedFieldNumbers(
  SUGGESTIONS_REQUEST_SCHEMA,
  'api.v1.beta1.AlgorithmSpec',
  'api.v1.beta1.EarlyStoppingSpec',
);
