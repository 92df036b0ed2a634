// gRPC services over HTTP/JSON through the very handlers the gRPC server runs (the handler
// contract, shared/rpc/contract.ts): a JSON body (proto3 JSON mapping: lowerCamelCase or original
// field names, enums by name, 64-bit integers as strings) is checked against the .proto, encoded,
// and decoded by the method's own decoder, so the handler receives exactly what a gRPC call would
// give it; its reply goes through the method's encoder and back to JSON. A failure becomes its HTTP
// status through the one failure policy (shared/rpc/failure.ts).
import path from 'node:path';
import protobuf from 'protobufjs';
import { invalidArgument, notFound } from './errors.ts';
import { PROTO_ROOT } from './grpc.ts';
import type { Logger } from './logger.ts';
import { correlationIdOf, type HandlerContext, type RpcService, type UnaryMethod } from './rpc/contract.ts';
import { type Failure, failureBody, failureOf } from './rpc/failure.ts';

/** What a call gave: the HTTP status and the JSON body to send. */
export interface GrpcJsonAnswer {
  readonly status: number;
  readonly body: unknown;
  /** Why, when the call failed. */
  readonly failure?: Failure;
}

export interface GrpcJsonCall {
  /** `/<service>/<method>`, as gRPC's own path. */
  readonly path: string;
  /** The request body, already parsed from JSON (null/undefined = empty message). */
  readonly body: unknown;
  readonly metadata?: Readonly<Record<string, string | undefined>>;
  readonly peer: string;
  readonly deadline?: number;
  /** Aborted when the HTTP caller goes away. */
  readonly signal?: AbortSignal;
}

export interface GrpcJsonGateway {
  /** Every `/<service>/<method>` it answers. */
  readonly paths: readonly string[];
  has(path: string): boolean;
  call(call: GrpcJsonCall): Promise<GrpcJsonAnswer>;
}

/** The HTTP answer of a failure. */
export const failureAnswer = (failure: Failure): GrpcJsonAnswer => ({
  status: failure.http,
  body: failureBody(failure),
  failure,
});

const NEVER_ABORTED = new AbortController().signal;

export function createGrpcJsonGateway(options: {
  readonly protoFiles: readonly string[];
  /** The services the gRPC server hosts. */
  readonly services: readonly RpcService[];
  readonly logger: Logger;
}): GrpcJsonGateway {
  const { logger } = options;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.resolve(PROTO_ROOT, target);
  root.loadSync(
    options.protoFiles.map((f) => path.resolve(PROTO_ROOT, f)),
    { keepCase: true },
  );
  root.resolveAll();

  interface Route {
    readonly requestType: protobuf.Type;
    readonly responseType: protobuf.Type;
    readonly method: UnaryMethod<unknown, unknown>;
  }
  const routes = new Map<string, Route>();
  for (const service of options.services) {
    for (const method of service.unary) {
      const [, serviceName, methodName] = method.path.split('/');
      const proto = root.lookup(serviceName!);
      if (!(proto instanceof protobuf.Service)) continue;
      const rpc = proto.methods[methodName!];
      if (!rpc) continue;
      routes.set(method.path, {
        requestType: root.lookupType(rpc.requestType),
        responseType: root.lookupType(rpc.responseType),
        method,
      });
    }
  }

  const call = async (input: GrpcJsonCall): Promise<GrpcJsonAnswer> => {
    const site = { what: input.path, peer: input.peer, transport: 'HTTP' } as const;
    const route = routes.get(input.path);
    if (!route) return failureAnswer(failureOf(notFound(`no method ${input.path}`), site, logger));
    let request: unknown;
    try {
      const plain = fromJson(route.requestType, input.body ?? {}, '');
      const bytes = Buffer.from(route.requestType.encode(route.requestType.fromObject(plain)).finish());
      request = route.method.decode(bytes);
    } catch (error) {
      // The body is the caller's: whatever it makes fail on the way in is theirs to mend.
      return failureAnswer(failureOf(invalidArgument((error as Error).message, error), site, logger));
    }
    const metadata = input.metadata ?? {};
    const context: HandlerContext = {
      path: input.path,
      metadata,
      peer: input.peer,
      deadline: input.deadline,
      signal: input.signal ?? NEVER_ABORTED,
      correlationId: correlationIdOf(metadata),
    };
    try {
      const reply = await route.method.handle(request, context);
      const bytes = route.method.encode(reply, 0);
      return { status: 200, body: toJson(route.responseType, route.responseType.decode(bytes)) };
    } catch (error) {
      return failureAnswer(failureOf(error, site, logger));
    }
  };

  return {
    paths: [...routes.keys()],
    has: (p) => routes.has(p),
    call,
  };
}

/** proto3 JSON name of a field: `trial_name` → `trialName`. */
export const jsonName = (name: string): string =>
  name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

const INT32 = new Set(['int32', 'sint32', 'sfixed32', 'uint32', 'fixed32']);
const INT64 = new Set(['int64', 'sint64', 'sfixed64', 'uint64', 'fixed64']);

const describe = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : `${typeof value} ${JSON.stringify(value)}`;

/** Checks a JSON value against a message type; a plain object `Type.fromObject` takes, or INVALID_ARGUMENT naming the field. */
function fromJson(type: protobuf.Type, value: unknown, at: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalidArgument(`${at || 'body'}: must be a JSON object (${type.name}), got ${describe(value)}`);
  const byName = new Map<string, protobuf.Field>();
  for (const field of type.fieldsArray) {
    byName.set(field.name, field);
    byName.set(jsonName(field.name), field);
  }
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(value)) {
    const field = byName.get(key);
    const where = at ? `${at}.${key}` : key;
    if (!field) throw invalidArgument(`${where}: no such field in ${type.fullName.slice(1)}`);
    if (raw === null) continue;
    if (field.map) {
      if (typeof raw !== 'object' || Array.isArray(raw))
        throw invalidArgument(`${where}: must be a JSON object (map), got ${describe(raw)}`);
      const map: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(raw as object))
        map[k] = fieldValue(field, v, `${where}[${JSON.stringify(k)}]`);
      out[field.name] = map;
    } else if (field.repeated) {
      if (!Array.isArray(raw)) throw invalidArgument(`${where}: must be an array, got ${describe(raw)}`);
      out[field.name] = raw.map((v, i) => fieldValue(field, v, `${where}[${i}]`));
    } else {
      out[field.name] = fieldValue(field, raw, where);
    }
  }
  return out;
}

function fieldValue(field: protobuf.Field, raw: unknown, where: string): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) return fromJson(resolved, raw, where);
  if (resolved instanceof protobuf.Enum) {
    if (typeof raw === 'string' && raw in resolved.values) return resolved.values[raw];
    if (typeof raw === 'number' && Number.isInteger(raw)) return raw;
    throw invalidArgument(
      `${where}: must be one of ${Object.keys(resolved.values).join(', ')}, got ${describe(raw)}`,
    );
  }
  const type = field.type;
  if (type === 'string') {
    if (typeof raw !== 'string') throw invalidArgument(`${where}: must be a string, got ${describe(raw)}`);
    return raw;
  }
  if (type === 'bool') {
    if (typeof raw !== 'boolean')
      throw invalidArgument(`${where}: must be true or false, got ${describe(raw)}`);
    return raw;
  }
  if (INT32.has(type) || INT64.has(type)) {
    const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw : '';
    const unsigned = type.startsWith('u') || type === 'fixed32' || type === 'fixed64';
    if (!/^-?\d+$/.test(text) || (unsigned && text.startsWith('-')))
      throw invalidArgument(`${where}: must be an integer (${type}), got ${describe(raw)}`);
    if (INT32.has(type)) {
      const n = Number(text);
      const [min, max] = unsigned ? [0, 2 ** 32 - 1] : [-(2 ** 31), 2 ** 31 - 1];
      if (n < min || n > max) throw invalidArgument(`${where}: ${text} is out of range for ${type}`);
      return n;
    }
    const n = BigInt(text);
    const [min, max] = unsigned ? [0n, 2n ** 64n - 1n] : [-(2n ** 63n), 2n ** 63n - 1n];
    if (n < min || n > max) throw invalidArgument(`${where}: ${text} is out of range for ${type}`);
    return text;
  }
  if (type === 'double' || type === 'float') {
    if (typeof raw === 'number') return raw;
    if (raw === 'NaN' || raw === 'Infinity' || raw === '-Infinity') return Number(raw);
    if (typeof raw === 'string' && raw.trim() !== '' && Number.isFinite(Number(raw))) return Number(raw);
    throw invalidArgument(`${where}: must be a number, got ${describe(raw)}`);
  }
  if (type === 'bytes') {
    if (typeof raw !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(raw))
      throw invalidArgument(`${where}: must be base64 text, got ${describe(raw)}`);
    return raw;
  }
  throw invalidArgument(`${where}: unsupported field type ${type}`);
}

/** A decoded message as proto3 JSON: lowerCamelCase names, enums by name, 64-bit integers as strings, defaults included. */
function toJson(type: protobuf.Type, message: protobuf.Message): unknown {
  const plain = type.toObject(message, {
    longs: String,
    enums: String,
    bytes: String,
    defaults: true,
    arrays: true,
    objects: true,
  });
  return rename(type, plain);
}

function rename(type: protobuf.Type, plain: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const value = plain[field.name];
    if (value === undefined) continue;
    const nested = field.resolvedType instanceof protobuf.Type ? field.resolvedType : undefined;
    const convert = (v: unknown): unknown =>
      nested && v !== null && typeof v === 'object' ? rename(nested, v as Record<string, unknown>) : v;
    if (field.map)
      out[jsonName(field.name)] = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, convert(v)]),
      );
    else if (field.repeated) out[jsonName(field.name)] = (value as unknown[]).map(convert);
    else out[jsonName(field.name)] = convert(value);
  }
  return out;
}
