import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import {
  AppError,
  ERROR_TABLE,
  type ErrorCode,
  internal,
  invalidArgument,
  notFound,
  toAppError,
  unavailable,
} from '../../../shared/errors.ts';

const EXPECTED: ReadonlyArray<{ code: ErrorCode; grpc: status; http: number; retriable: boolean }> = [
  { code: 'INVALID_ARGUMENT', grpc: status.INVALID_ARGUMENT, http: 400, retriable: false },
  { code: 'NOT_FOUND', grpc: status.NOT_FOUND, http: 404, retriable: false },
  { code: 'ALREADY_EXISTS', grpc: status.ALREADY_EXISTS, http: 409, retriable: false },
  { code: 'FAILED_PRECONDITION', grpc: status.FAILED_PRECONDITION, http: 412, retriable: false },
  { code: 'RESOURCE_EXHAUSTED', grpc: status.RESOURCE_EXHAUSTED, http: 429, retriable: true },
  { code: 'DEADLINE_EXCEEDED', grpc: status.DEADLINE_EXCEEDED, http: 504, retriable: true },
  { code: 'UNAVAILABLE', grpc: status.UNAVAILABLE, http: 503, retriable: true },
  { code: 'UNIMPLEMENTED', grpc: status.UNIMPLEMENTED, http: 501, retriable: false },
  { code: 'INTERNAL', grpc: status.INTERNAL, http: 500, retriable: false },
  { code: 'UNKNOWN', grpc: status.UNKNOWN, http: 400, retriable: false },
];

describe('ERROR_TABLE', () => {
  it('has exactly the expected codes', () => {
    expect(Object.keys(ERROR_TABLE).sort()).toEqual(EXPECTED.map((e) => e.code).sort());
  });

  it('is frozen', () => {
    expect(Object.isFrozen(ERROR_TABLE)).toBe(true);
  });

  it.each(EXPECTED)(
    '$code → gRPC $grpc, HTTP $http, retriable $retriable',
    ({ code, grpc, http, retriable }) => {
      expect(ERROR_TABLE[code]).toEqual({ grpc, http, retriable });
    },
  );

  it('uses the gRPC status of the same name for every code', () => {
    for (const code of Object.keys(ERROR_TABLE) as ErrorCode[]) {
      expect(ERROR_TABLE[code].grpc).toBe(status[code]);
    }
  });
});

describe('AppError', () => {
  it.each(EXPECTED)(
    '$code carries the table’s statuses and default retriable',
    ({ code, grpc, http, retriable }) => {
      const error = new AppError(code, 'boom');
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe('AppError');
      expect(error.message).toBe('boom');
      expect(error.code).toBe(code);
      expect(error.grpcStatus).toBe(grpc);
      expect(error.httpStatus).toBe(http);
      expect(error.retriable).toBe(retriable);
      expect('cause' in error).toBe(false);
    },
  );

  it.each(EXPECTED)('$code: retriable can be overridden both ways', ({ code }) => {
    expect(new AppError(code, 'x', { retriable: true }).retriable).toBe(true);
    expect(new AppError(code, 'x', { retriable: false }).retriable).toBe(false);
  });

  it('keeps a cause when given, even a falsy one', () => {
    const cause = new Error('root');
    expect(new AppError('INTERNAL', 'wrapped', { cause }).cause).toBe(cause);
    const zero = new AppError('INTERNAL', 'wrapped', { cause: 0 });
    expect('cause' in zero).toBe(true);
    expect(zero.cause).toBe(0);
  });

  it('has no cause property when the cause is undefined', () => {
    expect('cause' in new AppError('INTERNAL', 'x', { cause: undefined })).toBe(false);
  });

  it('has a stack trace', () => {
    expect(new AppError('INTERNAL', 'x').stack).toContain('AppError: x');
  });
});

describe('helpers', () => {
  const cause = new Error('root');

  it.each([
    {
      name: 'invalidArgument',
      make: () => invalidArgument('m', cause),
      code: 'INVALID_ARGUMENT',
      hasCause: true,
    },
    {
      name: 'invalidArgument without cause',
      make: () => invalidArgument('m'),
      code: 'INVALID_ARGUMENT',
      hasCause: false,
    },
    { name: 'notFound', make: () => notFound('m'), code: 'NOT_FOUND', hasCause: false },
    { name: 'unavailable', make: () => unavailable('m', cause), code: 'UNAVAILABLE', hasCause: true },
    { name: 'unavailable without cause', make: () => unavailable('m'), code: 'UNAVAILABLE', hasCause: false },
    { name: 'internal', make: () => internal('m', cause), code: 'INTERNAL', hasCause: true },
    { name: 'internal without cause', make: () => internal('m'), code: 'INTERNAL', hasCause: false },
  ] as const)('$name gives $code', ({ make, code, hasCause }) => {
    const error = make();
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe(code);
    expect(error.message).toBe('m');
    expect(error.retriable).toBe(ERROR_TABLE[code].retriable);
    expect('cause' in error).toBe(hasCause);
    if (hasCause) expect(error.cause).toBe(cause);
  });
});

describe('toAppError', () => {
  it('returns an AppError as the same object', () => {
    const original = new AppError('NOT_FOUND', 'missing', { retriable: true });
    const result = toAppError(original);
    expect(result).toBe(original);
    expect(result.code).toBe('NOT_FOUND');
    expect(result.retriable).toBe(true);
  });

  it('makes a plain Error INTERNAL and not retriable, keeping it as the cause', () => {
    const error = new Error('disk on fire');
    const result = toAppError(error);
    expect(result).toBeInstanceOf(AppError);
    expect(result.code).toBe('INTERNAL');
    expect(result.message).toBe('disk on fire');
    expect(result.retriable).toBe(false);
    expect(result.cause).toBe(error);
    expect(result.grpcStatus).toBe(status.INTERNAL);
    expect(result.httpStatus).toBe(500);
  });

  it.each([
    { kind: 'TypeError', make: () => new TypeError('x is not a function') },
    { kind: 'RangeError', make: () => new RangeError('bad length') },
    { kind: 'SyntaxError', make: () => new SyntaxError('unexpected token') },
  ])('makes a $kind INTERNAL and not retriable even when it says retriable', ({ make }) => {
    const error = Object.assign(make(), { retriable: true });
    const result = toAppError(error);
    expect(result.code).toBe('INTERNAL');
    expect(result.retriable).toBe(false);
    expect(result.message).toBe(error.message);
    expect(result.cause).toBe(error);
  });

  it('treats a subclass of TypeError as a programming error too', () => {
    class OddTypeError extends TypeError {
      readonly retriable = true;
    }
    const result = toAppError(new OddTypeError('odd'));
    expect(result.code).toBe('INTERNAL');
    expect(result.retriable).toBe(false);
  });

  it('makes an Error with retriable: true (as kafkajs sets) UNAVAILABLE and retriable, keeping the cause', () => {
    class KafkaJSConnectionError extends Error {
      readonly retriable = true;
      constructor(message: string) {
        super(message);
        this.name = 'KafkaJSConnectionError';
      }
    }
    const error = new KafkaJSConnectionError('Connection error: ECONNREFUSED');
    const result = toAppError(error);
    expect(result.code).toBe('UNAVAILABLE');
    expect(result.retriable).toBe(true);
    expect(result.message).toBe('Connection error: ECONNREFUSED');
    expect(result.cause).toBe(error);
    expect(result.grpcStatus).toBe(status.UNAVAILABLE);
    expect(result.httpStatus).toBe(503);
  });

  it.each([
    { label: 'false', retriable: false },
    { label: 'the string "true"', retriable: 'true' },
    { label: '1', retriable: 1 },
  ])('only a boolean true counts: retriable $label stays INTERNAL', ({ retriable }) => {
    const result = toAppError(Object.assign(new Error('e'), { retriable }));
    expect(result.code).toBe('INTERNAL');
    expect(result.retriable).toBe(false);
  });

  it.each([
    { label: 'a string', value: 'plain failure', message: 'plain failure' },
    { label: 'a number', value: 42, message: '42' },
    { label: 'undefined', value: undefined, message: 'undefined' },
    { label: 'null', value: null, message: 'null' },
    { label: 'an object', value: { retriable: true }, message: '[object Object]' },
    { label: 'a symbol', value: Symbol('s'), message: 'Symbol(s)' },
    {
      label: 'an object with its own toString',
      value: { toString: () => 'custom text' },
      message: 'custom text',
    },
    // String() throws for these; toAppError must still give an AppError.
    {
      label: 'a null-prototype object',
      value: Object.create(null),
      message: 'non-error value of type object',
    },
    {
      label: 'an object whose toString throws',
      value: {
        toString: () => {
          throw new Error('no');
        },
      },
      message: 'non-error value of type object',
    },
  ])('makes $label INTERNAL and not retriable', ({ value, message }) => {
    const result = toAppError(value);
    expect(result).toBeInstanceOf(AppError);
    expect(result.code).toBe('INTERNAL');
    expect(result.retriable).toBe(false);
    expect(result.message).toBe(message);
  });
});
