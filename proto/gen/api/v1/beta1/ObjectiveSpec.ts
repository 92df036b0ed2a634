// Original file: proto/api/v1beta1/api.proto

import type { ObjectiveType as _api_v1_beta1_ObjectiveType, ObjectiveType__Output as _api_v1_beta1_ObjectiveType__Output } from '../../../api/v1/beta1/ObjectiveType.ts';

export interface ObjectiveSpec {
  'type'?: (_api_v1_beta1_ObjectiveType);
  'goal'?: (number | string);
  'objective_metric_name'?: (string);
  'additional_metric_names'?: (string)[];
}

export interface ObjectiveSpec__Output {
  'type': (_api_v1_beta1_ObjectiveType__Output);
  'goal': (number);
  'objective_metric_name': (string);
  'additional_metric_names': (string)[];
}
