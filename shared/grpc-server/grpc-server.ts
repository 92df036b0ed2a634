// The gRPC server of every service: unary methods and server-streaming ones (health Watch) of the
// handler contract (shared/rpc/contract.ts) on HTTP/2 of its own (h2-connection.ts) over node:net
// or node:tls: one length-prefixed message in, replies out, the status in trailers. It does what
// the gRPC HTTP/2 protocol asks of a server and nothing more: POST and application/grpc only,
// grpc-timeout deadlines, compressed messages refused with UNIMPLEMENTED and grpc-accept-encoding,
// messages over the limit refused with RESOURCE_EXHAUSTED, unknown methods UNIMPLEMENTED, and every
// failure answered through the one failure policy (shared/rpc/failure.ts). Its own HTTP/2 because
// node:http2 cost more CPU per call than a whole rate-limit decision.
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type SecureContextOptions, type TlsOptions } from 'node:tls';
import { unavailable } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { RpcService, StreamMethod, UnaryMethod } from '../rpc/contract.ts';
import { decodeFailure, failureOf } from '../rpc/failure.ts';
import { StreamCallContext } from './call-context.ts';
import { H2Connection } from './h2-connection.ts';
import type { H2Output, StreamHandler } from './h2-output.ts';
import type { H2Stream } from './h2-stream.ts';
import {
  failureBlock,
  failureTrailers,
  GRPC_STATUS,
  type GrpcHeaders,
  grpcTimeoutMs,
  HTTP_REFUSAL,
  OK_TRAILERS,
  RESPONSE_HEADERS,
} from './http2-parts.ts';

/** What the server knows of a call before its method runs (for `admit`). */
export interface UnaryCall {
  readonly headers: GrpcHeaders;
  /** The connection's socket: a TLSSocket (peer certificate) under TLS. */
  readonly socket: Socket;
}

/** A status a call is answered with: a gRPC status code and its details. */
export interface GrpcFailure {
  readonly code: number;
  readonly details: string;
}

export interface GrpcServerOptions {
  readonly host: string;
  /** 0 picks a free port; the bound one is in the result. */
  readonly port: number;
  /** SO_REUSEPORT, for several threads of one instance on one port. */
  readonly reusePort?: boolean;
  readonly services: readonly RpcService[];
  /** Refuses a call before its method runs (a client certificate without the required name). */
  readonly admit?: (call: UnaryCall) => GrpcFailure | undefined;
  /** Largest request message (refused with RESOURCE_EXHAUSTED from its length, before it is read). */
  readonly maxMessageBytes: number;
  /** The details of a message over the limit; Go's gRPC wording (envoyproxy/ratelimit's) by default. */
  readonly oversizeDetails?: (size: number, max: number) => string;
  /** GRPC_MAX_CONNECTION_AGE and _GRACE: a connection is asked to go away, then closed. Default: never. */
  readonly maxConnectionAgeMs?: number;
  readonly maxConnectionAgeGraceMs?: number;
  /** TLS (with client certificates when it asks for them; ALPN h2); plaintext when absent. */
  readonly tls?: TlsOptions;
  readonly logger: Logger;
}

export interface RunningGrpcServer {
  readonly port: number;
  /** TLS only: new connections get these (a rotated pair). */
  setSecureContext(options: SecureContextOptions): void;
  /** Stops taking connections, lets calls under way finish, closes what is left after `deadlineMs`. */
  stop(deadlineMs: number): Promise<void>;
}

/** The 5-byte gRPC message prefix written in front of `message`'s first `5` free bytes. */
export function frame(message: Buffer): Buffer {
  message[0] = 0;
  message.writeUInt32BE(message.length - 5, 1);
  return message;
}

const fail = (connection: H2Output, stream: H2Stream, failure: GrpcFailure): void => {
  clearTimeout(stream.timer);
  if (!stream.headersSent) connection.sendHeaders(stream, failureBlock(failure.code, failure.details), true);
};

const DEADLINE_EXCEEDED: GrpcFailure = { code: GRPC_STATUS.DEADLINE_EXCEEDED, details: 'Deadline exceeded' };
const onDeadline = (connection: H2Output, stream: H2Stream): void =>
  fail(connection, stream, DEADLINE_EXCEEDED);

/** `Service.Method` of `/package.Service/Method`, for log lines. */
function methodName(path: string): string {
  const slash = path.lastIndexOf('/');
  const service = path.slice(1, slash);
  return `${service.slice(service.lastIndexOf('.') + 1)}.${path.slice(slash + 1)}`;
}

export async function startGrpcServer(options: GrpcServerOptions): Promise<RunningGrpcServer> {
  const { logger, maxMessageBytes } = options;
  const unary = new Map<string, UnaryMethod<unknown, unknown>>();
  const streaming = new Map<string, StreamMethod<unknown, unknown>>();
  for (const service of options.services) {
    for (const method of service.unary) unary.set(method.path, method);
    for (const method of service.streaming) streaming.set(method.path, method);
  }
  const connections = new Set<H2Connection>();

  const failure = (thrown: unknown, stream: H2Stream): GrpcFailure => {
    const { socket } = stream;
    const path = stream.headers[':path']!;
    const site = {
      what: methodName(path),
      peer: `${socket.remoteAddress}:${socket.remotePort}`,
      transport: 'gRPC',
    } as const;
    const answer = failureOf(thrown, site, logger);
    return { code: answer.grpc, details: answer.message };
  };

  const handler: StreamHandler = {
    onHeaders(stream, connection) {
      const headers = stream.headers;
      if (httpRefusal(headers) !== undefined) return; // answered once the request is complete
      const path = headers[':path']!;
      const refused =
        !unary.has(path) && !streaming.has(path)
          ? { code: GRPC_STATUS.UNIMPLEMENTED, details: `The server does not implement the method ${path}` }
          : (encodingRefusal(headers['grpc-encoding']) ?? options.admit?.(stream));
      if (refused !== undefined) return fail(connection, stream, refused);
      const timeoutMs = grpcTimeoutMs(headers['grpc-timeout']);
      if (timeoutMs !== undefined) {
        stream.deadline = Date.now() + timeoutMs;
        stream.timer = setTimeout(onDeadline, timeoutMs, connection, stream);
      }
    },
    onEnd(stream, connection) {
      const httpStatus = httpRefusal(stream.headers);
      if (httpStatus !== undefined) return refuseHttp(connection, stream, httpStatus);
      const message = requestMessage(stream.message());
      if (!Buffer.isBuffer(message)) return fail(connection, stream, message);
      const path = stream.headers[':path']!;
      const method = unary.get(path);
      if (method === undefined) return startStream(streaming.get(path)!, message, stream, connection);
      let request: unknown;
      try {
        request = method.decode(message);
      } catch (error) {
        return fail(connection, stream, failure(decodeFailure(error), stream));
      }
      connection.running += 1;
      method.handle(request, new StreamCallContext(path, stream)).then(
        (reply) => {
          connection.running -= 1;
          clearTimeout(stream.timer);
          if (stream.headersSent) return;
          let bytes: Buffer;
          try {
            bytes = frame(method.encode(reply, 5));
          } catch (error) {
            return fail(connection, stream, failure(error, stream));
          }
          connection.respond(stream, RESPONSE_HEADERS, bytes, OK_TRAILERS);
        },
        (error: unknown) => {
          connection.running -= 1;
          fail(connection, stream, failure(error, stream));
        },
      );
    },
    onOversize(stream, connection) {
      const httpStatus = httpRefusal(stream.headers);
      if (httpStatus !== undefined) return refuseHttp(connection, stream, httpStatus);
      const size = stream.bodyBytes - 5;
      fail(connection, stream, {
        code: GRPC_STATUS.RESOURCE_EXHAUSTED,
        details:
          options.oversizeDetails?.(size, maxMessageBytes) ??
          `Received message larger than max (${size} vs. ${maxMessageBytes})`,
      });
    },
    onClosed(stream) {
      clearTimeout(stream.timer);
      const listener = stream.onClose;
      stream.onClose = undefined;
      listener?.();
    },
    onError(error) {
      logger.error({ err: error }, 'gRPC connection closed on an internal error');
    },
  };

  /** A server-streaming call: headers now, each reply as it comes, the status once the handler returns. */
  function startStream(
    method: StreamMethod<unknown, unknown>,
    message: Buffer,
    stream: H2Stream,
    connection: H2Output,
  ): void {
    let request: unknown;
    try {
      request = method.decode(message);
    } catch (error) {
      fail(connection, stream, failure(decodeFailure(error), stream));
      return;
    }
    clearTimeout(stream.timer);
    connection.sendHeaders(stream, RESPONSE_HEADERS, false);
    const context = new StreamCallContext(stream.headers[':path']!, stream);
    const send = (reply: unknown): void => {
      if (!stream.closed && !stream.localEnded) connection.sendData(stream, frame(method.encode(reply, 5)));
    };
    connection.running += 1;
    method.handle(request, context, send).then(
      () => {
        connection.running -= 1;
        if (!stream.closed && !stream.localEnded) connection.sendTrailers(stream, OK_TRAILERS);
      },
      (error: unknown) => {
        connection.running -= 1;
        const answer = failure(error, stream);
        if (!stream.closed && !stream.localEnded)
          connection.sendTrailers(stream, failureTrailers(answer.code, answer.details));
      },
    );
  }

  const accept = (socket: Socket): void => {
    const connection = new H2Connection(socket, handler, maxMessageBytes + 5);
    connections.add(connection);
    socket.once('close', () => connections.delete(connection));
    const ageMs = options.maxConnectionAgeMs ?? Number.POSITIVE_INFINITY;
    if (ageMs > 0) ageOut(connection, ageMs, options.maxConnectionAgeGraceMs ?? Number.POSITIVE_INFINITY);
  };
  const server: Server =
    options.tls === undefined
      ? createNetServer({ noDelay: true }, accept)
      : createTlsServer({ ...options.tls, ALPNProtocols: ['h2'] }, accept);
  if (options.tls !== undefined) server.on('tlsClientError', () => {}); // a failed handshake: nothing to serve

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        unavailable(`gRPC server: cannot listen on ${options.host}:${options.port}: ${error.message}`, error),
      ),
    );
    server.listen({ port: options.port, host: options.host, reusePort: options.reusePort ?? false }, resolve);
  });
  const port = (server.address() as import('node:net').AddressInfo).port;
  logger.debug({ port }, 'gRPC server listening');

  let stopping: Promise<void> | undefined;
  return {
    port,
    setSecureContext: (tls) => (server as import('node:tls').Server).setSecureContext(tls),
    stop(deadlineMs) {
      stopping ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          for (const connection of connections) connection.destroy();
        }, deadlineMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        // Calls under way finish; the clients open new connections elsewhere.
        for (const connection of connections) connection.goAway();
      });
      return stopping;
    },
  };
}

function refuseHttp(connection: H2Output, stream: H2Stream, status: 405 | 415): void {
  const refusal = HTTP_REFUSAL[status];
  connection.sendHeaders(stream, refusal.headers, false);
  connection.sendData(stream, refusal.body);
  connection.sendTrailers(stream, null);
}

/** The HTTP status a request that is not gRPC gets (405 for another method, 415 for another content type). */
function httpRefusal(headers: GrpcHeaders): 405 | 415 | undefined {
  if (headers[':method'] !== 'POST') return 405;
  const contentType = headers['content-type'];
  if (contentType === undefined || !contentType.startsWith('application/grpc')) return 415;
  return undefined;
}

/** Messages compressed with anything are refused: the answer says which encoding the server takes. */
function encodingRefusal(encoding: string | undefined): GrpcFailure | undefined {
  if (encoding === undefined || encoding === 'identity') return undefined;
  return { code: GRPC_STATUS.UNIMPLEMENTED, details: `Compression algorithm ${encoding} is not supported` };
}

/** The one message of a unary request, or why there is none. */
function requestMessage(body: Buffer): Buffer | GrpcFailure {
  const internal = (details: string): GrpcFailure => ({ code: GRPC_STATUS.INTERNAL, details });
  if (body.length < 5) return internal('the request carries no message');
  if (body[0] !== 0) return internal('a compressed message was sent without grpc-encoding');
  if (body.readUInt32BE(1) !== body.length - 5) return internal('the request carries other than one message');
  return body.subarray(5);
}

/** GRPC_MAX_CONNECTION_AGE: GOAWAY after the age (±10%, as grpc-js), closed after the grace. */
function ageOut(connection: H2Connection, ageMs: number, graceMs: number): void {
  if (!Number.isFinite(ageMs) || ageMs >= 2 ** 31) return;
  const timer = setTimeout(
    () => {
      connection.goAway();
      if (graceMs < 2 ** 31) setTimeout(() => connection.destroy(), graceMs).unref();
    },
    ageMs * (0.9 + Math.random() * 0.2),
  );
  timer.unref();
  connection.socket.once('close', () => clearTimeout(timer));
}
