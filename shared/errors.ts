import type { status as GrpcStatus } from '@grpc/grpc-js';

/**
 * The gRPC status codes of the table (grpc/doc/statuscodes.md) as numbers: a process that serves
 * no grpc-js server (the rate limiter's decision threads) does not load grpc-js for them.
 */
const GRPC = {
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const satisfies Record<string, GrpcStatus>;

/** What a failure means to a caller; stable, so clients and dashboards can rely on it. */
export type ErrorCode =
  | 'INVALID_ARGUMENT'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'FAILED_PRECONDITION'
  | 'RESOURCE_EXHAUSTED'
  | 'DEADLINE_EXCEEDED'
  | 'UNAVAILABLE'
  | 'UNIMPLEMENTED'
  | 'INTERNAL'
  /** For wire compatibility with a system that answers gRPC UNKNOWN (envoyproxy/ratelimit does). */
  | 'UNKNOWN';

export interface ErrorMapping {
  readonly grpc: GrpcStatus;
  readonly http: number;
  /** Whether doing the same thing again may succeed (workers retry, then dead-letter otherwise). */
  readonly retriable: boolean;
}

/** The one table from error code to gRPC status, HTTP status and consumer action. */
export const ERROR_TABLE: Readonly<Record<ErrorCode, ErrorMapping>> = Object.freeze({
  INVALID_ARGUMENT: { grpc: GRPC.INVALID_ARGUMENT, http: 400, retriable: false },
  NOT_FOUND: { grpc: GRPC.NOT_FOUND, http: 404, retriable: false },
  ALREADY_EXISTS: { grpc: GRPC.ALREADY_EXISTS, http: 409, retriable: false },
  FAILED_PRECONDITION: { grpc: GRPC.FAILED_PRECONDITION, http: 412, retriable: false },
  RESOURCE_EXHAUSTED: { grpc: GRPC.RESOURCE_EXHAUSTED, http: 429, retriable: true },
  DEADLINE_EXCEEDED: { grpc: GRPC.DEADLINE_EXCEEDED, http: 504, retriable: true },
  UNAVAILABLE: { grpc: GRPC.UNAVAILABLE, http: 503, retriable: true },
  UNIMPLEMENTED: { grpc: GRPC.UNIMPLEMENTED, http: 501, retriable: false },
  INTERNAL: { grpc: GRPC.INTERNAL, http: 500, retriable: false },
  UNKNOWN: { grpc: GRPC.UNKNOWN, http: 400, retriable: false },
});

export interface AppErrorOptions {
  readonly cause?: unknown;
  /** Overrides the table's default, e.g. an INTERNAL failure known to be transient. */
  readonly retriable?: boolean;
  /** Overrides the table's HTTP status where HTTP says more (413 for a body too large). */
  readonly http?: number;
  /** HTTP headers the answer carries (a body too large closes the connection). */
  readonly headers?: Readonly<Record<string, string>>;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly retriable: boolean;
  readonly headers: Readonly<Record<string, string>> | undefined;
  readonly #http: number | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.retriable = options.retriable ?? ERROR_TABLE[code].retriable;
    this.headers = options.headers;
    this.#http = options.http;
  }

  get grpcStatus(): GrpcStatus {
    return ERROR_TABLE[this.code].grpc;
  }

  get httpStatus(): number {
    return this.#http ?? ERROR_TABLE[this.code].http;
  }
}

export const invalidArgument = (message: string, cause?: unknown): AppError =>
  new AppError('INVALID_ARGUMENT', message, { cause });
export const notFound = (message: string): AppError => new AppError('NOT_FOUND', message);
export const unavailable = (message: string, cause?: unknown): AppError =>
  new AppError('UNAVAILABLE', message, { cause });
export const internal = (message: string, cause?: unknown): AppError =>
  new AppError('INTERNAL', message, { cause });

/**
 * Any thrown value as an AppError. Unknown errors are INTERNAL; programming errors (TypeError,
 * RangeError, ...) are never retriable. Errors from clients that say they are retriable (kafkajs
 * sets `retriable`) keep that, as UNAVAILABLE.
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof Error) {
    const programming =
      error instanceof TypeError || error instanceof RangeError || error instanceof SyntaxError;
    const saysRetriable = (error as { retriable?: unknown }).retriable === true;
    if (!programming && saysRetriable) return new AppError('UNAVAILABLE', error.message, { cause: error });
    return new AppError('INTERNAL', error.message, { cause: error, retriable: false });
  }
  return new AppError('INTERNAL', describeThrown(error), { retriable: false });
}

/** `String(value)`, except it cannot throw (it does for `Object.create(null)` or a throwing `toString`). */
function describeThrown(value: unknown): string {
  try {
    return String(value);
  } catch {
    return `non-error value of type ${typeof value}`;
  }
}

/**
 * Whether a failure is the service's own (a store or Kafka outage, a bug) rather than the caller's
 * mistake: these are logged at warn or error, the caller's at info. UNKNOWN is both in the rate
 * limit protocol (the reference answers a Redis outage and an empty descriptor list alike), so
 * there the error's retriability tells them apart.
 */
export function causedByService(error: AppError): boolean {
  switch (error.code) {
    case 'INTERNAL':
    case 'UNAVAILABLE':
    case 'DEADLINE_EXCEEDED':
      return true;
    case 'UNKNOWN':
      return error.retriable;
    default:
      return false;
  }
}
