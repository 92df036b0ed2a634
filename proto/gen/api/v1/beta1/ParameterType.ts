// Original file: proto/api/v1beta1/api.proto

export const ParameterType = {
  UNKNOWN_TYPE: 'UNKNOWN_TYPE',
  DOUBLE: 'DOUBLE',
  INT: 'INT',
  DISCRETE: 'DISCRETE',
  CATEGORICAL: 'CATEGORICAL',
} as const;

export type ParameterType =
  | 'UNKNOWN_TYPE'
  | 0
  | 'DOUBLE'
  | 1
  | 'INT'
  | 2
  | 'DISCRETE'
  | 3
  | 'CATEGORICAL'
  | 4

export type ParameterType__Output = typeof ParameterType[keyof typeof ParameterType]
