// Original file: proto/api/v1beta1/api.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { GetEarlyStoppingRulesReply as _api_v1_beta1_GetEarlyStoppingRulesReply, GetEarlyStoppingRulesReply__Output as _api_v1_beta1_GetEarlyStoppingRulesReply__Output } from '../../../api/v1/beta1/GetEarlyStoppingRulesReply.ts';
import type { GetEarlyStoppingRulesRequest as _api_v1_beta1_GetEarlyStoppingRulesRequest, GetEarlyStoppingRulesRequest__Output as _api_v1_beta1_GetEarlyStoppingRulesRequest__Output } from '../../../api/v1/beta1/GetEarlyStoppingRulesRequest.ts';
import type { SetTrialStatusReply as _api_v1_beta1_SetTrialStatusReply, SetTrialStatusReply__Output as _api_v1_beta1_SetTrialStatusReply__Output } from '../../../api/v1/beta1/SetTrialStatusReply.ts';
import type { SetTrialStatusRequest as _api_v1_beta1_SetTrialStatusRequest, SetTrialStatusRequest__Output as _api_v1_beta1_SetTrialStatusRequest__Output } from '../../../api/v1/beta1/SetTrialStatusRequest.ts';
import type { ValidateEarlyStoppingSettingsReply as _api_v1_beta1_ValidateEarlyStoppingSettingsReply, ValidateEarlyStoppingSettingsReply__Output as _api_v1_beta1_ValidateEarlyStoppingSettingsReply__Output } from '../../../api/v1/beta1/ValidateEarlyStoppingSettingsReply.ts';
import type { ValidateEarlyStoppingSettingsRequest as _api_v1_beta1_ValidateEarlyStoppingSettingsRequest, ValidateEarlyStoppingSettingsRequest__Output as _api_v1_beta1_ValidateEarlyStoppingSettingsRequest__Output } from '../../../api/v1/beta1/ValidateEarlyStoppingSettingsRequest.ts';

export interface EarlyStoppingClient extends grpc.Client {
  GetEarlyStoppingRules(argument: _api_v1_beta1_GetEarlyStoppingRulesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_GetEarlyStoppingRulesReply__Output>): grpc.ClientUnaryCall;
  GetEarlyStoppingRules(argument: _api_v1_beta1_GetEarlyStoppingRulesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_api_v1_beta1_GetEarlyStoppingRulesReply__Output>): grpc.ClientUnaryCall;
  GetEarlyStoppingRules(argument: _api_v1_beta1_GetEarlyStoppingRulesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_GetEarlyStoppingRulesReply__Output>): grpc.ClientUnaryCall;
  GetEarlyStoppingRules(argument: _api_v1_beta1_GetEarlyStoppingRulesRequest, callback: grpc.requestCallback<_api_v1_beta1_GetEarlyStoppingRulesReply__Output>): grpc.ClientUnaryCall;
  getEarlyStoppingRules(argument: _api_v1_beta1_GetEarlyStoppingRulesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_GetEarlyStoppingRulesReply__Output>): grpc.ClientUnaryCall;
  getEarlyStoppingRules(argument: _api_v1_beta1_GetEarlyStoppingRulesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_api_v1_beta1_GetEarlyStoppingRulesReply__Output>): grpc.ClientUnaryCall;
  getEarlyStoppingRules(argument: _api_v1_beta1_GetEarlyStoppingRulesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_GetEarlyStoppingRulesReply__Output>): grpc.ClientUnaryCall;
  getEarlyStoppingRules(argument: _api_v1_beta1_GetEarlyStoppingRulesRequest, callback: grpc.requestCallback<_api_v1_beta1_GetEarlyStoppingRulesReply__Output>): grpc.ClientUnaryCall;
  
  SetTrialStatus(argument: _api_v1_beta1_SetTrialStatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_SetTrialStatusReply__Output>): grpc.ClientUnaryCall;
  SetTrialStatus(argument: _api_v1_beta1_SetTrialStatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_api_v1_beta1_SetTrialStatusReply__Output>): grpc.ClientUnaryCall;
  SetTrialStatus(argument: _api_v1_beta1_SetTrialStatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_SetTrialStatusReply__Output>): grpc.ClientUnaryCall;
  SetTrialStatus(argument: _api_v1_beta1_SetTrialStatusRequest, callback: grpc.requestCallback<_api_v1_beta1_SetTrialStatusReply__Output>): grpc.ClientUnaryCall;
  setTrialStatus(argument: _api_v1_beta1_SetTrialStatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_SetTrialStatusReply__Output>): grpc.ClientUnaryCall;
  setTrialStatus(argument: _api_v1_beta1_SetTrialStatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_api_v1_beta1_SetTrialStatusReply__Output>): grpc.ClientUnaryCall;
  setTrialStatus(argument: _api_v1_beta1_SetTrialStatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_SetTrialStatusReply__Output>): grpc.ClientUnaryCall;
  setTrialStatus(argument: _api_v1_beta1_SetTrialStatusRequest, callback: grpc.requestCallback<_api_v1_beta1_SetTrialStatusReply__Output>): grpc.ClientUnaryCall;
  
  ValidateEarlyStoppingSettings(argument: _api_v1_beta1_ValidateEarlyStoppingSettingsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_ValidateEarlyStoppingSettingsReply__Output>): grpc.ClientUnaryCall;
  ValidateEarlyStoppingSettings(argument: _api_v1_beta1_ValidateEarlyStoppingSettingsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_api_v1_beta1_ValidateEarlyStoppingSettingsReply__Output>): grpc.ClientUnaryCall;
  ValidateEarlyStoppingSettings(argument: _api_v1_beta1_ValidateEarlyStoppingSettingsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_ValidateEarlyStoppingSettingsReply__Output>): grpc.ClientUnaryCall;
  ValidateEarlyStoppingSettings(argument: _api_v1_beta1_ValidateEarlyStoppingSettingsRequest, callback: grpc.requestCallback<_api_v1_beta1_ValidateEarlyStoppingSettingsReply__Output>): grpc.ClientUnaryCall;
  validateEarlyStoppingSettings(argument: _api_v1_beta1_ValidateEarlyStoppingSettingsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_ValidateEarlyStoppingSettingsReply__Output>): grpc.ClientUnaryCall;
  validateEarlyStoppingSettings(argument: _api_v1_beta1_ValidateEarlyStoppingSettingsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_api_v1_beta1_ValidateEarlyStoppingSettingsReply__Output>): grpc.ClientUnaryCall;
  validateEarlyStoppingSettings(argument: _api_v1_beta1_ValidateEarlyStoppingSettingsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_ValidateEarlyStoppingSettingsReply__Output>): grpc.ClientUnaryCall;
  validateEarlyStoppingSettings(argument: _api_v1_beta1_ValidateEarlyStoppingSettingsRequest, callback: grpc.requestCallback<_api_v1_beta1_ValidateEarlyStoppingSettingsReply__Output>): grpc.ClientUnaryCall;
  
}

export interface EarlyStoppingHandlers extends grpc.UntypedServiceImplementation {
  GetEarlyStoppingRules: grpc.handleUnaryCall<_api_v1_beta1_GetEarlyStoppingRulesRequest__Output, _api_v1_beta1_GetEarlyStoppingRulesReply>;
  
  SetTrialStatus: grpc.handleUnaryCall<_api_v1_beta1_SetTrialStatusRequest__Output, _api_v1_beta1_SetTrialStatusReply>;
  
  ValidateEarlyStoppingSettings: grpc.handleUnaryCall<_api_v1_beta1_ValidateEarlyStoppingSettingsRequest__Output, _api_v1_beta1_ValidateEarlyStoppingSettingsReply>;
  
}

export interface EarlyStoppingDefinition extends grpc.ServiceDefinition {
  GetEarlyStoppingRules: MethodDefinition<_api_v1_beta1_GetEarlyStoppingRulesRequest, _api_v1_beta1_GetEarlyStoppingRulesReply, _api_v1_beta1_GetEarlyStoppingRulesRequest__Output, _api_v1_beta1_GetEarlyStoppingRulesReply__Output>
  SetTrialStatus: MethodDefinition<_api_v1_beta1_SetTrialStatusRequest, _api_v1_beta1_SetTrialStatusReply, _api_v1_beta1_SetTrialStatusRequest__Output, _api_v1_beta1_SetTrialStatusReply__Output>
  ValidateEarlyStoppingSettings: MethodDefinition<_api_v1_beta1_ValidateEarlyStoppingSettingsRequest, _api_v1_beta1_ValidateEarlyStoppingSettingsReply, _api_v1_beta1_ValidateEarlyStoppingSettingsRequest__Output, _api_v1_beta1_ValidateEarlyStoppingSettingsReply__Output>
}
