// The standard gRPC health service (grpc.health.v1.Health: Check and Watch) of every server, on the
// handler contract. Its two messages are read and written by hand (shared/protobuf/wire.ts), so a
// process that serves nothing else loads no protobuf library for it; their field numbers come from
// HEALTH_SCHEMA, which test/unit/shared/protobuf-schemas.test.ts checks against the .proto.
import { AppError } from '../errors.ts';
import { fieldNumbers, type SchemaDeclaration } from '../protobuf/schema.ts';
import { oneByteTag, ProtobufReader, tagOf, WIRE } from '../protobuf/wire.ts';
import type { HandlerContext, RpcService } from './contract.ts';

/** A status a server reports for itself or one of its services. */
export type ServingStatus = 'SERVING' | 'NOT_SERVING';

/** What the health protocol can answer, SERVICE_UNKNOWN being for services never registered. */
export type ReportedStatus = ServingStatus | 'SERVICE_UNKNOWN';

export const HEALTH_PROTO = 'grpc/health/v1/health.proto';
export const HEALTH_SERVICE = 'grpc.health.v1.Health';

/** What Check and Watch read and write of grpc/health/v1/health.proto. */
export const HEALTH_SCHEMA = {
  'grpc.health.v1.HealthCheckRequest': { service: [1, 'string'] },
  'grpc.health.v1.HealthCheckResponse': { status: [1, 'grpc.health.v1.HealthCheckResponse.ServingStatus'] },
} as const satisfies SchemaDeclaration;
const REQUEST = fieldNumbers(HEALTH_SCHEMA['grpc.health.v1.HealthCheckRequest']);
const RESPONSE = fieldNumbers(HEALTH_SCHEMA['grpc.health.v1.HealthCheckResponse']);
/** The request's service tag, as the reader reads it (another wire type is skipped). */
const SERVICE_TAG = tagOf(REQUEST.service, WIRE.bytes);
/** The reply's one-byte status tag. */
const STATUS_TAG = oneByteTag(RESPONSE.status, WIRE.varint);

/** HealthCheckResponse.ServingStatus numbers (grpc/health/v1/health.proto). */
const STATUS_NUMBER: Readonly<Record<ReportedStatus, number>> = {
  SERVING: 1,
  NOT_SERVING: 2,
  SERVICE_UNKNOWN: 3,
};

export interface HealthService {
  /** To serve beside the server's other services. */
  readonly rpc: RpcService;
  /** Registers or updates a service; '' is the server as a whole. Ignored after shutdown(). */
  setStatus(service: string, status: ServingStatus): void;
  /** The status Check/Watch would report now. */
  status(service: string): ReportedStatus;
  /** Everything NOT_SERVING for good, and every Watch ended (so the server can drain). */
  shutdown(): void;
}

/** HealthCheckRequest's service. */
function decodeRequest(bytes: Buffer): string {
  const reader = new ProtobufReader(bytes);
  let service = '';
  while (!reader.done()) {
    const tag = reader.tag();
    if (tag === SERVICE_TAG) service = reader.string();
    else reader.skip(tag & 7);
  }
  return service;
}

/** HealthCheckResponse (its status: two bytes) behind `reserve` free bytes. */
function encodeReply(status: ReportedStatus, reserve: number): Buffer {
  const out = Buffer.allocUnsafe(reserve + 2);
  out[reserve] = STATUS_TAG;
  out[reserve + 1] = STATUS_NUMBER[status];
  return out;
}

/**
 * The overall status ('') exists from the start as NOT_SERVING, so probes fail until the owner
 * says it is ready. Check of a service never registered answers NOT_FOUND, as gRPC's own health
 * servers do; Watch of one answers SERVICE_UNKNOWN and waits for it.
 */
export function createHealthService(): HealthService {
  const statuses = new Map<string, ServingStatus>([['', 'NOT_SERVING']]);
  /** Each Watch under way: how to send it a status, and how to end it. */
  const watchers = new Map<string, Set<{ send(status: ReportedStatus): void; end(): void }>>();
  let shutDown = false;
  const status = (service: string): ReportedStatus => statuses.get(service) ?? 'SERVICE_UNKNOWN';

  const check = async (service: string): Promise<ReportedStatus> => {
    const current = statuses.get(service);
    if (current === undefined) throw new AppError('NOT_FOUND', `unknown service '${service}'`);
    return current;
  };

  const watch = (
    service: string,
    context: HandlerContext,
    send: (status: ReportedStatus) => void,
  ): Promise<void> =>
    new Promise<void>((resolve) => {
      send(status(service));
      if (shutDown || context.signal.aborted) return resolve();
      const set = watchers.get(service) ?? new Set();
      watchers.set(service, set);
      const watcher = {
        send,
        end: () => {
          set.delete(watcher);
          if (set.size === 0 && watchers.get(service) === set) watchers.delete(service);
          resolve();
        },
      };
      set.add(watcher);
      context.signal.addEventListener('abort', watcher.end, { once: true });
    });

  const notify = (service: string): void => {
    for (const watcher of watchers.get(service) ?? []) watcher.send(status(service));
  };

  const codec = { decode: decodeRequest, encode: encodeReply };
  return {
    rpc: {
      name: HEALTH_SERVICE,
      unary: [{ path: `/${HEALTH_SERVICE}/Check`, ...codec, handle: check }],
      streaming: [{ path: `/${HEALTH_SERVICE}/Watch`, ...codec, handle: watch }],
    },
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
      for (const set of [...watchers.values()]) for (const watcher of [...set]) watcher.end();
      watchers.clear();
    },
  };
}
