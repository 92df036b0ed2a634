// Original file: proto/api/v1beta1/api.proto

import type { ParameterType as _api_v1_beta1_ParameterType, ParameterType__Output as _api_v1_beta1_ParameterType__Output } from '../../../api/v1/beta1/ParameterType.ts';
import type { FeasibleSpace as _api_v1_beta1_FeasibleSpace, FeasibleSpace__Output as _api_v1_beta1_FeasibleSpace__Output } from '../../../api/v1/beta1/FeasibleSpace.ts';

export interface ParameterSpec {
  'name'?: (string);
  'parameter_type'?: (_api_v1_beta1_ParameterType);
  'feasible_space'?: (_api_v1_beta1_FeasibleSpace | null);
}

export interface ParameterSpec__Output {
  'name': (string);
  'parameter_type': (_api_v1_beta1_ParameterType__Output);
  'feasible_space': (_api_v1_beta1_FeasibleSpace__Output | null);
}
