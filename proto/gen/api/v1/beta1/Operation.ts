// Original file: proto/api/v1beta1/api.proto

import type { ParameterSpec as _api_v1_beta1_ParameterSpec, ParameterSpec__Output as _api_v1_beta1_ParameterSpec__Output } from '../../../api/v1/beta1/ParameterSpec.ts';

export interface _api_v1_beta1_Operation_ParameterSpecs {
  'parameters'?: (_api_v1_beta1_ParameterSpec)[];
}

export interface _api_v1_beta1_Operation_ParameterSpecs__Output {
  'parameters': (_api_v1_beta1_ParameterSpec__Output)[];
}

export interface Operation {
  'operation_type'?: (string);
  'parameter_specs'?: (_api_v1_beta1_Operation_ParameterSpecs | null);
}

export interface Operation__Output {
  'operation_type': (string);
  'parameter_specs': (_api_v1_beta1_Operation_ParameterSpecs__Output | null);
}
