// Original file: proto/api/v1beta1/api.proto

import type { EarlyStoppingRule as _api_v1_beta1_EarlyStoppingRule, EarlyStoppingRule__Output as _api_v1_beta1_EarlyStoppingRule__Output } from '../../../api/v1/beta1/EarlyStoppingRule.ts';

export interface GetEarlyStoppingRulesReply {
  'early_stopping_rules'?: (_api_v1_beta1_EarlyStoppingRule)[];
}

export interface GetEarlyStoppingRulesReply__Output {
  'early_stopping_rules': (_api_v1_beta1_EarlyStoppingRule__Output)[];
}
