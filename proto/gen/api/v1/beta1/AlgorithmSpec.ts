// Original file: proto/api/v1beta1/api.proto

import type { AlgorithmSetting as _api_v1_beta1_AlgorithmSetting, AlgorithmSetting__Output as _api_v1_beta1_AlgorithmSetting__Output } from '../../../api/v1/beta1/AlgorithmSetting.ts';

export interface AlgorithmSpec {
  'algorithm_name'?: (string);
  'algorithm_settings'?: (_api_v1_beta1_AlgorithmSetting)[];
}

export interface AlgorithmSpec__Output {
  'algorithm_name': (string);
  'algorithm_settings': (_api_v1_beta1_AlgorithmSetting__Output)[];
}
