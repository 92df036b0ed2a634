// The Katib calls the trial controller makes, answered by the services of this instance without a
// network hop: each request goes through the method's own codec (serialized as a client would,
// decoded as the server does), so a handler sees exactly what a gRPC call would give it, defaults
// included; the reply comes back the same way. A service this instance does not host is UNAVAILABLE.
import type { GetEarlyStoppingRulesReply__Output } from '../../../../proto/gen/api/v1/beta1/GetEarlyStoppingRulesReply.ts';
import type { GetEarlyStoppingRulesRequest } from '../../../../proto/gen/api/v1/beta1/GetEarlyStoppingRulesRequest.ts';
import type { GetObservationLogReply__Output } from '../../../../proto/gen/api/v1/beta1/GetObservationLogReply.ts';
import type { GetObservationLogRequest } from '../../../../proto/gen/api/v1/beta1/GetObservationLogRequest.ts';
import type { GetSuggestionsReply__Output } from '../../../../proto/gen/api/v1/beta1/GetSuggestionsReply.ts';
import type { GetSuggestionsRequest } from '../../../../proto/gen/api/v1/beta1/GetSuggestionsRequest.ts';
import { unavailable } from '../../../../shared/errors.ts';
import { loadPackageDefinition, lookupService } from '../../../../shared/grpc.ts';
import type { RpcService } from '../../../../shared/rpc/contract.ts';

export interface KatibCalls {
  getSuggestions(request: GetSuggestionsRequest): Promise<GetSuggestionsReply__Output>;
  getObservationLog(request: GetObservationLogRequest): Promise<GetObservationLogReply__Output>;
  getEarlyStoppingRules(request: GetEarlyStoppingRulesRequest): Promise<GetEarlyStoppingRulesReply__Output>;
}

export function createInProcessCalls(options: {
  readonly services: readonly RpcService[];
  readonly deadlineMs: number;
}): KatibCalls {
  const root = loadPackageDefinition(['api/v1beta1/api.proto']);
  const call = async <Reply>(service: string, method: string, request: object): Promise<Reply> => {
    const definition = lookupService(root, `api.v1.beta1.${service}`).service[method]!;
    const path = `/api.v1.beta1.${service}/${method}`;
    const served = options.services.flatMap((s) => s.unary).find((m) => m.path === path);
    if (served === undefined) throw unavailable(`${path}: this instance does not host ${service}`);
    const signal = AbortSignal.timeout(options.deadlineMs);
    const reply = await served.handle(served.decode(definition.requestSerialize(request)), {
      path,
      metadata: {},
      peer: 'trial-controller',
      deadline: Date.now() + options.deadlineMs,
      signal,
      correlationId: undefined,
    });
    return definition.responseDeserialize(served.encode(reply, 0)) as Reply;
  };
  return {
    getSuggestions: (request) => call('Suggestion', 'GetSuggestions', request),
    getObservationLog: (request) => call('DBManager', 'GetObservationLog', request),
    getEarlyStoppingRules: (request) => call('EarlyStopping', 'GetEarlyStoppingRules', request),
  };
}
