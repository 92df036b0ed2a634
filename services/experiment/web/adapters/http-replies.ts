// What the HTTP listener's handlers share: JSON and CSV answers, the body and query readers, and
// the one place a failure becomes an answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  AppError,
  ERROR_TABLE,
  type ErrorCode,
  invalidArgument,
  toAppError,
} from '../../../../shared/errors.ts';
import { errorAnswer } from '../../../../shared/grpc-http.ts';
import type { Logger } from '../../../../shared/logger.ts';

export type Format = 'json' | 'csv';

/** The error code an HTTP-level refusal carries in its body, as gRPC-JSON gateways answer them. */
const HTTP_REFUSAL_CODES: Readonly<Record<number, ErrorCode>> = {
  405: 'UNIMPLEMENTED',
  413: 'RESOURCE_EXHAUSTED',
  415: 'INVALID_ARGUMENT',
};

/** A refusal that is about HTTP itself (method, media type, size) rather than the request's content. */
export class HttpReply extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly headers: Record<string, string>;
  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = HTTP_REFUSAL_CODES[status] ?? 'INVALID_ARGUMENT';
    this.headers = headers;
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

/** Answers a failed request: its own status for an HttpReply, the error table's otherwise. */
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
  if (thrown instanceof HttpReply) {
    const { code } = thrown;
    res.writeHead(thrown.status, {
      'content-type': 'application/json; charset=utf-8',
      ...thrown.headers,
    });
    res.end(JSON.stringify({ error: { code, grpcCode: ERROR_TABLE[code].grpc, message: thrown.message } }));
    if (thrown.headers.connection === 'close') res.once('finish', () => req.destroy());
    return;
  }
  const error = toAppError(thrown);
  const known = thrown instanceof AppError;
  if (!known || error.code === 'INTERNAL' || error.code === 'UNAVAILABLE')
    logger.error({ err: thrown, url: req.url }, 'HTTP request failed');
  const answer = errorAnswer(
    error.code,
    !known && error.code === 'INTERNAL' ? 'internal error' : error.message,
  );
  json(res, answer.status, answer.body);
}
