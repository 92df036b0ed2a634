// Original file: proto/api/v1beta1/api.proto

import type { ObjectiveSpec as _api_v1_beta1_ObjectiveSpec, ObjectiveSpec__Output as _api_v1_beta1_ObjectiveSpec__Output } from '../../../api/v1/beta1/ObjectiveSpec.ts';
import type { AlgorithmSpec as _api_v1_beta1_AlgorithmSpec, AlgorithmSpec__Output as _api_v1_beta1_AlgorithmSpec__Output } from '../../../api/v1/beta1/AlgorithmSpec.ts';
import type { EarlyStoppingSpec as _api_v1_beta1_EarlyStoppingSpec, EarlyStoppingSpec__Output as _api_v1_beta1_EarlyStoppingSpec__Output } from '../../../api/v1/beta1/EarlyStoppingSpec.ts';
import type { NasConfig as _api_v1_beta1_NasConfig, NasConfig__Output as _api_v1_beta1_NasConfig__Output } from '../../../api/v1/beta1/NasConfig.ts';
import type { ParameterSpec as _api_v1_beta1_ParameterSpec, ParameterSpec__Output as _api_v1_beta1_ParameterSpec__Output } from '../../../api/v1/beta1/ParameterSpec.ts';

export interface _api_v1_beta1_ExperimentSpec_ParameterSpecs {
  'parameters'?: (_api_v1_beta1_ParameterSpec)[];
}

export interface _api_v1_beta1_ExperimentSpec_ParameterSpecs__Output {
  'parameters': (_api_v1_beta1_ParameterSpec__Output)[];
}

export interface ExperimentSpec {
  'parameter_specs'?: (_api_v1_beta1_ExperimentSpec_ParameterSpecs | null);
  'objective'?: (_api_v1_beta1_ObjectiveSpec | null);
  'algorithm'?: (_api_v1_beta1_AlgorithmSpec | null);
  'early_stopping'?: (_api_v1_beta1_EarlyStoppingSpec | null);
  'parallel_trial_count'?: (number);
  'max_trial_count'?: (number);
  'nas_config'?: (_api_v1_beta1_NasConfig | null);
}

export interface ExperimentSpec__Output {
  'parameter_specs': (_api_v1_beta1_ExperimentSpec_ParameterSpecs__Output | null);
  'objective': (_api_v1_beta1_ObjectiveSpec__Output | null);
  'algorithm': (_api_v1_beta1_AlgorithmSpec__Output | null);
  'early_stopping': (_api_v1_beta1_EarlyStoppingSpec__Output | null);
  'parallel_trial_count': (number);
  'max_trial_count': (number);
  'nas_config': (_api_v1_beta1_NasConfig__Output | null);
}
