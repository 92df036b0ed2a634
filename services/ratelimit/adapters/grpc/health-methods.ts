// grpc.health.v1.Health (Check and Watch) on the unary server: the statuses a decision unit reports
// for itself ('') and for `ratelimit`, as shared/grpc-health.ts keeps them for the grpc-js servers.
import type { ReportedStatus, ServingStatus } from '../../../../shared/grpc.ts';
import { GRPC_STATUS } from '../../../../shared/grpc-server/http2-parts.ts';
import {
  frame,
  type ReplyStream,
  type StreamingMethod,
  type UnaryMethod,
} from '../../../../shared/grpc-server/unary-server.ts';
import { ProtobufReader } from './protobuf-wire.ts';

const STATUS_NUMBER: Readonly<Record<ReportedStatus, number>> = {
  SERVING: 1,
  NOT_SERVING: 2,
  SERVICE_UNKNOWN: 3,
};

export interface HealthMethods {
  readonly unary: ReadonlyMap<string, UnaryMethod>;
  readonly streaming: ReadonlyMap<string, StreamingMethod>;
  /** Registers or updates a service; '' is the server as a whole. Ignored after shutdown(). */
  setStatus(service: string, status: ServingStatus): void;
  /** Everything NOT_SERVING for good, and every Watch ended (so the server can drain). */
  shutdown(): void;
}

/** A Check answer the caller maps to NOT_FOUND, as grpc health servers answer an unknown service. */
export class UnknownServiceError extends Error {
  readonly code = GRPC_STATUS.NOT_FOUND;
}

function serviceOf(message: Buffer): string {
  const reader = new ProtobufReader(message);
  let service = '';
  while (!reader.done()) {
    const tag = reader.tag();
    if (tag === 0x0a) service = reader.string();
    else reader.skip(tag & 7);
  }
  return service;
}

/** HealthCheckResponse { status }, framed. */
const reply = (status: ReportedStatus): Buffer =>
  frame(Buffer.from([0, 0, 0, 0, 0, 0x08, STATUS_NUMBER[status]]));

/** The overall status ('') exists from the start as NOT_SERVING, so probes fail until the owner says it is ready. */
export function createHealthMethods(): HealthMethods {
  const statuses = new Map<string, ServingStatus>([['', 'NOT_SERVING']]);
  const watchers = new Map<string, Set<ReplyStream>>();
  let shutDown = false;
  const status = (service: string): ReportedStatus => statuses.get(service) ?? 'SERVICE_UNKNOWN';

  const check: UnaryMethod = async (message) => {
    const service = serviceOf(message);
    const current = statuses.get(service);
    if (current === undefined) throw new UnknownServiceError(`unknown service '${service}'`);
    return reply(current);
  };

  const watch: StreamingMethod = (message, _call, out) => {
    const service = serviceOf(message);
    out.send(reply(status(service)));
    if (shutDown) return out.end();
    const set = watchers.get(service) ?? new Set<ReplyStream>();
    watchers.set(service, set);
    set.add(out);
    out.onClose(() => {
      set.delete(out);
      if (set.size === 0 && watchers.get(service) === set) watchers.delete(service);
    });
  };

  const notify = (service: string): void => {
    for (const out of watchers.get(service) ?? []) out.send(reply(status(service)));
  };

  return {
    unary: new Map([['/grpc.health.v1.Health/Check', check]]),
    streaming: new Map([['/grpc.health.v1.Health/Watch', watch]]),
    setStatus(service, next) {
      if (shutDown || statuses.get(service) === next) return;
      statuses.set(service, next);
      notify(service);
    },
    shutdown() {
      if (shutDown) return;
      shutDown = true;
      for (const [service, current] of statuses) {
        if (current === 'NOT_SERVING') continue;
        statuses.set(service, 'NOT_SERVING');
        notify(service);
      }
      for (const set of watchers.values()) for (const out of set) out.end();
      watchers.clear();
    },
  };
}
