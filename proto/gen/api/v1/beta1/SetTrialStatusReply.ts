// Original file: proto/api/v1beta1/api.proto


export interface SetTrialStatusReply {
}

export interface SetTrialStatusReply__Output {
}
