// Katib's db_manager_address: GetEarlyStoppingRules may name a DBManager to read the succeeded
// trials' curves from instead of the local store; this is the gRPC client that reads them.
import { credentials, type ServiceError } from '@grpc/grpc-js';
import type { DBManagerClient } from '../../../../proto/gen/api/v1/beta1/DBManager.ts';
import type { GetObservationLogReply__Output } from '../../../../proto/gen/api/v1/beta1/GetObservationLogReply.ts';
import { unavailable } from '../../../../shared/errors.ts';
import { loadPackageDefinition, lookupService } from '../../../../shared/grpc.ts';

/** A trial's objective values in time order. */
export type CurveReader = (trialName: string, metricName: string) => Promise<string[]>;

/** Curve readers for remote DBManagers, one channel per address, kept for the process's life. */
export function createRemoteCurves(options: { readonly deadlineMs: number }): {
  readonly reader: (address: string) => CurveReader;
  close(): void;
} {
  const DBManager = lookupService(loadPackageDefinition(['api/v1beta1/api.proto']), 'api.v1.beta1.DBManager');
  const clients = new Map<string, DBManagerClient>();
  const clientFor = (address: string): DBManagerClient => {
    let client = clients.get(address);
    if (client === undefined) {
      client = new DBManager(address, credentials.createInsecure(), {
        'grpc.max_receive_message_length': 256 * 1024 * 1024,
      }) as unknown as DBManagerClient;
      clients.set(address, client);
    }
    return client;
  };
  return {
    reader: (address) => (trialName, metricName) =>
      new Promise((resolve, reject) =>
        clientFor(address).GetObservationLog(
          { trial_name: trialName, metric_name: metricName },
          { deadline: Date.now() + options.deadlineMs },
          (error: ServiceError | null, reply?: GetObservationLogReply__Output) => {
            if (error)
              return reject(
                unavailable(
                  `db_manager_address ${address}: GetObservationLog(${trialName}, ${metricName}) failed: ${error.details || error.message}`,
                  error,
                ),
              );
            resolve((reply?.observation_log?.metric_logs ?? []).map((log) => log.metric?.value ?? ''));
          },
        ),
      ),
    close: () => {
      for (const client of clients.values()) client.close();
      clients.clear();
    },
  };
}
