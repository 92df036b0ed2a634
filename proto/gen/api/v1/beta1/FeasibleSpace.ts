// Original file: proto/api/v1beta1/api.proto

import type { Distribution as _api_v1_beta1_Distribution, Distribution__Output as _api_v1_beta1_Distribution__Output } from '../../../api/v1/beta1/Distribution.ts';

export interface FeasibleSpace {
  'max'?: (string);
  'min'?: (string);
  'list'?: (string)[];
  'step'?: (string);
  'distribution'?: (_api_v1_beta1_Distribution);
}

export interface FeasibleSpace__Output {
  'max': (string);
  'min': (string);
  'list': (string)[];
  'step': (string);
  'distribution': (_api_v1_beta1_Distribution__Output);
}
