// The RLS request reader (rls-codec.ts over protobuf-wire.ts) against protobufjs through
// proto-loader, whose object the grpc-js path turned into the service's request (fromWireRequest):
// the same request, or the same INVALID_ARGUMENT message, or an error on both sides.
// Three kinds of input are not compared, where protobufjs departs from the encoding (and from Go's
// protobuf, which envoyproxy/ratelimit uses): a known field with another wire type, over-long
// 32-bit varints, and a singular message field seen twice, which protobufjs replaces and the
// encoding merges (protobufjsMisreads says which; fuzz-regressions.test.ts checks the merge).
import protobuf from 'protobufjs';
import { decodeRateLimitRequest } from '../../../services/ratelimit/adapters/grpc/rls-codec.ts';
import { fromWireRequest, type WireRequest } from '../../../services/ratelimit/adapters/grpc/wire.ts';
import { canonical, check, type FuzzTarget, outcome } from '../fuzz-core.ts';
import { randomMessage } from '../protobuf-random.ts';
import { rlsMethod, rlsRequestType } from './rls-oracle.ts';

const method = rlsMethod;
const requestType = rlsRequestType;

const wireTypeOf = (field: protobuf.Field): number => {
  if (field.resolvedType instanceof protobuf.Type || field.map) return 2;
  if (field.resolvedType instanceof protobuf.Enum) return 0;
  return (protobuf.types.basic as Record<string, number>)[field.type] ?? 2;
};

const THIRTY_TWO_BIT_VARINTS = new Set(['int32', 'uint32', 'sint32', 'bool']);

/** The length and value of the varint at `at` (length 11 when it runs past 10 bytes or the end). */
function varintAt(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 10 && at + i < bytes.length; i++) {
    value += (bytes[at + i]! & 0x7f) * 2 ** (7 * i);
    if (bytes[at + i]! < 0x80) return [i + 1, value];
  }
  return [11, value];
}

/** A 10-byte varint past 64 bits: Go refuses it, protobufjs keeps the low 64 bits. */
function over64Bits(bytes: Uint8Array, at: number): boolean {
  const [length] = varintAt(bytes, at);
  return length === 10 && bytes[at + 9]! > 1;
}

/**
 * Whether protobufjs reads these bytes other than the protobuf encoding says: a known field (at any
 * depth) sent with another wire type than its own (protobufjs reads it as its own type, Go skips
 * it); a tag, length or 32-bit field whose varint takes 6 to 9 or over 10 bytes (protobufjs's
 * Reader.uint32 reads 5 bytes and skips 5 more whatever they are); a length of 2^32 or more
 * (protobufjs keeps its low 32 bits); a varint past 64 bits. Throws where protobufjs's Reader cannot walk the bytes.
 */
export function protobufjsMisreads(bytes: Uint8Array, type: protobuf.Type | undefined): boolean {
  return walk(protobuf.Reader.create(bytes), bytes, type, false);
}

function walk(
  reader: protobuf.Reader,
  bytes: Uint8Array,
  type: protobuf.Type | undefined,
  group: boolean,
): boolean {
  const overLong = (): boolean => {
    const [length] = varintAt(bytes, reader.pos);
    return length > 5 && length !== 10;
  };
  // protobufjs replaces a singular message field seen twice; the encoding (and Go) merge them.
  const messagesSeen = new Set<number>();
  while (reader.pos < reader.len) {
    if (overLong() || over64Bits(bytes, reader.pos)) return true;
    const tag = reader.uint32();
    const wireType = tag & 7;
    if (wireType === 4) {
      if (group) return false;
      throw new Error('an end of group outside a group');
    }
    const field = type?.fieldsById[tag >>> 3];
    if (field !== undefined && !field.resolved) field.resolve();
    if (field !== undefined) {
      const own = wireTypeOf(field);
      const packed = field.repeated && own !== 2 && wireType === 2;
      if (wireType !== own && !packed) return true;
      const thirtyTwo = THIRTY_TWO_BIT_VARINTS.has(field.type) || field.resolvedType instanceof protobuf.Enum;
      if (wireType === 0 && thirtyTwo && overLong()) return true;
    }
    if (wireType === 0 && over64Bits(bytes, reader.pos)) return true;
    if (wireType === 2) {
      const [length, value] = varintAt(bytes, reader.pos);
      if ((length > 5 && length !== 10) || value >= 2 ** 32) return true;
      const body = reader.bytes();
      const nested = field?.resolvedType;
      if (nested instanceof protobuf.Type && !field!.repeated && !field!.map) {
        if (messagesSeen.has(field!.id)) return true;
        messagesSeen.add(field!.id);
      }
      if (
        nested instanceof protobuf.Type &&
        !field!.map &&
        walk(protobuf.Reader.create(body), body, nested, false)
      )
        return true;
    } else if (wireType === 3) {
      if (walk(reader, bytes, undefined, true)) return true;
    } else reader.skipType(wireType);
  }
  if (group) throw new Error('a group without its end');
  return false;
}

const notCompared = { count: 0 };
const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** undefined when both readers agree (or the input is not comparable), else what differs. */
export function compareRlsRequest(bytes: Buffer): string | undefined {
  const expected = outcome(() => fromWireRequest(method.requestDeserialize(bytes) as WireRequest));
  const ours = outcome(() => decodeRateLimitRequest(bytes));
  const misreads = outcome(() => protobufjsMisreads(bytes, requestType));
  if (!misreads.ok) {
    // protobufjs's Reader cannot walk the bytes: malformed, both must refuse them.
    return ours.ok ? `ours read malformed bytes as ${canonical(ours.value)}` : undefined;
  }
  if (misreads.value) {
    notCompared.count++;
    return undefined;
  }
  if (ours.ok && expected.ok) {
    const mine = canonical(ours.value);
    const theirs = canonical(expected.value);
    return mine === theirs ? undefined : `ours ${mine}, proto-loader ${theirs}`;
  }
  if (ours.ok)
    return `ours ${canonical(ours.value)}, proto-loader threw ${message(!expected.ok && expected.error)}`;
  if (expected.ok && /varint over 64 bits/.test(message(ours.error))) {
    // Go's protobuf (envoyproxy/ratelimit's) refuses such a varint as ours does; protobufjs drops the bits.
    notCompared.count++;
    return undefined;
  }
  if (expected.ok) return `ours threw ${message(ours.error)}, proto-loader ${canonical(expected.value)}`;
  const mine = ours.error as { code?: string };
  if (mine.code === 'INVALID_ARGUMENT' && message(ours.error) !== message(expected.error))
    return `ours said ${message(ours.error)}, the generic path ${message(expected.error)}`;
  return undefined;
}

export const rlsRequestTarget: FuzzTarget = {
  name: 'rls-request',
  oracle: 'protobufjs (proto-loader) decode + fromWireRequest',
  notCompared: () => notCompared.count,
  run(rng, count, found) {
    for (let i = 0; i < count; i++) {
      const bytes = randomMessage(rng, requestType);
      check(
        found,
        () => bytes.toString('hex'),
        () => compareRlsRequest(bytes),
      );
    }
  },
};
