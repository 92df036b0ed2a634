// Original file: proto/api/v1beta1/api.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { DeleteObservationLogReply as _api_v1_beta1_DeleteObservationLogReply, DeleteObservationLogReply__Output as _api_v1_beta1_DeleteObservationLogReply__Output } from '../../../api/v1/beta1/DeleteObservationLogReply.ts';
import type { DeleteObservationLogRequest as _api_v1_beta1_DeleteObservationLogRequest, DeleteObservationLogRequest__Output as _api_v1_beta1_DeleteObservationLogRequest__Output } from '../../../api/v1/beta1/DeleteObservationLogRequest.ts';
import type { GetObservationLogReply as _api_v1_beta1_GetObservationLogReply, GetObservationLogReply__Output as _api_v1_beta1_GetObservationLogReply__Output } from '../../../api/v1/beta1/GetObservationLogReply.ts';
import type { GetObservationLogRequest as _api_v1_beta1_GetObservationLogRequest, GetObservationLogRequest__Output as _api_v1_beta1_GetObservationLogRequest__Output } from '../../../api/v1/beta1/GetObservationLogRequest.ts';
import type { ReportObservationLogReply as _api_v1_beta1_ReportObservationLogReply, ReportObservationLogReply__Output as _api_v1_beta1_ReportObservationLogReply__Output } from '../../../api/v1/beta1/ReportObservationLogReply.ts';
import type { ReportObservationLogRequest as _api_v1_beta1_ReportObservationLogRequest, ReportObservationLogRequest__Output as _api_v1_beta1_ReportObservationLogRequest__Output } from '../../../api/v1/beta1/ReportObservationLogRequest.ts';

export interface DBManagerClient extends grpc.Client {
  DeleteObservationLog(argument: _api_v1_beta1_DeleteObservationLogRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_DeleteObservationLogReply__Output>): grpc.ClientUnaryCall;
  DeleteObservationLog(argument: _api_v1_beta1_DeleteObservationLogRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_api_v1_beta1_DeleteObservationLogReply__Output>): grpc.ClientUnaryCall;
  DeleteObservationLog(argument: _api_v1_beta1_DeleteObservationLogRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_DeleteObservationLogReply__Output>): grpc.ClientUnaryCall;
  DeleteObservationLog(argument: _api_v1_beta1_DeleteObservationLogRequest, callback: grpc.requestCallback<_api_v1_beta1_DeleteObservationLogReply__Output>): grpc.ClientUnaryCall;
  deleteObservationLog(argument: _api_v1_beta1_DeleteObservationLogRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_DeleteObservationLogReply__Output>): grpc.ClientUnaryCall;
  deleteObservationLog(argument: _api_v1_beta1_DeleteObservationLogRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_api_v1_beta1_DeleteObservationLogReply__Output>): grpc.ClientUnaryCall;
  deleteObservationLog(argument: _api_v1_beta1_DeleteObservationLogRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_DeleteObservationLogReply__Output>): grpc.ClientUnaryCall;
  deleteObservationLog(argument: _api_v1_beta1_DeleteObservationLogRequest, callback: grpc.requestCallback<_api_v1_beta1_DeleteObservationLogReply__Output>): grpc.ClientUnaryCall;
  
  GetObservationLog(argument: _api_v1_beta1_GetObservationLogRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_GetObservationLogReply__Output>): grpc.ClientUnaryCall;
  GetObservationLog(argument: _api_v1_beta1_GetObservationLogRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_api_v1_beta1_GetObservationLogReply__Output>): grpc.ClientUnaryCall;
  GetObservationLog(argument: _api_v1_beta1_GetObservationLogRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_GetObservationLogReply__Output>): grpc.ClientUnaryCall;
  GetObservationLog(argument: _api_v1_beta1_GetObservationLogRequest, callback: grpc.requestCallback<_api_v1_beta1_GetObservationLogReply__Output>): grpc.ClientUnaryCall;
  getObservationLog(argument: _api_v1_beta1_GetObservationLogRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_GetObservationLogReply__Output>): grpc.ClientUnaryCall;
  getObservationLog(argument: _api_v1_beta1_GetObservationLogRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_api_v1_beta1_GetObservationLogReply__Output>): grpc.ClientUnaryCall;
  getObservationLog(argument: _api_v1_beta1_GetObservationLogRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_GetObservationLogReply__Output>): grpc.ClientUnaryCall;
  getObservationLog(argument: _api_v1_beta1_GetObservationLogRequest, callback: grpc.requestCallback<_api_v1_beta1_GetObservationLogReply__Output>): grpc.ClientUnaryCall;
  
  ReportObservationLog(argument: _api_v1_beta1_ReportObservationLogRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_ReportObservationLogReply__Output>): grpc.ClientUnaryCall;
  ReportObservationLog(argument: _api_v1_beta1_ReportObservationLogRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_api_v1_beta1_ReportObservationLogReply__Output>): grpc.ClientUnaryCall;
  ReportObservationLog(argument: _api_v1_beta1_ReportObservationLogRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_ReportObservationLogReply__Output>): grpc.ClientUnaryCall;
  ReportObservationLog(argument: _api_v1_beta1_ReportObservationLogRequest, callback: grpc.requestCallback<_api_v1_beta1_ReportObservationLogReply__Output>): grpc.ClientUnaryCall;
  reportObservationLog(argument: _api_v1_beta1_ReportObservationLogRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_ReportObservationLogReply__Output>): grpc.ClientUnaryCall;
  reportObservationLog(argument: _api_v1_beta1_ReportObservationLogRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_api_v1_beta1_ReportObservationLogReply__Output>): grpc.ClientUnaryCall;
  reportObservationLog(argument: _api_v1_beta1_ReportObservationLogRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_api_v1_beta1_ReportObservationLogReply__Output>): grpc.ClientUnaryCall;
  reportObservationLog(argument: _api_v1_beta1_ReportObservationLogRequest, callback: grpc.requestCallback<_api_v1_beta1_ReportObservationLogReply__Output>): grpc.ClientUnaryCall;
  
}

export interface DBManagerHandlers extends grpc.UntypedServiceImplementation {
  DeleteObservationLog: grpc.handleUnaryCall<_api_v1_beta1_DeleteObservationLogRequest__Output, _api_v1_beta1_DeleteObservationLogReply>;
  
  GetObservationLog: grpc.handleUnaryCall<_api_v1_beta1_GetObservationLogRequest__Output, _api_v1_beta1_GetObservationLogReply>;
  
  ReportObservationLog: grpc.handleUnaryCall<_api_v1_beta1_ReportObservationLogRequest__Output, _api_v1_beta1_ReportObservationLogReply>;
  
}

export interface DBManagerDefinition extends grpc.ServiceDefinition {
  DeleteObservationLog: MethodDefinition<_api_v1_beta1_DeleteObservationLogRequest, _api_v1_beta1_DeleteObservationLogReply, _api_v1_beta1_DeleteObservationLogRequest__Output, _api_v1_beta1_DeleteObservationLogReply__Output>
  GetObservationLog: MethodDefinition<_api_v1_beta1_GetObservationLogRequest, _api_v1_beta1_GetObservationLogReply, _api_v1_beta1_GetObservationLogRequest__Output, _api_v1_beta1_GetObservationLogReply__Output>
  ReportObservationLog: MethodDefinition<_api_v1_beta1_ReportObservationLogRequest, _api_v1_beta1_ReportObservationLogReply, _api_v1_beta1_ReportObservationLogRequest__Output, _api_v1_beta1_ReportObservationLogReply__Output>
}
