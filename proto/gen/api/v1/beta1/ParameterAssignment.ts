// Original file: proto/api/v1beta1/api.proto


export interface ParameterAssignment {
  'name'?: (string);
  'value'?: (string);
}

export interface ParameterAssignment__Output {
  'name': (string);
  'value': (string);
}
