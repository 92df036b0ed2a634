// Original file: proto/api/v1beta1/api.proto

import type { ExperimentSpec as _api_v1_beta1_ExperimentSpec, ExperimentSpec__Output as _api_v1_beta1_ExperimentSpec__Output } from '../../../api/v1/beta1/ExperimentSpec.ts';

export interface Experiment {
  'name'?: (string);
  'spec'?: (_api_v1_beta1_ExperimentSpec | null);
}

export interface Experiment__Output {
  'name': (string);
  'spec': (_api_v1_beta1_ExperimentSpec__Output | null);
}
