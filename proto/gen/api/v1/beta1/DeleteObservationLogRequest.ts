// Original file: proto/api/v1beta1/api.proto


export interface DeleteObservationLogRequest {
  'trial_name'?: (string);
}

export interface DeleteObservationLogRequest__Output {
  'trial_name': (string);
}
