import {
  type handleUnaryCall,
  type Metadata,
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { AppError, causedByService, ERROR_TABLE, toAppError } from './errors.ts';
import type { Logger } from './logger.ts';

export {
  createHealthService,
  HEALTH_PROTO,
  type HealthService,
  type ReportedStatus,
  type ServingStatus,
} from './grpc-health.ts';
export { loadPackageDefinition, lookupService, PROTO_LOADER_OPTIONS, PROTO_ROOT } from './grpc-proto.ts';

/** What a unary handler knows about its call besides the request. */
export interface UnaryContext {
  readonly metadata: Metadata;
  readonly peer: string;
  /** When the client gives up; undefined when it set no deadline. */
  readonly deadline: Date | number | undefined;
  /** Whether the client has cancelled (or the deadline passed); long handlers may stop early. */
  readonly cancelled: () => boolean;
  /** The caller's `x-correlation-id`, carried onto the events the call publishes. */
  readonly correlationId: string | undefined;
}

export type UnaryHandler<Request, Response> = (request: Request, context: UnaryContext) => Promise<Response>;

/**
 * Adapts a promise-returning handler to grpc-js, which ignores returned promises: the promise is
 * awaited and whatever it throws becomes a gRPC status via toAppError and ERROR_TABLE, with the
 * error's message as details. Errors that were not AppErrors and map to INTERNAL keep their message
 * out of the details (it is logged instead), so internals do not leak to callers.
 */
export function unary<Request, Response>(
  method: string,
  handler: UnaryHandler<Request, Response>,
  deps: { readonly logger: Logger },
): handleUnaryCall<Request, Response> {
  return (call, callback) => {
    const context: UnaryContext = {
      metadata: call.metadata,
      peer: call.getPeer(),
      deadline: finiteDeadline(call.getDeadline()),
      cancelled: () => call.cancelled,
      correlationId: correlationOf(call.metadata),
    };
    const run = async (): Promise<Response> => handler(call.request, context);
    run().then(
      (response) => callback(null, response),
      (thrown: unknown) => {
        const error = toAppError(thrown);
        const known = thrown instanceof AppError;
        const fields = { method, code: error.code, peer: context.peer, err: thrown };
        if (!known || causedByService(error)) deps.logger.error(fields, `gRPC ${method} failed`);
        else deps.logger.info(fields, `gRPC ${method} rejected the request: ${error.message}`);
        const details = !known && error.code === 'INTERNAL' ? 'internal error' : error.message;
        callback({ code: ERROR_TABLE[error.code].grpc, details });
      },
    );
  };
}

/**
 * The grpc-js call object a unary handler reads (request, metadata, peer, deadline, cancelled), for
 * callers that run handlers outside grpc-js's server: the HTTP gateway and our own HTTP/2 server.
 */
export function callForHandler(fields: {
  readonly request: unknown;
  readonly metadata: Metadata;
  readonly peer: string;
  /** Epoch ms; infinite when the caller set none. */
  readonly deadline: number;
  readonly cancelled: () => boolean;
}): ServerUnaryCall<unknown, unknown> {
  const { request, metadata, peer, deadline, cancelled } = fields;
  return {
    request,
    metadata,
    getPeer: () => peer,
    getDeadline: () => deadline,
    get cancelled() {
      return cancelled();
    },
  } as unknown as ServerUnaryCall<unknown, unknown>;
}

function correlationOf(metadata: Metadata): string | undefined {
  const value = metadata.get('x-correlation-id')[0];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function finiteDeadline(deadline: Date | number): Date | number | undefined {
  if (typeof deadline === 'number') return Number.isFinite(deadline) ? deadline : undefined;
  return Number.isFinite(deadline.getTime()) ? deadline : undefined;
}

export interface GrpcServiceRegistration {
  readonly definition: ServiceDefinition;
  readonly implementation: UntypedServiceImplementation;
}

export interface GrpcServerOptions {
  readonly host: string;
  /** 0 picks a free port; the bound one is in the result. */
  readonly port: number;
  readonly services: readonly GrpcServiceRegistration[];
  readonly logger: Logger;
  /** Largest message received (refused with RESOURCE_EXHAUSTED from its length, before it is read); 64 MiB by default. */
  readonly maxMessageBytes?: number;
  /** Largest message sent; `maxMessageBytes` by default. */
  readonly maxSendMessageBytes?: number;
  /** Further grpc-js server options, e.g. `grpc.max_connection_age_ms`. */
  readonly channelOptions?: Readonly<Record<string, string | number>>;
  /** TLS credentials; plaintext when absent. */
  readonly credentials?: ServerCredentials;
}

export interface RunningGrpcServer {
  readonly port: number;
  readonly server: Server;
  /**
   * Stops taking calls and waits for running ones; past `deadlineMs` cancels them. Open streams
   * (health Watch) keep a graceful shutdown waiting, so end them first (HealthService.shutdown()).
   */
  stop(deadlineMs: number): Promise<void>;
}

export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** Starts a plaintext gRPC server with the given services; rejects with UNAVAILABLE if it cannot bind. */
export async function startGrpcServer(options: GrpcServerOptions): Promise<RunningGrpcServer> {
  const { host, logger } = options;
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const server = new Server({
    ...options.channelOptions,
    'grpc.max_receive_message_length': maxMessageBytes,
    'grpc.max_send_message_length': options.maxSendMessageBytes ?? maxMessageBytes,
  });
  for (const service of options.services) server.addService(service.definition, service.implementation);

  const address = `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${options.port}`;
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(
      address,
      options.credentials ?? ServerCredentials.createInsecure(),
      (error, boundPort) => {
        if (error === null) {
          resolve(boundPort);
          return;
        }
        server.forceShutdown();
        reject(
          new AppError('UNAVAILABLE', `cannot bind gRPC server to ${address}: ${error.message}`, {
            cause: error,
          }),
        );
      },
    );
  });
  logger.info({ host, port }, 'gRPC server listening');

  let stopping: Promise<void> | undefined;
  const stop = (deadlineMs: number): Promise<void> => {
    stopping ??= new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        logger.warn({ port, deadlineMs }, 'gRPC server did not drain in time; cancelling open calls');
        server.forceShutdown();
        resolve();
      }, deadlineMs);
      server.tryShutdown((error) => {
        clearTimeout(timer);
        if (error !== undefined) {
          logger.warn({ port, err: error }, 'gRPC graceful shutdown failed; cancelling open calls');
          server.forceShutdown();
        }
        logger.info({ port }, 'gRPC server stopped');
        resolve();
      });
    });
    return stopping;
  };

  return { port, server, stop };
}
