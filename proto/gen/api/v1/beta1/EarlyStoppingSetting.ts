// Original file: proto/api/v1beta1/api.proto


export interface EarlyStoppingSetting {
  'name'?: (string);
  'value'?: (string);
}

export interface EarlyStoppingSetting__Output {
  'name': (string);
  'value': (string);
}
