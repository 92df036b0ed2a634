// The protobuf wire format, as much of it as the RLS and health messages need: a reader over one
// message's bytes and a writer that sizes nested messages before it writes them.

/** A malformed message (the caller answers INTERNAL, as gRPC servers do for undecodable requests). */
export class ProtobufError extends Error {}

export const WIRE = { varint: 0, fixed64: 1, bytes: 2, startGroup: 3, endGroup: 4, fixed32: 5 } as const;

export class ProtobufReader {
  readonly #bytes: Uint8Array;
  #at: number;
  readonly #end: number;

  constructor(bytes: Uint8Array, start = 0, end = bytes.length) {
    this.#bytes = bytes;
    this.#at = start;
    this.#end = end;
  }

  done(): boolean {
    return this.#at >= this.#end;
  }

  /** The next field's tag: field number * 8 + wire type, from the varint's low 32 bits (as protobufjs reads it). */
  tag(): number {
    return this.uint32();
  }

  /** A 32-bit varint field (uint32; `| 0` for int32 and enums): the low 32 bits of up to 10 bytes. */
  uint32(): number {
    let value = 0;
    for (let i = 0; i < 10; i++) {
      if (this.#at >= this.#end) throw new ProtobufError('truncated varint');
      const byte = this.#bytes[this.#at++]!;
      if (i === 9 && byte > 1) throw new ProtobufError('varint over 64 bits');
      if (i < 5) value |= (byte & 0x7f) << (7 * i);
      if (byte < 0x80) return value >>> 0;
    }
    throw new ProtobufError('varint longer than 10 bytes');
  }

  /**
   * A uint64 varint as a number: exact up to 2^53, and past it the nearest double to the exact
   * value (as `Number` of the decimal text proto-loader gives), not a sum rounded on the way.
   */
  varint(): number {
    const start = this.#at;
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.#at >= this.#end) throw new ProtobufError('truncated varint');
      const byte = this.#bytes[this.#at++]!;
      if (i === 9 && byte > 1) throw new ProtobufError('varint over 64 bits');
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value <= Number.MAX_SAFE_INTEGER ? value : this.#exact(start);
      scale *= 128;
    }
    throw new ProtobufError('varint longer than 10 bytes');
  }

  /** The varint at `start` summed exactly (BigInt), then rounded once. */
  #exact(start: number): number {
    let value = 0n;
    for (let i = 0, at = start; at < this.#at; i++, at++)
      value |= BigInt(this.#bytes[at]! & 0x7f) << BigInt(7 * i);
    return Number(value);
  }

  /** A length-delimited field's bounds, skipped over. */
  span(): [number, number] {
    const length = this.varint();
    const start = this.#at;
    if (start + length > this.#end) throw new ProtobufError('truncated length-delimited field');
    this.#at += length;
    return [start, start + length];
  }

  string(): string {
    const [start, end] = this.span();
    return TEXT.decode(this.#bytes.subarray(start, end));
  }

  /** A nested message's reader. */
  message(): ProtobufReader {
    const [start, end] = this.span();
    return new ProtobufReader(this.#bytes, start, end);
  }

  skip(wireType: number): void {
    if (wireType === WIRE.varint) this.varint();
    else if (wireType === WIRE.bytes) this.span();
    else if (wireType === WIRE.fixed64) this.#advance(8);
    else if (wireType === WIRE.fixed32) this.#advance(4);
    else if (wireType === WIRE.startGroup) this.#skipGroup();
    else throw new ProtobufError(`wire type ${wireType} is not supported`);
  }

  /** An unknown group (proto2), up to its end; nested ones counted, not recursed into. */
  #skipGroup(): void {
    for (let depth = 1; depth > 0; ) {
      const wireType = this.tag() & 7;
      if (wireType === WIRE.startGroup) depth++;
      else if (wireType === WIRE.endGroup) depth--;
      else this.skip(wireType);
    }
  }

  #advance(bytes: number): void {
    if (this.#at + bytes > this.#end) throw new ProtobufError('truncated fixed-width field');
    this.#at += bytes;
  }
}

const TEXT = new TextDecoder('utf-8');

/** A field's tag: its number and wire type in one number (as a reader compares it, or a writer writes it as a varint). */
export const tagOf = (field: number, wireType: number): number => field * 8 + wireType;

/** The fields of every map<K, V> entry, as the wire format lays it out: { K key = 1; V value = 2; }. */
export const MAP_ENTRY = { key: 1, value: 2 } as const;

/** A field's tag as one byte, for writers that write it so (field numbers 1 to 15). */
export function oneByteTag(field: number, wireType: number): number {
  const tag = tagOf(field, wireType);
  if (field < 1 || tag > 0x7f) throw new Error(`field ${field}: its tag takes more than one byte`);
  return tag;
}

/** How many bytes `value` (below 2^32) takes as a varint. */
export const varint32Size = (value: number): number =>
  value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;

/** Writes `value` (below 2^32) as a varint at `at`; returns where the next byte goes. */
export function writeVarint32(buffer: Uint8Array, at: number, value: number): number {
  let rest = value;
  while (rest >= 0x80) {
    buffer[at++] = (rest & 0x7f) | 0x80;
    rest >>>= 7;
  }
  buffer[at++] = rest;
  return at;
}

/** How many bytes `value` (a non-negative integer below 2^53) takes as a varint. */
export function varintSize(value: number): number {
  let size = 1;
  while (value >= 128) {
    value = Math.floor(value / 128);
    size++;
  }
  return size;
}

/** A writer into one buffer sized by the caller (sizes come from the same walk as the writes). */
export class ProtobufWriter {
  readonly bytes: Buffer;
  #at: number;

  constructor(bytes: Buffer, start = 0) {
    this.bytes = bytes;
    this.#at = start;
  }

  get at(): number {
    return this.#at;
  }

  varint(value: number): void {
    while (value >= 128) {
      this.bytes[this.#at++] = (value & 0x7f) | 0x80;
      value = Math.floor(value / 128);
    }
    this.bytes[this.#at++] = value;
  }

  tag(field: number, wireType: number): void {
    this.varint(tagOf(field, wireType));
  }

  /** A string field whose UTF-8 length the caller measured as `length`. */
  string(field: number, text: string, length: number): void {
    this.tag(field, WIRE.bytes);
    this.varint(length);
    this.#at += this.bytes.write(text, this.#at, length, 'utf8');
  }

  double(field: number, value: number): void {
    this.tag(field, WIRE.fixed64);
    this.bytes.writeDoubleLE(value, this.#at);
    this.#at += 8;
  }
}
