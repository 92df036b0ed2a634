import {
  status as GrpcStatus,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceDefinition,
  type sendUnaryData,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { loadPackageDefinition, lookupService } from './grpc-proto.ts';

/** A status a server reports for itself or one of its services. */
export type ServingStatus = 'SERVING' | 'NOT_SERVING';

/** What the health protocol can answer, SERVICE_UNKNOWN being for services never registered. */
export type ReportedStatus = ServingStatus | 'SERVICE_UNKNOWN';

interface HealthCheckRequest {
  service: string;
}

interface HealthCheckResponse {
  status: ReportedStatus | 'UNKNOWN';
}

type WatchCall = ServerWritableStream<HealthCheckRequest, HealthCheckResponse>;

export const HEALTH_PROTO = 'grpc/health/v1/health.proto';

export interface HealthService {
  /** To pass to startGrpcServer together with `implementation`. */
  readonly definition: ServiceDefinition;
  readonly implementation: UntypedServiceImplementation;
  /** Registers or updates a service; '' is the server as a whole. Ignored after shutdown(). */
  setStatus(service: string, status: ServingStatus): void;
  /** The status Check/Watch would report now. */
  status(service: string): ReportedStatus;
  /** Everything NOT_SERVING for good, and every Watch stream ended (so the server can drain). */
  shutdown(): void;
}

/**
 * The standard gRPC health service (grpc.health.v1.Health). The overall status ('') exists from
 * the start as NOT_SERVING, so probes fail until the owner says it is ready.
 */
export function createHealthService(): HealthService {
  const definition = lookupService(loadPackageDefinition([HEALTH_PROTO]), 'grpc.health.v1.Health').service;
  const statuses = new Map<string, ServingStatus>([['', 'NOT_SERVING']]);
  const watchers = new Map<string, Set<WatchCall>>();
  let shutDown = false;

  const status = (service: string): ReportedStatus => statuses.get(service) ?? 'SERVICE_UNKNOWN';

  const send = (call: WatchCall, reported: ReportedStatus): void => {
    if (!call.cancelled && call.writable) call.write({ status: reported });
  };

  const notify = (service: string): void => {
    for (const call of watchers.get(service) ?? []) send(call, status(service));
  };

  const forget = (service: string, call: WatchCall): void => {
    const set = watchers.get(service);
    if (set === undefined) return;
    set.delete(call);
    if (set.size === 0) watchers.delete(service);
  };

  const check = (
    call: ServerUnaryCall<HealthCheckRequest, HealthCheckResponse>,
    callback: sendUnaryData<HealthCheckResponse>,
  ): void => {
    const current = statuses.get(call.request.service);
    if (current === undefined) {
      callback({ code: GrpcStatus.NOT_FOUND, details: `unknown service '${call.request.service}'` });
      return;
    }
    callback(null, { status: current });
  };

  const watch = (call: WatchCall): void => {
    const service = call.request.service;
    send(call, status(service));
    if (shutDown) {
      call.end();
      return;
    }
    let set = watchers.get(service);
    if (set === undefined) {
      set = new Set();
      watchers.set(service, set);
    }
    set.add(call);
    const done = (): void => forget(service, call);
    call.on('cancelled', done);
    call.on('close', done);
    call.on('error', done);
  };

  return {
    definition,
    implementation: { Check: check, Watch: watch },
    setStatus(service, next) {
      if (shutDown || statuses.get(service) === next) return;
      statuses.set(service, next);
      notify(service);
    },
    status,
    shutdown() {
      if (shutDown) return;
      shutDown = true;
      for (const [service, current] of statuses) {
        if (current === 'NOT_SERVING') continue;
        statuses.set(service, 'NOT_SERVING');
        notify(service);
      }
      for (const [service, set] of watchers) {
        for (const call of set) if (!call.cancelled && call.writable) call.end();
        watchers.delete(service);
      }
    },
  };
}
