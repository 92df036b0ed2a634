// Original file: proto/api/v1beta1/api.proto


export interface SetTrialStatusRequest {
  'trial_name'?: (string);
}

export interface SetTrialStatusRequest__Output {
  'trial_name': (string);
}
