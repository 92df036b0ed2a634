// The runner's DBManager client: Katib's own ReportObservationLog and DeleteObservationLog over
// gRPC, through the service definition the server is built from (shared/grpc.ts).
import { credentials, type ServiceError } from '@grpc/grpc-js';
import type { DBManagerClient } from '../../../../proto/gen/api/v1/beta1/DBManager.ts';
import { type AppError, invalidArgument, unavailable } from '../../../../shared/errors.ts';
import { loadPackageDefinition, lookupService } from '../../../../shared/grpc.ts';
import { reportRequest } from '../observation-report.ts';
import type { ObservationReporter } from '../ports.ts';

const INVALID_ARGUMENT = 3;

function failure(call: string, address: string, error: ServiceError): AppError {
  const details = error.details || error.message;
  return error.code === INVALID_ARGUMENT
    ? invalidArgument(`DBManager ${address}: ${call} refused: ${details}`, error)
    : unavailable(`DBManager ${address}: ${call} failed: ${details}`, error);
}

export function createGrpcObservationReporter(options: {
  readonly address: string;
  readonly deadlineMs: number;
}): ObservationReporter {
  const DBManager = lookupService(loadPackageDefinition(['api/v1beta1/api.proto']), 'api.v1.beta1.DBManager');
  const client = new DBManager(options.address, credentials.createInsecure()) as unknown as DBManagerClient;
  const deadline = () => ({ deadline: Date.now() + options.deadlineMs });
  return {
    report: (trialName, logs) =>
      new Promise((resolve, reject) =>
        client.ReportObservationLog(
          reportRequest(trialName, logs),
          deadline(),
          (error: ServiceError | null) =>
            error ? reject(failure('ReportObservationLog', options.address, error)) : resolve(),
        ),
      ),
    remove: (trialName) =>
      new Promise((resolve, reject) =>
        client.DeleteObservationLog({ trial_name: trialName }, deadline(), (error: ServiceError | null) =>
          error ? reject(failure('DeleteObservationLog', options.address, error)) : resolve(),
        ),
      ),
    close: () => client.close(),
  };
}
