// Original file: proto/api/v1beta1/api.proto

import type { TrialSpec as _api_v1_beta1_TrialSpec, TrialSpec__Output as _api_v1_beta1_TrialSpec__Output } from '../../../api/v1/beta1/TrialSpec.ts';
import type { TrialStatus as _api_v1_beta1_TrialStatus, TrialStatus__Output as _api_v1_beta1_TrialStatus__Output } from '../../../api/v1/beta1/TrialStatus.ts';

export interface Trial {
  'name'?: (string);
  'spec'?: (_api_v1_beta1_TrialSpec | null);
  'status'?: (_api_v1_beta1_TrialStatus | null);
}

export interface Trial__Output {
  'name': (string);
  'spec': (_api_v1_beta1_TrialSpec__Output | null);
  'status': (_api_v1_beta1_TrialStatus__Output | null);
}
