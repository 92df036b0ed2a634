// One HTTP/2 stream of the gRPC server's own HTTP/2 (a call), and the request header checks of
// RFC 9113 8.2–8.3 that make a request malformed (a stream error of type PROTOCOL_ERROR).
import type { Socket } from 'node:net';
import type { HpackDecoder } from './hpack.ts';

/** Request headers by lowercase name; a repeated field's values joined with ', '. */
export type GrpcHeaders = Record<string, string | undefined>;

export class H2Stream {
  readonly id: number;
  /** The connection's socket (a TLSSocket under TLS): the peer's address and certificate. */
  readonly socket: Socket;
  headers: GrpcHeaders = {};
  /** The request's DATA: one chunk (the common case) or several. */
  body: Buffer | undefined = undefined;
  chunks: Buffer[] | undefined = undefined;
  bodyBytes = 0;
  contentLength = -1;
  /** The peer sent END_STREAM; we sent our first HEADERS; we sent END_STREAM. */
  remoteEnded = false;
  headersSent = false;
  localEnded = false;
  closed = false;
  /** Refused before its body arrived: what else arrives is dropped. */
  discarding = false;
  sendWindow: number;
  recvWindow: number;
  recvUnacked = 0;
  /** DATA payloads waiting for flow-control window, and the trailers to send after them. */
  queued: Buffer[] | undefined = undefined;
  queuedTrailers: Buffer | null | undefined = undefined;
  // The gRPC layer's: the caller's deadline (epoch ms) and its timer, and what runs when the
  // stream closes either way.
  deadline: number | undefined = undefined;
  timer: NodeJS.Timeout | undefined = undefined;
  onClose: (() => void) | undefined = undefined;

  constructor(id: number, socket: Socket, sendWindow: number, recvWindow: number) {
    this.id = id;
    this.socket = socket;
    this.sendWindow = sendWindow;
    this.recvWindow = recvWindow;
  }

  append(data: Buffer): void {
    this.bodyBytes += data.length;
    if (this.body === undefined && this.chunks === undefined) this.body = data;
    else {
      this.chunks ??= [this.body!];
      this.body = undefined;
      this.chunks.push(data);
    }
  }

  /** The request body as one buffer. */
  message(): Buffer {
    if (this.chunks !== undefined) return Buffer.concat(this.chunks);
    return this.body ?? EMPTY;
  }
}

const EMPTY = Buffer.alloc(0);

const CONNECTION_SPECIFIC = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
]);
const PSEUDO = new Set([':method', ':scheme', ':path', ':authority']);
const TOKEN = /^[a-z0-9!#$%&'*+.^_`|~-]+$/;
/**
 * What a field value may not hold: NUL, LF and CR anywhere (RFC 9113 8.2.1), and, as nghttp2 and
 * Go's HTTP/2 refuse them, any other control character but HTAB, and DEL.
 */
export function holdsForbiddenInValue(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return true;
  }
  return false;
}

/**
 * Fills `stream.headers` from the decoded block of a request's HEADERS; returns what makes the
 * request malformed, or undefined.
 */
export function takeRequestHeaders(stream: H2Stream, decoded: HpackDecoder): string | undefined {
  const headers = stream.headers;
  let regular = false;
  for (let i = 0; i < decoded.count; i++) {
    const name = decoded.names[i]!;
    const value = decoded.values[i]!;
    if (name.charCodeAt(0) === 58 /* : */) {
      if (regular) return `pseudo-header ${name} after a regular one`;
      if (holdsForbiddenInValue(value)) return `the value of ${name} holds a control character`;
      if (!PSEUDO.has(name)) return `pseudo-header ${name} is not a request's`;
      if (headers[name] !== undefined) return `pseudo-header ${name} repeated`;
      headers[name] = value;
      continue;
    }
    regular = true;
    const problem = fieldProblem(name, value);
    if (problem !== undefined) return problem;
    if (name === 'content-length') stream.contentLength = Number(value);
    const previous = headers[name];
    headers[name] = previous === undefined ? value : `${previous}, ${value}`;
  }
  const path = headers[':path'];
  if (headers[':method'] === undefined || headers[':scheme'] === undefined || path === undefined)
    return 'a request needs :method, :scheme and :path';
  if (path === '') return ':path is empty';
  return undefined;
}

/** Checks the trailers of a request (no pseudo-headers); returns what is wrong, or undefined. */
export function checkTrailers(decoded: HpackDecoder): string | undefined {
  for (let i = 0; i < decoded.count; i++) {
    const name = decoded.names[i]!;
    if (name.charCodeAt(0) === 58) return `pseudo-header ${name} in trailers`;
    const problem = fieldProblem(name, decoded.values[i]!);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** Whether a regular (not pseudo-) field name is one a request may carry: a lowercase token. */
export function isRegularFieldName(name: string): boolean {
  return TOKEN.test(name);
}

function fieldProblem(name: string, value: string): string | undefined {
  if (holdsForbiddenInValue(value)) return `the value of ${name} holds a control character`;
  if (!isRegularFieldName(name)) return `header name ${JSON.stringify(name)} is not a lowercase token`;
  if (CONNECTION_SPECIFIC.has(name)) return `connection-specific header ${name}`;
  if (name === 'te' && value !== 'trailers') return 'te other than trailers';
  if (name === 'content-length' && !/^\d{1,15}$/.test(value)) return 'content-length is not a number';
  return undefined;
}
