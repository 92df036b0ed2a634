// A gRPC server on node:http2 for a few unary methods (and server-streaming health Watch): one
// length-prefixed message in, one out, the status in trailers. It does what the gRPC HTTP/2
// protocol asks of a server and nothing more: POST and application/grpc only, grpc-timeout
// deadlines, compressed messages refused with UNIMPLEMENTED and grpc-accept-encoding, messages
// over the limit refused with RESOURCE_EXHAUSTED, unknown methods UNIMPLEMENTED.
import type { SecureServerOptions, ServerHttp2Stream, ServerOptions } from 'node:http2';
import type { AddressInfo, Server as NetServer } from 'node:net';
import { unavailable } from '../../../../shared/errors.ts';
import type { Logger } from '../../../../shared/logger.ts';
import { createHttp2Server, GRPC_STATUS, type GrpcHeaders, grpcTimeoutMs } from './http2-parts.ts';

/** What a method knows of its call besides the request. */
export interface UnaryCall {
  readonly headers: GrpcHeaders;
  /** The TLS session's peer certificate check (undefined in plaintext). */
  readonly stream: ServerHttp2Stream;
}

/** A failure a method answers with: a gRPC status code and its details. */
export interface GrpcFailure {
  readonly code: number;
  readonly details: string;
}

export type UnaryMethod = (message: Buffer, call: UnaryCall) => Promise<Buffer>;
/** Where a server-streaming method writes: one framed message at a time, then the end (status OK). */
export interface ReplyStream {
  send(framed: Buffer): void;
  end(): void;
  /** Called once when the call ends either way (the client went away, or end()). */
  onClose(listener: () => void): void;
}
export type StreamingMethod = (message: Buffer, call: UnaryCall, out: ReplyStream) => void;

export interface UnaryServerOptions {
  readonly host: string;
  readonly port: number;
  readonly reusePort: boolean;
  /** Keyed by path, /package.Service/Method. */
  readonly unary: ReadonlyMap<string, UnaryMethod>;
  readonly streaming?: ReadonlyMap<string, StreamingMethod>;
  /** Turns what a method threw into the status the caller gets. */
  readonly failure: (error: unknown, path: string, call: UnaryCall) => GrpcFailure;
  /** Refuses a call before its method runs (a client certificate without the required name). */
  readonly admit?: (call: UnaryCall) => GrpcFailure | undefined;
  readonly maxMessageBytes: number;
  /** GRPC_MAX_CONNECTION_AGE and _GRACE: a connection is asked to go away, then closed. */
  readonly maxConnectionAgeMs: number;
  readonly maxConnectionAgeGraceMs: number;
  /** TLS (with client certificates when it asks for them); plaintext when absent. */
  readonly tls?: SecureServerOptions;
  readonly logger: Logger;
}

export interface RunningUnaryServer {
  readonly port: number;
  /** TLS only: new connections get these (a rotated pair). */
  setSecureContext(options: SecureServerOptions): void;
  /** Stops taking connections, lets calls under way finish, closes what is left after `deadlineMs`. */
  stop(deadlineMs: number): Promise<void>;
}

const RESPONSE_HEADERS = {
  ':status': 200,
  'content-type': 'application/grpc',
  'grpc-accept-encoding': 'identity',
};
const OK_TRAILERS = { 'grpc-status': '0' };
const ACCEPT_IDENTITY = { 'grpc-accept-encoding': 'identity' };

/** The 5-byte gRPC message prefix written in front of `message`'s first `5` free bytes. */
export function frame(message: Buffer): Buffer {
  message[0] = 0;
  message.writeUInt32BE(message.length - 5, 1);
  return message;
}

export async function startUnaryServer(options: UnaryServerOptions): Promise<RunningUnaryServer> {
  const { logger, maxMessageBytes } = options;
  const settings: ServerOptions = { settings: { maxHeaderListSize: 16 * 1024 } };
  const server = createHttp2Server(options.tls, settings);
  const sessions = new Set<import('node:http2').ServerHttp2Session>();

  const fail = (stream: ServerHttp2Stream, code: number, details: string, extra?: object): void => {
    if (stream.destroyed || stream.headersSent) return;
    stream.respond(
      { ...RESPONSE_HEADERS, 'grpc-status': String(code), 'grpc-message': encodeURI(details), ...extra },
      { endStream: true },
    );
  };

  const onStream = (stream: ServerHttp2Stream, headers: GrpcHeaders): void => {
    stream.on('error', () => {}); // a reset by the client: nothing to answer
    const httpStatus = httpRefusal(headers);
    if (httpStatus !== undefined) {
      stream.respond({ ':status': httpStatus }, { endStream: true });
      return;
    }
    const path = headers[':path'] ?? '';
    const unary = options.unary.get(path);
    const streaming = unary === undefined ? options.streaming?.get(path) : undefined;
    const call: UnaryCall = { headers, stream };
    const refused =
      unary === undefined && streaming === undefined
        ? { code: GRPC_STATUS.UNIMPLEMENTED, details: `The server does not implement the method ${path}` }
        : (encodingRefusal(headers['grpc-encoding']) ?? options.admit?.(call));
    if (refused !== undefined) {
      fail(stream, refused.code, refused.details, ACCEPT_IDENTITY);
      return;
    }

    const timeoutMs = grpcTimeoutMs(headers['grpc-timeout']);
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => fail(stream, GRPC_STATUS.DEADLINE_EXCEEDED, 'Deadline exceeded'), timeoutMs);
    readMessage(stream, maxMessageBytes, (message) => {
      if (!Buffer.isBuffer(message)) {
        clearTimeout(timer);
        if (message !== undefined) fail(stream, message.code, message.details);
        return;
      }
      if (streaming !== undefined) {
        clearTimeout(timer);
        stream.respond(RESPONSE_HEADERS, { waitForTrailers: true });
        stream.once('wantTrailers', () => stream.sendTrailers(OK_TRAILERS));
        streaming(message, call, replyStream(stream));
        return;
      }
      unary!(message, call).then(
        (reply) => {
          clearTimeout(timer);
          if (stream.destroyed || stream.headersSent) return;
          stream.respond(RESPONSE_HEADERS, { waitForTrailers: true });
          stream.once('wantTrailers', () => stream.sendTrailers(OK_TRAILERS));
          stream.end(reply);
        },
        (error: unknown) => {
          clearTimeout(timer);
          const failure = options.failure(error, path, call);
          fail(stream, failure.code, failure.details);
        },
      );
    });
  };

  server.on('stream', onStream);
  server.on('session', (session) => {
    sessions.add(session);
    session.on('error', () => {});
    session.once('close', () => sessions.delete(session));
    if (options.maxConnectionAgeMs > 0)
      ageOut(session, options.maxConnectionAgeMs, options.maxConnectionAgeGraceMs);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        unavailable(`gRPC server: cannot listen on ${options.host}:${options.port}: ${error.message}`, error),
      ),
    );
    server.listen({ port: options.port, host: options.host, reusePort: options.reusePort }, resolve);
  });
  const port = ((server as NetServer).address() as AddressInfo).port;
  logger.debug({ port }, 'gRPC server listening');

  let stopping: Promise<void> | undefined;
  return {
    port,
    setSecureContext: (tls) => (server as import('node:tls').Server).setSecureContext(tls),
    stop(deadlineMs) {
      stopping ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          for (const session of sessions) session.destroy();
        }, deadlineMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        // Calls under way finish; the clients open new connections elsewhere.
        for (const session of sessions) session.close();
      });
      return stopping;
    },
  };
}

/** The HTTP status a request that is not gRPC gets (405 for another method, 415 for another content type). */
function httpRefusal(headers: GrpcHeaders): number | undefined {
  if (headers[':method'] !== 'POST') return 405;
  const contentType = headers['content-type'];
  if (typeof contentType !== 'string' || !contentType.startsWith('application/grpc')) return 415;
  return undefined;
}

/** Messages compressed with anything are refused: the answer says which encoding the server takes. */
function encodingRefusal(encoding: string | string[] | undefined): GrpcFailure | undefined {
  if (encoding === undefined || encoding === 'identity') return undefined;
  return { code: GRPC_STATUS.UNIMPLEMENTED, details: `Compression algorithm ${encoding} is not supported` };
}

/**
 * Collects the request's body and hands over its one message, the failure that refuses it, or
 * undefined when the call was already answered (the deadline passed, the client went away).
 */
function readMessage(
  stream: ServerHttp2Stream,
  maxMessageBytes: number,
  done: (message: Buffer | GrpcFailure | undefined) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  stream.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= maxMessageBytes + 5) {
      chunks.push(chunk);
      return;
    }
    stream.removeAllListeners('data');
    stream.removeAllListeners('end');
    done({
      code: GRPC_STATUS.RESOURCE_EXHAUSTED,
      details: `Received message larger than max (${size - 5} vs. ${maxMessageBytes})`,
    });
  });
  stream.on('end', () => {
    if (stream.headersSent || stream.destroyed) return done(undefined);
    done(requestMessage(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
  });
}

/** The one message of a unary request, or why there is none. */
function requestMessage(body: Buffer): Buffer | GrpcFailure {
  const internal = (details: string): GrpcFailure => ({ code: GRPC_STATUS.INTERNAL, details });
  if (body.length < 5) return internal('the request carries no message');
  if (body[0] !== 0) return internal('a compressed message was sent without grpc-encoding');
  if (body.readUInt32BE(1) !== body.length - 5) return internal('the request carries other than one message');
  return body.subarray(5);
}

/** Where a server-streaming method writes. */
function replyStream(stream: ServerHttp2Stream): ReplyStream {
  const open = (): boolean => !stream.destroyed && stream.writable;
  return {
    send: (framed) => {
      if (open()) stream.write(framed);
    },
    end: () => {
      if (open()) stream.end();
    },
    onClose: (listener) => stream.once('close', listener),
  };
}

/** GRPC_MAX_CONNECTION_AGE: GOAWAY after the age (±10%, as grpc-js), closed after the grace. */
function ageOut(session: import('node:http2').ServerHttp2Session, ageMs: number, graceMs: number): void {
  if (!Number.isFinite(ageMs) || ageMs >= 2 ** 31) return;
  const timer = setTimeout(
    () => {
      session.close();
      if (graceMs < 2 ** 31) setTimeout(() => session.destroy(), graceMs).unref();
    },
    ageMs * (0.9 + Math.random() * 0.2),
  );
  timer.unref();
  session.once('close', () => clearTimeout(timer));
}
