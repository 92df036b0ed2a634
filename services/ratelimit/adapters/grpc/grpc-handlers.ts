// envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit over grpc-js, through the shared
// async-safe wrapper: refusals become gRPC UNKNOWN with envoyproxy/ratelimit's message.
import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import { unary } from '../../../../shared/grpc.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { RateLimitService } from '../../service.ts';
import type { CallTimer } from '../telemetry/call-stats.ts';
import { fromWireRequest, toWireResponse, type WireRequest, type WireResponse } from './wire.ts';

export const RLS_PROTO = 'envoy/service/ratelimit/v3/rls.proto';
export const RLS_SERVICE = 'envoy.service.ratelimit.v3.RateLimitService';

export function createRateLimitHandlers(deps: {
  service: RateLimitService;
  timer: CallTimer;
  logger: Logger;
}): UntypedServiceImplementation {
  const { service, timer } = deps;
  return {
    ShouldRateLimit: unary<WireRequest, WireResponse>(
      'ShouldRateLimit',
      async (request) => {
        const started = timer.start();
        try {
          return toWireResponse(await service.shouldRateLimit(fromWireRequest(request)));
        } finally {
          timer.stop(started);
        }
      },
      deps,
    ),
  };
}
