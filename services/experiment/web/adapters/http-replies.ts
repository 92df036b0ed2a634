// What the HTTP listener's handlers share: JSON and CSV answers, the body and query readers, and
// the one place a failure becomes an answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, type ErrorCode, invalidArgument } from '../../../../shared/errors.ts';
import type { Logger } from '../../../../shared/logger.ts';
import { type Failure, failureBody, failureOf } from '../../../../shared/rpc/failure.ts';

export type Format = 'json' | 'csv';

/** The error code an HTTP-level refusal carries in its body, as gRPC-JSON gateways answer them. */
const HTTP_REFUSAL_CODES: Readonly<Record<number, ErrorCode>> = {
  405: 'UNIMPLEMENTED',
  413: 'RESOURCE_EXHAUSTED',
  415: 'INVALID_ARGUMENT',
};

/** A refusal that is about HTTP itself (method, media type, size): an AppError with its own HTTP status. */
export class HttpReply extends AppError {
  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(HTTP_REFUSAL_CODES[status] ?? 'INVALID_ARGUMENT', message, { http: status, headers });
  }
}

export const json = (res: ServerResponse, status: number, body: unknown): void => {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
};

export const csv = (res: ServerResponse, name: string, text: string): void => {
  res.writeHead(200, {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `inline; filename="${name.replace(/[^A-Za-z0-9._-]/g, '_')}.csv"`,
    'cache-control': 'no-store',
  });
  res.end(text);
};

export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Stop reading; the 413 goes out first and the connection is closed after it.
        req.removeAllListeners('data');
        req.pause();
        reject(new HttpReply(413, `body: larger than ${limit} bytes`, { connection: 'close' }));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Query parameters, refusing any the endpoint does not know. */
export function params(url: URL, allowed: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of url.searchParams) {
    if (!allowed.includes(key))
      throw invalidArgument(`query parameter ${key}: unknown (allowed: ${allowed.join(', ') || 'none'})`);
    if (out.has(key)) throw invalidArgument(`query parameter ${key}: given more than once`);
    out.set(key, value);
  }
  return out;
}

export function formatOf(query: Map<string, string>, req: IncomingMessage): Format {
  const given = query.get('format');
  if (given === undefined) return (req.headers.accept ?? '').includes('text/csv') ? 'csv' : 'json';
  if (given === 'json' || given === 'csv') return given;
  throw invalidArgument(`query parameter format: ${JSON.stringify(given)} is not json or csv`);
}

/** Answers a failed request through the one failure policy (shared/rpc/failure.ts). */
export function answerFailure(
  req: IncomingMessage,
  res: ServerResponse,
  thrown: unknown,
  logger: Logger,
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const where = `${req.method ?? ''} ${(req.url ?? '').split('?')[0]}`;
  const peer = `${req.socket.remoteAddress ?? ''}:${req.socket.remotePort ?? ''}`;
  answerWith(req, res, failureOf(thrown, { what: where, peer, transport: 'HTTP' }, logger));
}

/** Writes a failure's status, headers and JSON body; a failure that closes the connection closes it. */
export function answerWith(
  req: IncomingMessage,
  res: ServerResponse,
  failure: Pick<Failure, 'http' | 'code' | 'grpc' | 'message' | 'headers'>,
): void {
  const text = JSON.stringify(failureBody(failure));
  res.writeHead(failure.http, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
    ...failure.headers,
  });
  res.end(text);
  if (failure.headers?.connection === 'close') res.once('finish', () => req.destroy());
}
