// Original file: proto/api/v1beta1/api.proto

import type { Observation as _api_v1_beta1_Observation, Observation__Output as _api_v1_beta1_Observation__Output } from '../../../api/v1/beta1/Observation.ts';

// Original file: proto/api/v1beta1/api.proto

export const _api_v1_beta1_TrialStatus_TrialConditionType = {
  CREATED: 'CREATED',
  RUNNING: 'RUNNING',
  SUCCEEDED: 'SUCCEEDED',
  KILLED: 'KILLED',
  FAILED: 'FAILED',
  METRICSUNAVAILABLE: 'METRICSUNAVAILABLE',
  EARLYSTOPPED: 'EARLYSTOPPED',
  UNKNOWN: 'UNKNOWN',
} as const;

export type _api_v1_beta1_TrialStatus_TrialConditionType =
  | 'CREATED'
  | 0
  | 'RUNNING'
  | 1
  | 'SUCCEEDED'
  | 2
  | 'KILLED'
  | 3
  | 'FAILED'
  | 4
  | 'METRICSUNAVAILABLE'
  | 5
  | 'EARLYSTOPPED'
  | 6
  | 'UNKNOWN'
  | 7

export type _api_v1_beta1_TrialStatus_TrialConditionType__Output = typeof _api_v1_beta1_TrialStatus_TrialConditionType[keyof typeof _api_v1_beta1_TrialStatus_TrialConditionType]

export interface TrialStatus {
  'start_time'?: (string);
  'completion_time'?: (string);
  'condition'?: (_api_v1_beta1_TrialStatus_TrialConditionType);
  'observation'?: (_api_v1_beta1_Observation | null);
}

export interface TrialStatus__Output {
  'start_time': (string);
  'completion_time': (string);
  'condition': (_api_v1_beta1_TrialStatus_TrialConditionType__Output);
  'observation': (_api_v1_beta1_Observation__Output | null);
}
