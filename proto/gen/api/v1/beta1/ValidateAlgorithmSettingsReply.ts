// Original file: proto/api/v1beta1/api.proto


export interface ValidateAlgorithmSettingsReply {
}

export interface ValidateAlgorithmSettingsReply__Output {
}
