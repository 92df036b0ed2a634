// Original file: proto/api/v1beta1/api.proto


export interface DeleteObservationLogReply {
}

export interface DeleteObservationLogReply__Output {
}
