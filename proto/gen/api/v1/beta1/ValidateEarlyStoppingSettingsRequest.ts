// Original file: proto/api/v1beta1/api.proto

import type { EarlyStoppingSpec as _api_v1_beta1_EarlyStoppingSpec, EarlyStoppingSpec__Output as _api_v1_beta1_EarlyStoppingSpec__Output } from '../../../api/v1/beta1/EarlyStoppingSpec.ts';

export interface ValidateEarlyStoppingSettingsRequest {
  'early_stopping'?: (_api_v1_beta1_EarlyStoppingSpec | null);
}

export interface ValidateEarlyStoppingSettingsRequest__Output {
  'early_stopping': (_api_v1_beta1_EarlyStoppingSpec__Output | null);
}
