// Original file: proto/api/v1beta1/api.proto

import type { Experiment as _api_v1_beta1_Experiment, Experiment__Output as _api_v1_beta1_Experiment__Output } from '../../../api/v1/beta1/Experiment.ts';

export interface ValidateAlgorithmSettingsRequest {
  'experiment'?: (_api_v1_beta1_Experiment | null);
}

export interface ValidateAlgorithmSettingsRequest__Output {
  'experiment': (_api_v1_beta1_Experiment__Output | null);
}
