// Original file: proto/api/v1beta1/api.proto


export interface GetObservationLogRequest {
  'trial_name'?: (string);
  'metric_name'?: (string);
  'start_time'?: (string);
  'end_time'?: (string);
}

export interface GetObservationLogRequest__Output {
  'trial_name': (string);
  'metric_name': (string);
  'start_time': (string);
  'end_time': (string);
}
