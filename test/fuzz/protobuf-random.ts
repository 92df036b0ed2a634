// Random protobuf messages for the reader targets, made from the schema in proto/ by protobufjs's
// reflection (so no message layout is written here), encoded by protobufjs, then changed at the
// wire level (unknown fields, fields repeated, other wire types) and byte by byte.
import path from 'node:path';
import protobuf from 'protobufjs';
import { PROTO_ROOT } from '../../shared/grpc.ts';
import { bytes, integer, mutate, pick, type Rng, text } from './fuzz-core.ts';

/** The message type `fullName` of `file` (relative to proto/), loaded as proto-loader loads it. */
export function messageType(file: string, fullName: string): protobuf.Type {
  const root = new protobuf.Root();
  root.resolvePath = (_, target) => path.resolve(PROTO_ROOT, target);
  root.loadSync(file, { keepCase: true });
  return root.lookupType(fullName);
}

const INT32_EDGES = [0, 1, -1, 2 ** 31 - 1, -(2 ** 31), 300, -300];

function scalar(rng: Rng, type: string): unknown {
  switch (type) {
    case 'string':
      return text(rng);
    case 'bytes':
      return bytes(rng, rng.int(8));
    case 'bool':
      return rng.int(2) === 1;
    case 'double':
    case 'float':
      return pick(rng, [
        0,
        -0,
        1.5,
        -2.25,
        1e308,
        5e-324,
        Number.NaN,
        Number.POSITIVE_INFINITY,
        rng.normal() * 1e6,
      ]);
    case 'int32':
    case 'sint32':
    case 'sfixed32':
      return rng.int(2) === 0 ? pick(rng, INT32_EDGES) : rng.int(2 ** 32) - 2 ** 31;
    case 'uint32':
    case 'fixed32':
      return integer(rng, 2 ** 32 - 1);
    case 'int64':
    case 'sint64':
    case 'sfixed64':
      return pick(rng, ['0', '1', '-1', '9007199254740993', '-9223372036854775808', String(integer(rng))]);
    case 'uint64':
    case 'fixed64':
      return pick(rng, [
        '0',
        '1',
        '4294967296',
        '9007199254740993',
        '18446744073709551615',
        String(integer(rng)),
      ]);
    default:
      throw new Error(`no generator for ${type}`);
  }
}

function fieldValue(rng: Rng, field: protobuf.Field, depth: number): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Enum) {
    const names = Object.keys(resolved.values);
    return rng.int(8) === 0 ? rng.int(40) - 5 : pick(rng, names);
  }
  if (resolved instanceof protobuf.Type) return depth >= 3 ? {} : randomObject(rng, resolved, depth + 1);
  return scalar(rng, field.type);
}

/** A random plain object of `type` (fields left out at random, one member per oneof). */
export function randomObject(rng: Rng, type: protobuf.Type, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const oneofMembers = new Set<string>();
  for (const oneof of type.oneofsArray) {
    if (rng.int(2) === 0) oneofMembers.add(pick(rng, oneof.oneof));
    for (const name of oneof.oneof) if (!oneofMembers.has(name)) oneofMembers.add(`-${name}`);
  }
  for (const field of type.fieldsArray) {
    if (oneofMembers.has(`-${field.name}`) || rng.int(10) < 3) continue;
    if (!field.resolved) field.resolve();
    if (field.map) {
      const map: Record<string, unknown> = {};
      for (let n = rng.int(3); n > 0; n--) map[text(rng, 6)] = fieldValue(rng, field, depth);
      out[field.name] = map;
    } else if (field.repeated) {
      out[field.name] = Array.from({ length: rng.int(depth < 1 ? 4 : 3) }, () =>
        fieldValue(rng, field, depth),
      );
    } else out[field.name] = fieldValue(rng, field, depth);
  }
  return out;
}

export function encode(type: protobuf.Type, object: Record<string, unknown>): Buffer {
  return Buffer.from(type.encode(type.fromObject(object)).finish());
}

const varint = (value: number): Buffer => {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return Buffer.from(out);
};

/** One field of any wire type, well formed: a known field number with another wire type, or unknown. */
export function randomField(rng: Rng, number: number): Buffer {
  const wireType = pick(rng, [0, 1, 2, 5, 2, 0]);
  const tag = varint(number * 8 + wireType);
  if (wireType === 0) return Buffer.concat([tag, varint(integer(rng, 2 ** 53))]);
  if (wireType === 1) return Buffer.concat([tag, bytes(rng, 8)]);
  if (wireType === 5) return Buffer.concat([tag, bytes(rng, 4)]);
  const body = rng.int(3) === 0 ? bytes(rng, rng.int(12)) : Buffer.from(text(rng, 8));
  return Buffer.concat([tag, varint(body.length), body]);
}

/**
 * A message of `type` for a reader: `object` (a random one by default) encoded by protobufjs, then
 * changed (or not) at random.
 */
export function randomMessage(rng: Rng, type: protobuf.Type, object = randomObject(rng, type)): Buffer {
  let message = encode(type, object);
  const roll = rng.int(10);
  if (roll < 4) return message;
  if (roll < 6) {
    // Fields appended: unknown ones, known ones again or with another wire type.
    const parts = [message];
    for (let n = 1 + rng.int(3); n > 0; n--) {
      const known = type.fieldsArray.length > 0 && rng.int(2) === 0;
      parts.push(
        known
          ? rng.int(2) === 0
            ? encode(type, randomObject(rng, type))
            : randomField(rng, pick(rng, type.fieldsArray).id)
          : randomField(rng, 1 + rng.int(40)),
      );
    }
    message = Buffer.concat(parts);
    if (rng.int(2) === 0) return message;
  }
  return mutate(rng, message);
}
