// Original file: proto/api/v1beta1/api.proto

export const Distribution = {
  DISTRIBUTION_UNSPECIFIED: 'DISTRIBUTION_UNSPECIFIED',
  UNIFORM: 'UNIFORM',
  LOG_UNIFORM: 'LOG_UNIFORM',
  NORMAL: 'NORMAL',
  LOG_NORMAL: 'LOG_NORMAL',
} as const;

export type Distribution =
  | 'DISTRIBUTION_UNSPECIFIED'
  | 0
  | 'UNIFORM'
  | 1
  | 'LOG_UNIFORM'
  | 2
  | 'NORMAL'
  | 3
  | 'LOG_NORMAL'
  | 4

export type Distribution__Output = typeof Distribution[keyof typeof Distribution]
