// Original file: proto/api/v1beta1/api.proto


export interface ValidateEarlyStoppingSettingsReply {
}

export interface ValidateEarlyStoppingSettingsReply__Output {
}
