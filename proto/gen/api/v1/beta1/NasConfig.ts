// Original file: proto/api/v1beta1/api.proto

import type { GraphConfig as _api_v1_beta1_GraphConfig, GraphConfig__Output as _api_v1_beta1_GraphConfig__Output } from '../../../api/v1/beta1/GraphConfig.ts';
import type { Operation as _api_v1_beta1_Operation, Operation__Output as _api_v1_beta1_Operation__Output } from '../../../api/v1/beta1/Operation.ts';

export interface _api_v1_beta1_NasConfig_Operations {
  'operation'?: (_api_v1_beta1_Operation)[];
}

export interface _api_v1_beta1_NasConfig_Operations__Output {
  'operation': (_api_v1_beta1_Operation__Output)[];
}

export interface NasConfig {
  'graph_config'?: (_api_v1_beta1_GraphConfig | null);
  'operations'?: (_api_v1_beta1_NasConfig_Operations | null);
}

export interface NasConfig__Output {
  'graph_config': (_api_v1_beta1_GraphConfig__Output | null);
  'operations': (_api_v1_beta1_NasConfig_Operations__Output | null);
}
