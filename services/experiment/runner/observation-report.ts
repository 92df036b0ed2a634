// A runner's metric values as Katib's ReportObservationLog request: each batch of values read from
// one piece of output goes out as one call, so the early-stopping judge sees them at once.
import type { ReportObservationLogRequest } from '../../../proto/gen/api/v1/beta1/ReportObservationLogRequest.ts';
import type { MetricLog } from './metrics-lines.ts';

export function reportRequest(trialName: string, logs: readonly MetricLog[]): ReportObservationLogRequest {
  return {
    trial_name: trialName,
    observation_log: {
      metric_logs: logs.map((log) => ({
        time_stamp: log.timeStamp,
        metric: { name: log.name, value: log.value },
      })),
    },
  };
}
