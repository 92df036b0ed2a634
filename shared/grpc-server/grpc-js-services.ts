// grpc-js service registrations (a definition and its implementation, as startGrpcServer takes them)
// served by the unary server of this folder: its own HTTP/2, cheaper per call than node:http2 under
// grpc-js. Handlers get the grpc-js call object they already read (request, metadata, peer, deadline,
// cancelled) and answer through the same callback; server-streaming handlers (health Watch) get a
// writable call (write, end, cancelled, 'cancelled'/'close' events). Client and bidirectional
// streaming methods are not served (none of the services here has one).
import { EventEmitter } from 'node:events';
import {
  Metadata,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceError,
  type sendUnaryData,
} from '@grpc/grpc-js';
import { callForHandler, type GrpcServerOptions } from '../grpc.ts';
import { GRPC_STATUS, grpcTimeoutMs } from './http2-parts.ts';
import {
  frame,
  type GrpcFailure,
  type ReplyStream,
  type RunningUnaryServer,
  type StreamingMethod,
  startUnaryServer,
  type UnaryCall,
  type UnaryMethod,
} from './unary-server.ts';

/** Headers the protocol itself uses; grpc-js leaves them out of a call's metadata too. */
const PROTOCOL_HEADERS = new Set([
  'content-type',
  'te',
  'grpc-timeout',
  'grpc-encoding',
  'grpc-accept-encoding',
]);

export interface RunningH2GrpcServer {
  readonly port: number;
  /** Stops taking connections, lets calls under way finish, closes what is left after `deadlineMs`. */
  stop(deadlineMs: number): Promise<void>;
}

/** A failure a handler answered through its callback, carried to the server's failure hook. */
class CallbackFailure extends Error {
  readonly failure: GrpcFailure;
  constructor(failure: GrpcFailure) {
    super(failure.details);
    this.failure = failure;
  }
}

/** Starts a plaintext gRPC server for grpc-js service registrations on the unary server. */
export async function startH2GrpcServer(options: GrpcServerOptions): Promise<RunningH2GrpcServer> {
  const unary = new Map<string, UnaryMethod>();
  const streaming = new Map<string, StreamingMethod>();
  for (const { definition, implementation } of options.services) {
    for (const [name, method] of Object.entries(definition)) {
      const handler = implementation[name] as ((...args: never[]) => void) | undefined;
      if (typeof handler !== 'function' || method.requestStream) continue;
      if (method.responseStream)
        streaming.set(method.path, (message, call, out) => {
          let request: unknown;
          try {
            request = method.requestDeserialize(message);
          } catch {
            out.end(); // an unreadable request: the stream ends with nothing sent
            return;
          }
          (handler as (call: ServerWritableStream<unknown, unknown>) => void)(
            writableCall(request, call, out, method.responseSerialize),
          );
        });
      else
        unary.set(method.path, async (message, call) => {
          const request = method.requestDeserialize(message);
          return await new Promise<Buffer>((resolve, reject) => {
            const reply: sendUnaryData<unknown> = (error, value) => {
              if (error) reject(new CallbackFailure(failureOf(error)));
              else resolve(framed(method.responseSerialize(value)));
            };
            (handler as (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void)(
              unaryCall(request, call),
              reply,
            );
          });
        });
    }
  }
  const server: RunningUnaryServer = await startUnaryServer({
    host: options.host,
    port: options.port,
    reusePort: false,
    unary,
    streaming,
    failure: (error) =>
      error instanceof CallbackFailure
        ? error.failure
        : // A request the method's deserializer could not read, or a handler that threw.
          { code: GRPC_STATUS.INTERNAL, details: `Error handling the call: ${(error as Error).message}` },
    maxMessageBytes: options.maxMessageBytes ?? 64 * 1024 * 1024,
    // grpc-js's wording, which these services answered with before.
    oversizeDetails: (size, max) => `Received message larger than max (${size} vs ${max})`,
    maxConnectionAgeMs: Number.POSITIVE_INFINITY,
    maxConnectionAgeGraceMs: Number.POSITIVE_INFINITY,
    logger: options.logger,
  });
  options.logger.info({ host: options.host, port: server.port }, 'gRPC server listening');
  return {
    port: server.port,
    stop: async (deadlineMs) => {
      await server.stop(deadlineMs);
      options.logger.info({ port: server.port }, 'gRPC server stopped');
    },
  };
}

function failureOf(error: Partial<ServiceError>): GrpcFailure {
  return { code: error.code ?? GRPC_STATUS.UNKNOWN, details: error.details ?? error.message ?? '' };
}

/** The reply's bytes behind the 5 free bytes the unary server frames them with. */
function framed(bytes: Buffer): Buffer {
  const out = Buffer.allocUnsafe(bytes.length + 5);
  bytes.copy(out, 5);
  return frame(out);
}

function metadataOf(call: UnaryCall): Metadata {
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(call.headers)) {
    if (value === undefined || key.startsWith(':') || PROTOCOL_HEADERS.has(key)) continue;
    if (key.endsWith('-bin'))
      for (const part of value.split(',')) metadata.add(key, Buffer.from(part, 'base64'));
    else metadata.add(key, value);
  }
  return metadata;
}

function deadlineOf(call: UnaryCall): number {
  const ms = grpcTimeoutMs(call.headers['grpc-timeout']);
  return ms === undefined ? Number.POSITIVE_INFINITY : Date.now() + ms;
}

const peerOf = (call: UnaryCall): string => `${call.socket.remoteAddress}:${call.socket.remotePort}`;
const closedOf = (call: UnaryCall): boolean => (call as { closed?: boolean }).closed === true;

function unaryCall(request: unknown, call: UnaryCall): ServerUnaryCall<unknown, unknown> {
  const deadline = deadlineOf(call);
  return callForHandler({
    request,
    metadata: metadataOf(call),
    peer: peerOf(call),
    deadline,
    cancelled: () => closedOf(call) || Date.now() > deadline,
  });
}

function writableCall(
  request: unknown,
  call: UnaryCall,
  out: ReplyStream,
  serialize: (value: unknown) => Buffer,
): ServerWritableStream<unknown, unknown> {
  const events = new EventEmitter();
  let open = true;
  out.onClose(() => {
    if (!open) return;
    open = false;
    events.emit('cancelled');
    events.emit('close');
  });
  return Object.assign(events, {
    request,
    metadata: metadataOf(call),
    getPeer: () => peerOf(call),
    getDeadline: () => deadlineOf(call),
    get cancelled() {
      return !open;
    },
    get writable() {
      return open;
    },
    write(value: unknown) {
      if (open) out.send(framed(serialize(value)));
      return true;
    },
    end() {
      if (!open) return;
      open = false;
      out.end();
      events.emit('close');
    },
  }) as unknown as ServerWritableStream<unknown, unknown>;
}
