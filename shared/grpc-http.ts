// gRPC services over HTTP/JSON through the very handlers the gRPC server runs: a JSON body (proto3
// JSON mapping: lowerCamelCase or original field names, enums by name, 64-bit integers as strings)
// is checked against the .proto, encoded, and decoded by the method's own requestDeserialize, so the
// handler receives exactly what a gRPC call would give it; its reply goes through responseSerialize
// and back to JSON. A failure's gRPC status becomes an HTTP status through ERROR_TABLE.
import path from 'node:path';
import { Metadata, type ServerUnaryCall, type ServiceDefinition, type sendUnaryData } from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { ERROR_TABLE, type ErrorCode, invalidArgument, notFound } from './errors.ts';
import { callForHandler, type GrpcServiceRegistration, PROTO_ROOT } from './grpc.ts';

/** What a call gave: the HTTP status and the JSON body to send. */
export interface GrpcJsonAnswer {
  readonly status: number;
  readonly body: unknown;
}

export interface GrpcJsonCall {
  /** `/<service>/<method>`, as gRPC's own path. */
  readonly path: string;
  /** The request body, already parsed from JSON (null/undefined = empty message). */
  readonly body: unknown;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly peer: string;
  readonly deadline?: number;
  readonly cancelled?: () => boolean;
}

export interface GrpcJsonGateway {
  /** Every `/<service>/<method>` it answers. */
  readonly paths: readonly string[];
  has(path: string): boolean;
  call(call: GrpcJsonCall): Promise<GrpcJsonAnswer>;
}

/** The ErrorCode of a gRPC status, from the one table (each status appears once). */
const CODE_OF_GRPC: ReadonlyMap<number, ErrorCode> = new Map(
  (Object.entries(ERROR_TABLE) as [ErrorCode, (typeof ERROR_TABLE)[ErrorCode]][]).map(([code, m]) => [
    m.grpc,
    code,
  ]),
);

/** The HTTP answer for an error a handler (or the JSON decoding) gave. */
export function errorAnswer(code: ErrorCode, message: string): GrpcJsonAnswer {
  return {
    status: ERROR_TABLE[code].http,
    body: { error: { code, grpcCode: ERROR_TABLE[code].grpc, message } },
  };
}

export function createGrpcJsonGateway(options: {
  readonly protoFiles: readonly string[];
  /** The registrations the gRPC server hosts; each service's name comes from its methods' paths. */
  readonly services: readonly GrpcServiceRegistration[];
}): GrpcJsonGateway {
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
    readonly definition: ServiceDefinition[string];
    readonly handler: (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void;
  }
  const routes = new Map<string, Route>();
  for (const service of options.services) {
    for (const [methodName, definition] of Object.entries(service.definition)) {
      if (definition.requestStream || definition.responseStream) continue;
      const proto = root.lookupService(definition.path.split('/')[1]!);
      const method = proto.methods[methodName];
      const handler = service.implementation[methodName];
      if (!method || typeof handler !== 'function') continue;
      routes.set(definition.path, {
        requestType: root.lookupType(method.requestType),
        responseType: root.lookupType(method.responseType),
        definition,
        handler: handler as Route['handler'],
      });
    }
  }

  const call = async (input: GrpcJsonCall): Promise<GrpcJsonAnswer> => {
    const route = routes.get(input.path);
    if (!route) return errorAnswer('NOT_FOUND', notFound(`no method ${input.path}`).message);
    let request: unknown;
    try {
      const plain = fromJson(route.requestType, input.body ?? {}, '');
      const bytes = route.requestType.encode(route.requestType.fromObject(plain)).finish();
      request = route.definition.requestDeserialize(Buffer.from(bytes));
    } catch (error) {
      return errorAnswer('INVALID_ARGUMENT', (error as Error).message);
    }
    const metadata = new Metadata();
    for (const [key, value] of Object.entries(input.metadata ?? {})) metadata.set(key, value);
    const pseudoCall = callForHandler({
      request,
      metadata,
      peer: input.peer,
      deadline: input.deadline ?? Number.POSITIVE_INFINITY,
      cancelled: () => input.cancelled?.() ?? false,
    });
    return new Promise<GrpcJsonAnswer>((resolve) => {
      route.handler(pseudoCall, (error, reply) => {
        if (error) {
          const code = CODE_OF_GRPC.get(error.code ?? 2) ?? 'UNKNOWN';
          resolve(errorAnswer(code, error.details ?? ''));
          return;
        }
        const bytes = route.definition.responseSerialize(reply);
        resolve({ status: 200, body: toJson(route.responseType, route.responseType.decode(bytes)) });
      });
    });
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
