// Original file: proto/api/v1beta1/api.proto


export interface Metric {
  'name'?: (string);
  'value'?: (string);
}

export interface Metric__Output {
  'name': (string);
  'value': (string);
}
