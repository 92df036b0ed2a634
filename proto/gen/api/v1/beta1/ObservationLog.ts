// Original file: proto/api/v1beta1/api.proto

import type { MetricLog as _api_v1_beta1_MetricLog, MetricLog__Output as _api_v1_beta1_MetricLog__Output } from '../../../api/v1/beta1/MetricLog.ts';

export interface ObservationLog {
  'metric_logs'?: (_api_v1_beta1_MetricLog)[];
}

export interface ObservationLog__Output {
  'metric_logs': (_api_v1_beta1_MetricLog__Output)[];
}
