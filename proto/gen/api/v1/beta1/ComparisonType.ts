// Original file: proto/api/v1beta1/api.proto

export const ComparisonType = {
  UNKNOWN_COMPARISON: 'UNKNOWN_COMPARISON',
  EQUAL: 'EQUAL',
  LESS: 'LESS',
  GREATER: 'GREATER',
} as const;

export type ComparisonType =
  | 'UNKNOWN_COMPARISON'
  | 0
  | 'EQUAL'
  | 1
  | 'LESS'
  | 2
  | 'GREATER'
  | 3

export type ComparisonType__Output = typeof ComparisonType[keyof typeof ComparisonType]
