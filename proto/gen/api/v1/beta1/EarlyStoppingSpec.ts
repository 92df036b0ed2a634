// Original file: proto/api/v1beta1/api.proto

import type { EarlyStoppingSetting as _api_v1_beta1_EarlyStoppingSetting, EarlyStoppingSetting__Output as _api_v1_beta1_EarlyStoppingSetting__Output } from '../../../api/v1/beta1/EarlyStoppingSetting.ts';

export interface EarlyStoppingSpec {
  'algorithm_name'?: (string);
  'algorithm_settings'?: (_api_v1_beta1_EarlyStoppingSetting)[];
}

export interface EarlyStoppingSpec__Output {
  'algorithm_name': (string);
  'algorithm_settings': (_api_v1_beta1_EarlyStoppingSetting__Output)[];
}
