// Original file: proto/api/v1beta1/api.proto

export const ObjectiveType = {
  UNKNOWN: 'UNKNOWN',
  MINIMIZE: 'MINIMIZE',
  MAXIMIZE: 'MAXIMIZE',
} as const;

export type ObjectiveType =
  | 'UNKNOWN'
  | 0
  | 'MINIMIZE'
  | 1
  | 'MAXIMIZE'
  | 2

export type ObjectiveType__Output = typeof ObjectiveType[keyof typeof ObjectiveType]
