// envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit on the handler contract: the request
// read by hand (rls-codec.ts), the decision, the reply written in place behind the gRPC framing.
// Refusals become gRPC UNKNOWN with envoyproxy/ratelimit's message (their AppError code), through
// the one failure policy.
import type { RpcService, UnaryHandler } from '../../../../shared/rpc/contract.ts';
import type { Decision, DecisionRequest } from '../../domain/decision.ts';
import type { RateLimitService } from '../../service.ts';
import type { CallTimer } from '../telemetry/call-stats.ts';
import { decodeRateLimitRequest, encodeRateLimitResponse } from './rls-codec.ts';

export const RLS_PROTO = 'envoy/service/ratelimit/v3/rls.proto';
export const RLS_SERVICE = 'envoy.service.ratelimit.v3.RateLimitService';
export const RLS_PATH = `/${RLS_SERVICE}/ShouldRateLimit`;

type Decide = UnaryHandler<DecisionRequest, Decision>;

/** The RLS service; `wrap` (tracing) may wrap the handler, which the call timer measures. */
export function createRlsService(deps: {
  service: RateLimitService;
  timer: CallTimer;
  wrap?: (handle: Decide) => Decide;
}): RpcService {
  const { service, timer } = deps;
  const decide: Decide = (request) => service.shouldRateLimit(request);
  const inner = deps.wrap ? deps.wrap(decide) : decide;
  const handle: Decide = async (request, context) => {
    const started = timer.start();
    try {
      return await inner(request, context);
    } finally {
      timer.stop(started);
    }
  };
  return {
    name: RLS_SERVICE,
    unary: [{ path: RLS_PATH, decode: decodeRateLimitRequest, encode: encodeRateLimitResponse, handle }],
    streaming: [],
  };
}
