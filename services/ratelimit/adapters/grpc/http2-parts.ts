// The small parts of gRPC over HTTP/2 the unary server needs: status codes, the grpc-timeout
// header, and the node:http2 server in plaintext or TLS.
import {
  createSecureServer,
  createServer,
  type Http2SecureServer,
  type Http2Server,
  type IncomingHttpHeaders,
  type SecureServerOptions,
  type ServerOptions,
} from 'node:http2';

/** The gRPC status codes this service answers (grpc/doc/statuscodes.md). */
export const GRPC_STATUS = {
  OK: 0,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

export type GrpcHeaders = IncomingHttpHeaders;

const TIMEOUT_UNIT_MS: Readonly<Record<string, number>> = {
  H: 3_600_000,
  M: 60_000,
  S: 1_000,
  m: 1,
  u: 0.001,
  n: 0.000_001,
};

/** grpc-timeout (`1S`, `250m`, up to 8 digits and a unit) in milliseconds; undefined when absent or malformed. */
export function grpcTimeoutMs(header: string | string[] | undefined): number | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^(\d{1,8})([HMSmun])$/.exec(header);
  if (match === null) return undefined;
  return Number(match[1]) * TIMEOUT_UNIT_MS[match[2]!]!;
}

/** An HTTP/2 server: TLS (ALPN h2) when `tls` is given, else plaintext (h2c with prior knowledge). */
export function createHttp2Server(
  tls: SecureServerOptions | undefined,
  options: ServerOptions,
): Http2Server | Http2SecureServer {
  return tls === undefined ? createServer(options) : createSecureServer({ ...options, ...tls });
}
