// envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit on the unary server, and the status a
// failed call answers: refusals become gRPC UNKNOWN with envoyproxy/ratelimit's message (their
// AppError code), anything else INTERNAL without its text (logged instead).
import { AppError, causedByService, ERROR_TABLE, toAppError } from '../../../../shared/errors.ts';
import { GRPC_STATUS } from '../../../../shared/grpc-server/http2-parts.ts';
import {
  frame,
  type GrpcFailure,
  type UnaryCall,
  type UnaryMethod,
} from '../../../../shared/grpc-server/unary-server.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { RateLimitService } from '../../service.ts';
import type { CallTimer } from '../telemetry/call-stats.ts';
import { UnknownServiceError } from './health-methods.ts';
import { ProtobufError } from './protobuf-wire.ts';
import { decodeRateLimitRequest, encodeRateLimitResponse } from './rls-codec.ts';

export const RLS_PROTO = 'envoy/service/ratelimit/v3/rls.proto';
export const RLS_SERVICE = 'envoy.service.ratelimit.v3.RateLimitService';
export const RLS_PATH = `/${RLS_SERVICE}/ShouldRateLimit`;

export function createRlsMethod(deps: { service: RateLimitService; timer: CallTimer }): UnaryMethod {
  const { service, timer } = deps;
  return async (message) => {
    const started = timer.start();
    try {
      return frame(
        encodeRateLimitResponse(await service.shouldRateLimit(decodeRateLimitRequest(message)), 5),
      );
    } finally {
      timer.stop(started);
    }
  };
}

/** What a failed call answers, logged as shared/grpc.ts's unary() logs them. */
export function grpcFailure(logger: Logger): (error: unknown, path: string, call: UnaryCall) => GrpcFailure {
  return (thrown, path, call) => {
    if (thrown instanceof UnknownServiceError) return { code: thrown.code, details: thrown.message };
    if (thrown instanceof ProtobufError)
      return { code: GRPC_STATUS.INTERNAL, details: `Error parsing request: ${thrown.message}` };
    const error = toAppError(thrown);
    const known = thrown instanceof AppError;
    const method = path.slice(path.lastIndexOf('/') + 1);
    const fields = {
      method,
      code: error.code,
      peer: call.socket.remoteAddress,
      err: thrown,
    };
    if (!known || causedByService(error)) logger.error(fields, `gRPC ${method} failed`);
    else logger.info(fields, `gRPC ${method} rejected the request: ${error.message}`);
    const details = !known && error.code === 'INTERNAL' ? 'internal error' : error.message;
    return { code: ERROR_TABLE[error.code].grpc, details };
  };
}
