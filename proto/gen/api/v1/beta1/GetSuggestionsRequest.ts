// Original file: proto/api/v1beta1/api.proto

import type { Experiment as _api_v1_beta1_Experiment, Experiment__Output as _api_v1_beta1_Experiment__Output } from '../../../api/v1/beta1/Experiment.ts';
import type { Trial as _api_v1_beta1_Trial, Trial__Output as _api_v1_beta1_Trial__Output } from '../../../api/v1/beta1/Trial.ts';

export interface GetSuggestionsRequest {
  'experiment'?: (_api_v1_beta1_Experiment | null);
  'trials'?: (_api_v1_beta1_Trial)[];
  'current_request_number'?: (number);
  'total_request_number'?: (number);
}

export interface GetSuggestionsRequest__Output {
  'experiment': (_api_v1_beta1_Experiment__Output | null);
  'trials': (_api_v1_beta1_Trial__Output)[];
  'current_request_number': (number);
  'total_request_number': (number);
}
