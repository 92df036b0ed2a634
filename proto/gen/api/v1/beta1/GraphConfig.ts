// Original file: proto/api/v1beta1/api.proto


export interface GraphConfig {
  'num_layers'?: (number);
  'input_sizes'?: (number)[];
  'output_sizes'?: (number)[];
}

export interface GraphConfig__Output {
  'num_layers': (number);
  'input_sizes': (number)[];
  'output_sizes': (number)[];
}
