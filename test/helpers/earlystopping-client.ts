// A promise-based client of api.v1.beta1.EarlyStopping for the integration tests.
import { credentials, type ServiceError } from '@grpc/grpc-js';
import type { EarlyStoppingClient } from '../../proto/gen/api/v1/beta1/EarlyStopping.ts';
import type { GetEarlyStoppingRulesReply__Output } from '../../proto/gen/api/v1/beta1/GetEarlyStoppingRulesReply.ts';
import type { GetEarlyStoppingRulesRequest } from '../../proto/gen/api/v1/beta1/GetEarlyStoppingRulesRequest.ts';
import type { SetTrialStatusRequest } from '../../proto/gen/api/v1/beta1/SetTrialStatusRequest.ts';
import type { ValidateEarlyStoppingSettingsRequest } from '../../proto/gen/api/v1/beta1/ValidateEarlyStoppingSettingsRequest.ts';
import { loadPackageDefinition, lookupService } from '../../shared/grpc.ts';

export interface EarlyStopping {
  validate(request: ValidateEarlyStoppingSettingsRequest): Promise<object>;
  rules(request: GetEarlyStoppingRulesRequest): Promise<GetEarlyStoppingRulesReply__Output>;
  setTrialStatus(request: SetTrialStatusRequest): Promise<object>;
  close(): void;
}

export function createEarlyStoppingClient(address: string): EarlyStopping {
  const Service = lookupService(
    loadPackageDefinition(['api/v1beta1/api.proto']),
    'api.v1.beta1.EarlyStopping',
  );
  const client = new Service(address, credentials.createInsecure()) as unknown as EarlyStoppingClient;
  const call = <T>(
    invoke: (opts: { deadline: number }, callback: (error: ServiceError | null, reply?: T) => void) => void,
  ): Promise<T> =>
    new Promise((resolve, reject) =>
      invoke({ deadline: Date.now() + 60_000 }, (error, reply) => (error ? reject(error) : resolve(reply!))),
    );
  return {
    validate: (request) => call((opts, cb) => client.ValidateEarlyStoppingSettings(request, opts, cb)),
    rules: (request) => call((opts, cb) => client.GetEarlyStoppingRules(request, opts, cb)),
    setTrialStatus: (request) => call((opts, cb) => client.SetTrialStatus(request, opts, cb)),
    close: () => client.close(),
  };
}
