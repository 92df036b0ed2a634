// POST /json's reader (services/ratelimit/adapters/http/json-codec.ts) against protobufjs: a body in
// the proto3 JSON mapping is turned into the protobufjs object it stands for (field found by its
// proto or JSON name through protobufjs's reflection, a wrapper's bare value wrapped, null as
// absent), encoded by protobufjs and decoded by proto-loader into the gRPC path's request. Whenever
// ours reads a body, it reads that request; ours is stricter than protobufjs's fromObject (a number
// for a string is an error), so an error on ours alone is not a finding.
import protobuf from 'protobufjs';
import { parseJsonRequest } from '../../../services/ratelimit/adapters/http/json-codec.ts';
import { canonical, check, type FuzzTarget, integer, mutate, pick, type Rng, text } from '../fuzz-core.ts';
import { rlsMethod, rlsRequestType } from './rls-oracle.ts';

const method = rlsMethod;
const requestType = rlsRequestType;

const UNITS = ['UNKNOWN', 'SECOND', 'MINUTE', 'HOUR', 'DAY', 'MONTH', 'YEAR'];
const name = (rng: Rng, proto: string, json: string): string => (rng.int(2) === 0 ? proto : json);
const unsigned = (rng: Rng): unknown => (rng.int(4) === 0 ? String(integer(rng)) : integer(rng));

function randomBody(rng: Rng): unknown {
  const descriptor = (): Record<string, unknown> => ({
    ...(rng.int(5) > 0
      ? { entries: Array.from({ length: rng.int(3) }, () => ({ key: text(rng, 6), value: text(rng, 6) })) }
      : {}),
    ...(rng.int(3) === 0
      ? {
          limit: {
            [name(rng, 'requests_per_unit', 'requestsPerUnit')]: unsigned(rng),
            unit: rng.int(4) === 0 ? rng.int(8) : pick(rng, UNITS),
          },
        }
      : {}),
    ...(rng.int(3) === 0 ? { [name(rng, 'hits_addend', 'hitsAddend')]: unsigned(rng) } : {}),
  });
  return {
    ...(rng.int(5) > 0 ? { domain: text(rng, 10) } : {}),
    ...(rng.int(5) > 0 ? { descriptors: Array.from({ length: rng.int(4) }, descriptor) } : {}),
    ...(rng.int(3) === 0 ? { [name(rng, 'hits_addend', 'hitsAddend')]: unsigned(rng) } : {}),
  };
}

const ODD_VALUES: unknown[] = [null, true, -1, 1.5, 2 ** 32, 2 ** 53, '007', '', 'x', [], {}, '-1', 1e3];

/** One value somewhere in `value` replaced, or a key added or renamed. */
function changed(rng: Rng, value: unknown): unknown {
  if (Array.isArray(value)) {
    if (value.length === 0 || rng.int(4) === 0) return pick(rng, ODD_VALUES);
    const at = rng.int(value.length);
    return value.map((v, i) => (i === at ? changed(rng, v) : v));
  }
  if (typeof value !== 'object' || value === null || rng.int(5) === 0) return pick(rng, ODD_VALUES);
  const entries = Object.entries(value);
  const roll = rng.int(4);
  if (roll === 0 || entries.length === 0)
    return {
      ...value,
      [pick(rng, ['unknown', 'hitsAddend', 'hits_addend', 'limit', 'Domain'])]: pick(rng, ODD_VALUES),
    };
  const at = rng.int(entries.length);
  return Object.fromEntries(
    entries.map(([k, v], i) =>
      i === at ? (roll === 1 ? [k, pick(rng, ODD_VALUES)] : [k, changed(rng, v)]) : [k, v],
    ),
  );
}

/** The protobufjs object a proto3 JSON value stands for; throws where protojson would refuse it. */
function fromProtoJson(json: unknown, type: protobuf.Type): Record<string, unknown> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error('not an object');
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) {
    const field = type.fieldsArray.find((f) => f.name === key || protobuf.util.camelCase(f.name) === key);
    if (field === undefined) throw new Error(`unknown field ${key}`);
    if (field.name in out) throw new Error(`${key} twice`);
    if (value === null) continue;
    if (!field.resolved) field.resolve();
    const nested = field.resolvedType;
    const one = (v: unknown): unknown => {
      if (!(nested instanceof protobuf.Type)) return v;
      if (nested.fullName.startsWith('.google.protobuf.') && nested.fullName.endsWith('Value'))
        return { value: v };
      return fromProtoJson(v, nested);
    };
    if (field.repeated) {
      if (!Array.isArray(value)) throw new Error(`${key} is not a list`);
      out[field.name] = value.map(one);
    } else out[field.name] = one(value);
  }
  return out;
}

interface Descriptor {
  entries: unknown[];
  limit: unknown;
  hits_addend: { value: unknown } | null;
}

/** What proto-loader gives, with the wrapper's uint64 (a string) as the number ours gives. */
function reference(body: string): unknown {
  const object = fromProtoJson(JSON.parse(body), requestType);
  const bytes = requestType.encode(requestType.fromObject(object)).finish();
  const request = method.requestDeserialize(Buffer.from(bytes)) as { descriptors: Descriptor[] };
  for (const d of request.descriptors)
    if (d.hits_addend !== null) d.hits_addend = { value: Number(d.hits_addend.value) };
  return request;
}

/** Key order aside (the request is read by name). */
const sortedKeys = (value: unknown): string =>
  canonical(
    JSON.parse(JSON.stringify(value), (_, v: unknown) =>
      typeof v === 'object' && v !== null && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
        : v,
    ),
  );

export function compareJsonRequest(body: string): string | undefined {
  let ours: unknown;
  try {
    ours = parseJsonRequest(body);
  } catch (error) {
    if ((error as { code?: string }).code === 'INVALID_ARGUMENT') return undefined;
    throw error;
  }
  let expected: unknown;
  try {
    expected = reference(body);
  } catch (error) {
    return `ours read ${canonical(ours)} where the reference refuses it (${(error as Error).message})`;
  }
  return sortedKeys(ours) === sortedKeys(expected)
    ? undefined
    : `ours ${sortedKeys(ours)}, protobufjs ${sortedKeys(expected)}`;
}

export const jsonRequestTarget: FuzzTarget = {
  name: 'json-request',
  oracle: 'protobufjs fromObject + encode, proto-loader decode',
  run(rng, count, found) {
    for (let i = 0; i < count; i++) {
      const value = rng.int(3) === 0 ? changed(rng, randomBody(rng)) : randomBody(rng);
      let body = JSON.stringify(value);
      if (rng.int(10) === 0) body = mutate(rng, Buffer.from(body)).toString('utf8');
      check(
        found,
        () => JSON.stringify(body),
        () => compareJsonRequest(body),
      );
    }
  },
};
