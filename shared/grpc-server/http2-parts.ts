// The small parts of gRPC over HTTP/2 the unary server needs: status codes, the grpc-timeout
// header, and the response header blocks (HPACK literals, built once).
import { fieldBytes, writeIndexed, writeLiteral } from './hpack.ts';

export type { GrpcHeaders } from './h2-stream.ts';

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

const TIMEOUT_UNIT_MS: Readonly<Record<string, number>> = {
  H: 3_600_000,
  M: 60_000,
  S: 1_000,
  m: 1,
  u: 0.001,
  n: 0.000_001,
};

// Clients send the same grpc-timeout call after call (ghz: 20S): the last one parsed is kept.
let lastTimeout = '';
let lastTimeoutMs: number | undefined;

/** grpc-timeout (`1S`, `250m`, up to 8 digits and a unit) in milliseconds; undefined when absent or malformed. */
export function grpcTimeoutMs(header: string | string[] | undefined): number | undefined {
  if (typeof header !== 'string') return undefined;
  if (header === lastTimeout) return lastTimeoutMs;
  const match = /^(\d{1,8})([HMSmun])$/.exec(header);
  const ms = match === null ? undefined : Number(match[1]) * TIMEOUT_UNIT_MS[match[2]!]!;
  lastTimeout = header;
  lastTimeoutMs = ms;
  return ms;
}

// Static table indices (RFC 7541 appendix A).
const STATUS_200 = 8;
const STATUS = 8;
const CONTENT_TYPE = 31;

/** A header block: `:status` first (indexed when 200), then the fields as literals. */
export function headerBlock(status: number, fields: ReadonlyArray<readonly [string, string]>): Buffer {
  let size = 8;
  for (const [name, value] of fields) size += fieldBytes(name, value);
  const out = Buffer.allocUnsafe(size);
  let at =
    status === 200
      ? writeIndexed(out, 0, STATUS_200)
      : writeLiteral(out, 0, ':status', String(status), STATUS);
  for (const [name, value] of fields)
    at = writeLiteral(out, at, name, value, name === 'content-type' ? CONTENT_TYPE : 0);
  return out.subarray(0, at);
}

/** The headers of every gRPC answer, and the trailers of a call that went well. */
export const RESPONSE_HEADERS = headerBlock(200, [
  ['content-type', 'application/grpc'],
  ['grpc-accept-encoding', 'identity'],
]);
export const OK_TRAILERS = (() => {
  const out = Buffer.allocUnsafe(32);
  return out.subarray(0, writeLiteral(out, 0, 'grpc-status', '0'));
})();

/** The most characters of grpc-message sent: encoded (≤ 12 bytes a code point), the block fits one frame. */
const MAX_DETAILS_CHARS = 1024;

/** A trailers-only answer: the response headers with grpc-status and grpc-message (percent-encoded UTF-8). */
const truncated = (details: string): string =>
  details.length > MAX_DETAILS_CHARS ? [...details].slice(0, MAX_DETAILS_CHARS).join('') : details;

export function failureBlock(code: number, details: string): Buffer {
  const message = encodeURI(truncated(details).toWellFormed());
  return headerBlock(200, [
    ['content-type', 'application/grpc'],
    ['grpc-accept-encoding', 'identity'],
    ['grpc-status', String(code)],
    ['grpc-message', message],
  ]);
}

/** The trailers of a streaming call that failed after its headers went: grpc-status and grpc-message only. */
export function failureTrailers(code: number, details: string): Buffer {
  const message = encodeURI(truncated(details).toWellFormed());
  const out = Buffer.allocUnsafe(
    fieldBytes('grpc-status', String(code)) + fieldBytes('grpc-message', message),
  );
  const at = writeLiteral(out, 0, 'grpc-status', String(code));
  return out.subarray(0, writeLiteral(out, at, 'grpc-message', message));
}

/** The answer to a request that is not gRPC (405 for another method, 415 for another content type). */
export const HTTP_REFUSAL = {
  405: {
    headers: headerBlock(405, [
      ['content-type', 'text/plain'],
      ['allow', 'POST'],
    ]),
    body: Buffer.from('only POST is served here (gRPC)\n'),
  },
  415: {
    headers: headerBlock(415, [['content-type', 'text/plain']]),
    body: Buffer.from('only application/grpc is served here\n'),
  },
} as const;
