// The Suggestion handlers on a real gRPC server in this process, with a generated client: for unit
// tests of the adapter with fake ports (producer, controller store).

import { credentials } from '@grpc/grpc-js';
import type { SuggestionClient } from '../../proto/gen/api/v1/beta1/Suggestion.ts';
import { experimentTopics } from '../../services/experiment/common/bus-names.ts';
import {
  createSuggestionHandlers,
  type SuggestionDeps,
} from '../../services/experiment/suggestion/adapters/grpc-handlers.ts';
import { loadPackageDefinition, lookupService } from '../../shared/grpc.ts';
import { startGrpcServer } from '../../shared/grpc-server/grpc-server.ts';
import { protoService } from '../../shared/rpc/proto-service.ts';
import { memoryLogger } from './memory-logger.ts';

export interface SuggestionServer {
  readonly client: SuggestionClient;
  stop(): Promise<void>;
}

/**
 * Logger and clock default to a memory logger and a fixed instant (1,700,000,000,000 ms), the
 * topic to the service's own name (no Kafka here: the producer is the test's).
 */
export async function startSuggestionServer(
  deps: Omit<SuggestionDeps, 'logger' | 'clock' | 'topic'> &
    Partial<Pick<SuggestionDeps, 'logger' | 'clock' | 'topic'>>,
): Promise<SuggestionServer> {
  const Suggestion = lookupService(
    loadPackageDefinition(['api/v1beta1/api.proto']),
    'api.v1.beta1.Suggestion',
  );
  const logger = deps.logger ?? memoryLogger().logger;
  const server = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    logger,
    maxMessageBytes: 64 * 1024 * 1024,
    services: [
      protoService(Suggestion.service, {
        unary: createSuggestionHandlers({
          clock: { now: () => 1_700_000_000_000 },
          topic: experimentTopics('').suggestions.name,
          ...deps,
          logger,
        }),
      }),
    ],
  });
  const client = new Suggestion(
    `127.0.0.1:${server.port}`,
    credentials.createInsecure(),
  ) as unknown as SuggestionClient;
  return {
    client,
    async stop() {
      client.close();
      await server.stop(1_000);
    },
  };
}
