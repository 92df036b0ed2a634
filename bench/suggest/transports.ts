// The two ways the bench reaches the Suggestion service: the pure use case in this process, or
// the experiment server through gRPC.

import { credentials, type ServiceError } from '@grpc/grpc-js';
import type { GetSuggestionsReply__Output } from '../../proto/gen/api/v1/beta1/GetSuggestionsReply.ts';
import type { SuggestionClient } from '../../proto/gen/api/v1/beta1/Suggestion.ts';
import { ALGORITHMS } from '../../services/experiment/suggestion/registry.ts';
import { suggest } from '../../services/experiment/suggestion/suggest.ts';
import { loadPackageDefinition, lookupService } from '../../shared/grpc.ts';
import type { Transport } from './driver.ts';

export const inProcessTransport: Transport = async (request) =>
  suggest(request, ALGORITHMS).reply as unknown as GetSuggestionsReply__Output;

export function grpcTransport(address: string): { transport: Transport; close(): void } {
  const Suggestion = lookupService(
    loadPackageDefinition(['api/v1beta1/api.proto']),
    'api.v1.beta1.Suggestion',
  );
  const client = new Suggestion(address, credentials.createInsecure(), {
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
    'grpc.max_send_message_length': 64 * 1024 * 1024,
  }) as unknown as SuggestionClient;
  const transport: Transport = (request) =>
    new Promise((resolve, reject) =>
      client.GetSuggestions(
        request,
        { deadline: Date.now() + 60_000 },
        (error: ServiceError | null, reply) =>
          error ? reject(new Error(`${error.code} ${error.details}`)) : resolve(reply!),
      ),
    );
  return { transport, close: () => client.close() };
}
