// Original file: proto/api/v1beta1/api.proto


export interface AlgorithmSetting {
  'name'?: (string);
  'value'?: (string);
}

export interface AlgorithmSetting__Output {
  'name': (string);
  'value': (string);
}
