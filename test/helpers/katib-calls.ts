// Every api.v1.beta1 call the experiment service answers, as one client per service, each call timed
// and settled as an outcome (never a throw): fault tests count answers, codes and their delays.
import { type Client, credentials, type ServiceError, status } from '@grpc/grpc-js';
import type { HealthClient } from '../../proto/gen/grpc/health/v1/Health.ts';
import { HEALTH_PROTO, loadPackageDefinition, lookupService } from '../../shared/grpc.ts';

export interface CallOutcome<T = unknown> {
  readonly ok: boolean;
  /** The gRPC status name (OK, UNAVAILABLE, DEADLINE_EXCEEDED, ...). */
  readonly code: string;
  readonly details: string;
  readonly ms: number;
  readonly reply?: T;
}

export interface KatibCalls {
  call<T = unknown>(
    service: 'DBManager' | 'Suggestion' | 'EarlyStopping',
    method: string,
    request: object,
    deadlineMs: number,
  ): Promise<CallOutcome<T>>;
  /** What grpc.health.v1.Health answers for the service ('' for the server as a whole). */
  health(service: string): Promise<string>;
  close(): void;
}

export function createKatibCalls(address: string): KatibCalls {
  const root = loadPackageDefinition(['api/v1beta1/api.proto']);
  const clients = new Map<string, Client>();
  const clientOf = (service: string): Client => {
    let client = clients.get(service);
    if (!client) {
      const Service = lookupService(root, `api.v1.beta1.${service}`);
      client = new Service(address, credentials.createInsecure());
      clients.set(service, client);
    }
    return client;
  };
  return {
    call(service, method, request, deadlineMs) {
      const client = clientOf(service) as unknown as Record<
        string,
        (req: object, opts: { deadline: number }, cb: (e: ServiceError | null, r?: unknown) => void) => void
      >;
      const started = performance.now();
      return new Promise((resolve) => {
        client[method]!.call(client, request, { deadline: Date.now() + deadlineMs }, (error, reply) => {
          const ms = performance.now() - started;
          if (error)
            resolve({
              ok: false,
              code: status[error.code] ?? String(error.code),
              details: error.details,
              ms,
            });
          else resolve({ ok: true, code: 'OK', details: '', ms, reply: reply as never });
        });
      });
    },
    health(service) {
      let client = clients.get('health');
      if (!client) {
        const Health = lookupService(loadPackageDefinition([HEALTH_PROTO]), 'grpc.health.v1.Health');
        client = new Health(address, credentials.createInsecure());
        clients.set('health', client);
      }
      const health = client as unknown as HealthClient;
      return new Promise((resolve) =>
        health.Check({ service }, { deadline: Date.now() + 2_000 }, (e, r) =>
          resolve(e ? `error ${status[e.code]}` : String(r!.status)),
        ),
      );
    },
    close: () => {
      for (const client of clients.values()) client.close();
    },
  };
}
