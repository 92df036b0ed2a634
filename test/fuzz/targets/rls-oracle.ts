// The RLS request as the libraries read it, for the targets that compare the service's readers
// with them: proto-loader's deserializer (what grpc-js would give the handler) and protobufjs's type.
import { loadSync } from '@grpc/proto-loader';
import { RLS_PROTO } from '../../../services/ratelimit/adapters/grpc/rls-method.ts';
import { PROTO_LOADER_OPTIONS, PROTO_ROOT } from '../../../shared/grpc.ts';
import { messageType } from '../protobuf-random.ts';

const definition = loadSync(`${PROTO_ROOT}/${RLS_PROTO}`, {
  ...PROTO_LOADER_OPTIONS,
  includeDirs: [PROTO_ROOT],
});
export const rlsMethod = (
  definition['envoy.service.ratelimit.v3.RateLimitService'] as unknown as Record<string, unknown>
).ShouldRateLimit as { requestDeserialize(bytes: Buffer): unknown };
export const rlsRequestType = messageType(RLS_PROTO, 'envoy.service.ratelimit.v3.RateLimitRequest');
