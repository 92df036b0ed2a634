// Original file: proto/api/v1beta1/api.proto

import type { Metric as _api_v1_beta1_Metric, Metric__Output as _api_v1_beta1_Metric__Output } from '../../../api/v1/beta1/Metric.ts';

export interface MetricLog {
  'time_stamp'?: (string);
  'metric'?: (_api_v1_beta1_Metric | null);
}

export interface MetricLog__Output {
  'time_stamp': (string);
  'metric': (_api_v1_beta1_Metric__Output | null);
}
