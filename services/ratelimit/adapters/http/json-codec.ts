// POST /json: the request in the proto3 JSON mapping, parsed as strictly as Go's protojson
// (unknown fields, wrong types and bad JSON are errors; both the JSON and the proto field names
// are accepted), and the response as protojson writes it (camelCase, enums by name, defaults left
// out, durations as "58s").
import { AppError } from '../../../../shared/errors.ts';
import type { Decision, DescriptorStatus } from '../../domain/decision.ts';
import type { WireDescriptor, WireEntry, WireRequest } from '../grpc/wire.ts';

const UINT32_MAX = 4_294_967_295;
const UNIT_NUMBERS: Readonly<Record<number, string>> = {
  0: 'UNKNOWN',
  1: 'SECOND',
  2: 'MINUTE',
  3: 'HOUR',
  4: 'DAY',
  5: 'MONTH',
  6: 'YEAR',
};

const bad = (message: string): AppError => new AppError('INVALID_ARGUMENT', `invalid /json body: ${message}`);

type Json = Record<string, unknown>;

function object(value: unknown, where: string): Json | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw bad(`${where} must be an object`);
  return value as Json;
}

/** Reads the fields of `json`, each under its JSON or proto name; anything else is an error. */
function fields(json: Json, where: string, names: Readonly<Record<string, string>>): Json {
  const out: Json = {};
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(json)) {
    const field = names[name];
    if (field === undefined) throw bad(`unknown field ${JSON.stringify(name)} in ${where}`);
    // One field under its JSON and its proto name is a duplicate to protojson, null or not.
    if (seen.has(field)) throw bad(`duplicate field ${JSON.stringify(name)} in ${where}`);
    seen.add(field);
    if (value !== null) out[field] = value;
  }
  return out;
}

function string(value: unknown, where: string): string {
  if (value === undefined) return '';
  if (typeof value !== 'string') throw bad(`${where} must be a string`);
  return value;
}

function unsigned(value: unknown, where: string, max: number): number {
  if (value === undefined) return 0;
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > max)
    throw bad(`${where} must be an unsigned integer up to ${max}`);
  return n;
}

function list(value: unknown, where: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw bad(`${where} must be a list`);
  return value;
}

/** A list's element: null is not a message there (protojson accepts null for a field, not for an element). */
const element = (value: unknown, where: string): Json =>
  object(value, where) ?? fail(`${where} must be an object`);

function entry(value: unknown, where: string): WireEntry {
  const json = fields(element(value, where), where, { key: 'key', value: 'value' });
  return { key: string(json.key, `${where}.key`), value: string(json.value, `${where}.value`) };
}

function descriptor(value: unknown, where: string): WireDescriptor {
  const json = fields(element(value, where), where, {
    entries: 'entries',
    limit: 'limit',
    hitsAddend: 'hitsAddend',
    hits_addend: 'hitsAddend',
  });
  let limit: WireDescriptor['limit'] = null;
  const limitJson = object(json.limit, `${where}.limit`);
  if (limitJson !== undefined) {
    const l = fields(limitJson, `${where}.limit`, {
      requestsPerUnit: 'requestsPerUnit',
      requests_per_unit: 'requestsPerUnit',
      unit: 'unit',
    });
    let unit = l.unit ?? 'UNKNOWN';
    if (typeof unit === 'number') unit = UNIT_NUMBERS[unit] ?? unit;
    if (typeof unit !== 'string' || !Object.values(UNIT_NUMBERS).includes(unit))
      throw bad(`${where}.limit.unit must be a RateLimitUnit name`);
    limit = {
      requests_per_unit: unsigned(l.requestsPerUnit, `${where}.limit.requestsPerUnit`, UINT32_MAX),
      unit,
    };
  }
  return {
    entries: list(json.entries, `${where}.entries`).map((e, i) => entry(e, `${where}.entries[${i}]`)),
    limit,
    hits_addend:
      json.hitsAddend === undefined
        ? null
        : { value: unsigned(json.hitsAddend, `${where}.hitsAddend`, Number.MAX_SAFE_INTEGER) },
  };
}

/** The request in a /json body; INVALID_ARGUMENT naming the problem when it is not one. */
export function parseJsonRequest(body: string): WireRequest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    throw bad((error as Error).message);
  }
  const json = fields(object(parsed, 'the body') ?? fail('the body must be an object'), 'the body', {
    domain: 'domain',
    descriptors: 'descriptors',
    hitsAddend: 'hitsAddend',
    hits_addend: 'hitsAddend',
  });
  return {
    domain: string(json.domain, 'domain'),
    descriptors: list(json.descriptors, 'descriptors').map((d, i) => descriptor(d, `descriptors[${i}]`)),
    hits_addend: unsigned(json.hitsAddend, 'hitsAddend', UINT32_MAX),
  };
}

function fail(message: string): never {
  throw bad(message);
}

function statusJson(status: DescriptorStatus): string {
  let out = `{"code":"${status.code}"`;
  const limit = status.currentLimit;
  if (limit !== undefined) {
    out += ',"currentLimit":{';
    if (limit.name !== '') out += `"name":${JSON.stringify(limit.name)},`;
    // protojson leaves out zero values: a 0 limit has no requestsPerUnit.
    if (limit.requestsPerUnit !== 0) out += `"requestsPerUnit":${limit.requestsPerUnit},`;
    out += `"unit":"${limit.unit}"}`;
  }
  if (status.limitRemaining !== 0) out += `,"limitRemaining":${status.limitRemaining}`;
  if (status.secondsUntilReset !== undefined) out += `,"durationUntilReset":"${status.secondsUntilReset}s"`;
  return `${out}}`;
}

/** The response as protojson.Marshal writes it. */
export function toJsonResponse(decision: Decision): string {
  let out = `{"overallCode":"${decision.overallCode}"`;
  if (decision.statuses.length > 0) out += `,"statuses":[${decision.statuses.map(statusJson).join(',')}]`;
  if (decision.headers.length > 0) out += `,"responseHeadersToAdd":${JSON.stringify(decision.headers)}`;
  // protojson writes a Struct as the JSON object it holds.
  if (decision.dynamicMetadata !== undefined)
    out += `,"dynamicMetadata":${JSON.stringify(decision.dynamicMetadata)}`;
  return `${out}}`;
}
