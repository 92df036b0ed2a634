// The one failure policy of every transport: what a handler (or a decoder) threw becomes an error
// code, its gRPC and HTTP statuses from the one table, the message the caller sees, and one log
// line: the service's own failures at error with the stack, the caller's mistakes at info.
import { AppError, causedByService, ERROR_TABLE, type ErrorCode, toAppError } from '../errors.ts';
import type { Logger } from '../logger.ts';

export interface Failure {
  readonly code: ErrorCode;
  readonly grpc: number;
  readonly http: number;
  /** What the caller is told; an unexpected error's own text stays in the log. */
  readonly message: string;
  /** HTTP headers the failure asks for (a body too large closes the connection). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Bytes a method's decoder could not read: INTERNAL, as gRPC servers answer an unparsable message. */
export class DecodeError extends AppError {
  constructor(cause: unknown) {
    super('INTERNAL', `Error parsing request: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'DecodeError';
  }
}

/**
 * What a request that could not be decoded is answered: a codec's own AppError (a field checked as
 * it is read, e.g. INVALID_ARGUMENT for an override unit) as it is, anything else as gRPC's
 * "Error parsing request" (INTERNAL).
 */
export function decodeFailure(error: unknown): AppError {
  return error instanceof AppError ? error : new DecodeError(error);
}

/** Where a failure happened, for its log line. */
export interface FailureSite {
  /** The method (`Service.Method`) or route. */
  readonly what: string;
  readonly peer?: string;
  /** `gRPC` or `HTTP`: the log line's first word. */
  readonly transport: 'gRPC' | 'HTTP';
}

export function failureOf(thrown: unknown, site: FailureSite, logger: Logger): Failure {
  const error = toAppError(thrown);
  const known = thrown instanceof AppError;
  // An unreadable request is the caller's mistake, though gRPC answers it INTERNAL.
  const callers = thrown instanceof DecodeError || (known && !causedByService(error));
  const fields = {
    method: site.what,
    code: error.code,
    ...(site.peer ? { peer: site.peer } : {}),
    err: thrown,
  };
  if (!callers) logger.error(fields, `${site.transport} ${site.what} failed`);
  else logger.info(fields, `${site.transport} ${site.what} rejected the request: ${error.message}`);
  return {
    code: error.code,
    grpc: ERROR_TABLE[error.code].grpc,
    http: error.httpStatus,
    message: !known && error.code === 'INTERNAL' ? 'internal error' : error.message,
    ...(error.headers ? { headers: error.headers } : {}),
  };
}

/** The JSON body of a failure, as the HTTP side answers every one. */
export const failureBody = (failure: Pick<Failure, 'code' | 'grpc' | 'message'>) => ({
  error: { code: failure.code, grpcCode: failure.grpc, message: failure.message },
});
