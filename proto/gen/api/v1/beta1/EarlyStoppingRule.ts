// Original file: proto/api/v1beta1/api.proto

import type { ComparisonType as _api_v1_beta1_ComparisonType, ComparisonType__Output as _api_v1_beta1_ComparisonType__Output } from '../../../api/v1/beta1/ComparisonType.ts';

export interface EarlyStoppingRule {
  'name'?: (string);
  'value'?: (string);
  'comparison'?: (_api_v1_beta1_ComparisonType);
  'start_step'?: (number);
}

export interface EarlyStoppingRule__Output {
  'name': (string);
  'value': (string);
  'comparison': (_api_v1_beta1_ComparisonType__Output);
  'start_step': (number);
}
