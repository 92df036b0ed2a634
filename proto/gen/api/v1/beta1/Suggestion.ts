// Original file: proto/api/v1beta1/api.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { GetSuggestionsReply as _api_v1_beta1_GetSuggestionsReply, GetSuggestionsReply__Output as _api_v1_beta1_GetSuggestionsReply__Output } from '../../../api/v1/beta1/GetSuggestionsReply.ts';
import type { GetSuggestionsRequest as _api_v1_beta1_GetSuggestionsRequest, GetSuggestionsRequest__Output as _api_v1_beta1_GetSuggestionsRequest__Output } from '../../../api/v1/beta1/GetSuggestionsRequest.ts';
import type { ValidateAlgorithmSettingsReply as _api_v1_beta1_ValidateAlgorithmSettingsReply, ValidateAlgorithmSettingsReply__Output as _api_v1_beta1_ValidateAlgorithmSettingsReply__Output } from '../../../api/v1/beta1/ValidateAlgorithmSettingsReply.ts';
import type { ValidateAlgorithmSettingsRequest as _api_v1_beta1_ValidateAlgorithmSettingsRequest, ValidateAlgorithmSettingsRequest__Output as _api_v1_beta1_ValidateAlgorithmSettingsRequest__Output } from '../../../api/v1/beta1/ValidateAlgorithmSettingsRequest.ts';

export interface SuggestionClient extends grpc.Client {
  GetSuggestions(argument: _api_v1_beta1_GetSuggestionsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_GetSuggestionsReply__Output>): grpc.ClientUnaryCall;
  GetSuggestions(argument: _api_v1_beta1_GetSuggestionsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_api_v1_beta1_GetSuggestionsReply__Output>): grpc.ClientUnaryCall;
  GetSuggestions(argument: _api_v1_beta1_GetSuggestionsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_GetSuggestionsReply__Output>): grpc.ClientUnaryCall;
  GetSuggestions(argument: _api_v1_beta1_GetSuggestionsRequest, callback: grpc.requestCallback<_api_v1_beta1_GetSuggestionsReply__Output>): grpc.ClientUnaryCall;
  getSuggestions(argument: _api_v1_beta1_GetSuggestionsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_GetSuggestionsReply__Output>): grpc.ClientUnaryCall;
  getSuggestions(argument: _api_v1_beta1_GetSuggestionsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_api_v1_beta1_GetSuggestionsReply__Output>): grpc.ClientUnaryCall;
  getSuggestions(argument: _api_v1_beta1_GetSuggestionsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_GetSuggestionsReply__Output>): grpc.ClientUnaryCall;
  getSuggestions(argument: _api_v1_beta1_GetSuggestionsRequest, callback: grpc.requestCallback<_api_v1_beta1_GetSuggestionsReply__Output>): grpc.ClientUnaryCall;
  
  ValidateAlgorithmSettings(argument: _api_v1_beta1_ValidateAlgorithmSettingsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_ValidateAlgorithmSettingsReply__Output>): grpc.ClientUnaryCall;
  ValidateAlgorithmSettings(argument: _api_v1_beta1_ValidateAlgorithmSettingsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_api_v1_beta1_ValidateAlgorithmSettingsReply__Output>): grpc.ClientUnaryCall;
  ValidateAlgorithmSettings(argument: _api_v1_beta1_ValidateAlgorithmSettingsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_ValidateAlgorithmSettingsReply__Output>): grpc.ClientUnaryCall;
  ValidateAlgorithmSettings(argument: _api_v1_beta1_ValidateAlgorithmSettingsRequest, callback: grpc.requestCallback<_api_v1_beta1_ValidateAlgorithmSettingsReply__Output>): grpc.ClientUnaryCall;
  validateAlgorithmSettings(argument: _api_v1_beta1_ValidateAlgorithmSettingsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_ValidateAlgorithmSettingsReply__Output>): grpc.ClientUnaryCall;
  validateAlgorithmSettings(argument: _api_v1_beta1_ValidateAlgorithmSettingsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_api_v1_beta1_ValidateAlgorithmSettingsReply__Output>): grpc.ClientUnaryCall;
  validateAlgorithmSettings(argument: _api_v1_beta1_ValidateAlgorithmSettingsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_ValidateAlgorithmSettingsReply__Output>): grpc.ClientUnaryCall;
  validateAlgorithmSettings(argument: _api_v1_beta1_ValidateAlgorithmSettingsRequest, callback: grpc.requestCallback<_api_v1_beta1_ValidateAlgorithmSettingsReply__Output>): grpc.ClientUnaryCall;
  
}

export interface SuggestionHandlers extends grpc.UntypedServiceImplementation {
  GetSuggestions: grpc.handleUnaryCall<_api_v1_beta1_GetSuggestionsRequest__Output, _api_v1_beta1_GetSuggestionsReply>;
  
  ValidateAlgorithmSettings: grpc.handleUnaryCall<_api_v1_beta1_ValidateAlgorithmSettingsRequest__Output, _api_v1_beta1_ValidateAlgorithmSettingsReply>;
  
}

export interface SuggestionDefinition extends grpc.ServiceDefinition {
  GetSuggestions: MethodDefinition<_api_v1_beta1_GetSuggestionsRequest, _api_v1_beta1_GetSuggestionsReply, _api_v1_beta1_GetSuggestionsRequest__Output, _api_v1_beta1_GetSuggestionsReply__Output>
  ValidateAlgorithmSettings: MethodDefinition<_api_v1_beta1_ValidateAlgorithmSettingsRequest, _api_v1_beta1_ValidateAlgorithmSettingsReply, _api_v1_beta1_ValidateAlgorithmSettingsRequest__Output, _api_v1_beta1_ValidateAlgorithmSettingsReply__Output>
}
