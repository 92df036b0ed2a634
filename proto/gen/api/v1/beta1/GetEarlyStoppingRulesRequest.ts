// Original file: proto/api/v1beta1/api.proto

import type { Experiment as _api_v1_beta1_Experiment, Experiment__Output as _api_v1_beta1_Experiment__Output } from '../../../api/v1/beta1/Experiment.ts';
import type { Trial as _api_v1_beta1_Trial, Trial__Output as _api_v1_beta1_Trial__Output } from '../../../api/v1/beta1/Trial.ts';

export interface GetEarlyStoppingRulesRequest {
  'experiment'?: (_api_v1_beta1_Experiment | null);
  'trials'?: (_api_v1_beta1_Trial)[];
  'db_manager_address'?: (string);
}

export interface GetEarlyStoppingRulesRequest__Output {
  'experiment': (_api_v1_beta1_Experiment__Output | null);
  'trials': (_api_v1_beta1_Trial__Output)[];
  'db_manager_address': (string);
}
