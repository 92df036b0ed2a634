// Original file: proto/api/v1beta1/api.proto

import type { AlgorithmSpec as _api_v1_beta1_AlgorithmSpec, AlgorithmSpec__Output as _api_v1_beta1_AlgorithmSpec__Output } from '../../../api/v1/beta1/AlgorithmSpec.ts';
import type { EarlyStoppingRule as _api_v1_beta1_EarlyStoppingRule, EarlyStoppingRule__Output as _api_v1_beta1_EarlyStoppingRule__Output } from '../../../api/v1/beta1/EarlyStoppingRule.ts';
import type { ParameterAssignment as _api_v1_beta1_ParameterAssignment, ParameterAssignment__Output as _api_v1_beta1_ParameterAssignment__Output } from '../../../api/v1/beta1/ParameterAssignment.ts';

export interface _api_v1_beta1_GetSuggestionsReply_ParameterAssignments {
  'assignments'?: (_api_v1_beta1_ParameterAssignment)[];
  'trial_name'?: (string);
  'labels'?: ({[key: string]: string});
}

export interface _api_v1_beta1_GetSuggestionsReply_ParameterAssignments__Output {
  'assignments': (_api_v1_beta1_ParameterAssignment__Output)[];
  'trial_name': (string);
  'labels': ({[key: string]: string});
}

export interface GetSuggestionsReply {
  'parameter_assignments'?: (_api_v1_beta1_GetSuggestionsReply_ParameterAssignments)[];
  'algorithm'?: (_api_v1_beta1_AlgorithmSpec | null);
  'early_stopping_rules'?: (_api_v1_beta1_EarlyStoppingRule)[];
}

export interface GetSuggestionsReply__Output {
  'parameter_assignments': (_api_v1_beta1_GetSuggestionsReply_ParameterAssignments__Output)[];
  'algorithm': (_api_v1_beta1_AlgorithmSpec__Output | null);
  'early_stopping_rules': (_api_v1_beta1_EarlyStoppingRule__Output)[];
}
