// Original file: proto/api/v1beta1/api.proto


export interface ReportObservationLogReply {
}

export interface ReportObservationLogReply__Output {
}
