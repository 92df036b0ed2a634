// Original file: proto/api/v1beta1/api.proto

import type { ObservationLog as _api_v1_beta1_ObservationLog, ObservationLog__Output as _api_v1_beta1_ObservationLog__Output } from '../../../api/v1/beta1/ObservationLog.ts';

export interface GetObservationLogReply {
  'observation_log'?: (_api_v1_beta1_ObservationLog | null);
}

export interface GetObservationLogReply__Output {
  'observation_log': (_api_v1_beta1_ObservationLog__Output | null);
}
