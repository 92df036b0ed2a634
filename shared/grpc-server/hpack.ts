// HPACK (RFC 7541) for the gRPC server's own HTTP/2: a decoder with the static and dynamic tables
// and Huffman strings, and an encoder that writes only literals without indexing (our answers are
// a few short fields, so a dynamic table would save little and cost state per connection).
import { HUFFMAN_CODES, HUFFMAN_LENGTHS, STATIC_TABLE } from './hpack-tables.ts';

/** A header block that does not decode: a connection error of type COMPRESSION_ERROR. */
export class HpackError extends Error {}

/** The Huffman code as a binary tree: node n's children at 2n and 2n+1; a leaf is -(symbol + 1). */
const HUFFMAN_TREE = (() => {
  const tree = new Int32Array(2 * 512);
  let nodes = 1;
  for (let symbol = 0; symbol <= 256; symbol++) {
    const code = symbol === 256 ? 0x3fffffff : HUFFMAN_CODES[symbol]!;
    const length = symbol === 256 ? 30 : HUFFMAN_LENGTHS[symbol]!;
    let node = 0;
    for (let bit = length - 1; bit > 0; bit--) {
      const slot = 2 * node + ((code >>> bit) & 1);
      if (tree[slot] === 0) tree[slot] = nodes++;
      node = tree[slot]!;
    }
    tree[2 * node + (code & 1)] = -(symbol + 1);
  }
  return tree;
})();

/** SETTINGS_HEADER_TABLE_SIZE's initial value (RFC 9113 6.5.2). */
const DEFAULT_TABLE_SIZE = 4096;

/** An entry's size as the table counts it (RFC 7541 4.1). */
const entrySize = (name: string, value: string): number => name.length + value.length + 32;

export class HpackDecoder {
  /** The fields of the last block decoded, `count` of them. */
  readonly names: string[] = [];
  readonly values: string[] = [];
  count = 0;
  /** Sum of the last block's field sizes (name + value + 32); once over `listLimit`, a lower bound. */
  listSize = 0;
  /**
   * Past `listLimit` a block's fields are still decoded (the table must stay in step with the
   * peer's) but no longer kept: names/values then hold only the first ones. So a reference to a
   * big entry repeated thousands of times (an HPACK bomb) costs a byte check each, as Go's
   * decoder with emitting turned off.
   */
  readonly listLimit: number;
  // The dynamic table, oldest first.
  private readonly tableNames: string[] = [];
  private readonly tableValues: string[] = [];
  private tableSize = 0;
  private readonly limit: number;
  private maxTableSize: number;
  private sizeUpdateDue = false;
  private scratch = Buffer.allocUnsafe(256);
  private at = 0;

  /**
   * `limit`: SETTINGS_HEADER_TABLE_SIZE as we announced it (the peer may only lower the table below it);
   * `listLimit`: SETTINGS_MAX_HEADER_LIST_SIZE as we announced it.
   */
  constructor(limit = DEFAULT_TABLE_SIZE, listLimit = Number.POSITIVE_INFINITY) {
    this.limit = limit;
    this.maxTableSize = limit;
    this.listLimit = listLimit;
  }

  /**
   * The table was announced (SETTINGS_HEADER_TABLE_SIZE) smaller than the peer's encoder had it:
   * its next block must start with a table size update (RFC 7541 4.2), as nghttp2 demands.
   */
  requireSizeUpdate(): void {
    this.sizeUpdateDue = true;
  }

  /** The last block's list was larger than `listLimit`: its fields were not all kept. */
  get overLimit(): boolean {
    return this.listSize > this.listLimit;
  }

  /** Decodes one whole header block into names/values; throws HpackError. */
  decode(block: Buffer): void {
    this.count = 0;
    this.listSize = 0;
    this.at = 0;
    let fields = 0;
    if (this.sizeUpdateDue) {
      if (block.length > 0 && (block[0]! & 0xe0) !== 0x20)
        throw new HpackError('a block after the table was made smaller does not start with a size update');
      if (block.length > 0) this.sizeUpdateDue = false;
    }
    while (this.at < block.length) {
      const first = block[this.at]!;
      if (first & 0x80) {
        // Indexed (RFC 7541 6.1): most fields of a real request, and all of a bomb's.
        fields++;
        if (this.listSize > this.listLimit) {
          this.skipIndexed(block);
          continue;
        }
        this.pushIndexed(this.integer(block, 7));
      } else if (first & 0x40) {
        const index = this.integer(block, 6);
        const name = index === 0 ? this.string(block) : this.entryName(index);
        const value = this.string(block);
        this.insert(name, value);
        this.push(name, value);
        fields++;
      } else if (first & 0x20) {
        // A table size update is allowed only before the first field.
        if (fields > 0) throw new HpackError('table size update after a field');
        const size = this.integer(block, 5);
        if (size > this.limit) throw new HpackError(`table size ${size} over ${this.limit}`);
        this.maxTableSize = size;
        this.evict(0);
      } else {
        const index = this.integer(block, 4);
        const name = index === 0 ? this.string(block) : this.entryName(index);
        this.push(name, this.string(block));
        fields++;
      }
    }
  }

  private push(name: string, value: string): void {
    this.listSize += entrySize(name, value);
    if (this.listSize > this.listLimit) return;
    this.names[this.count] = name;
    this.values[this.count] = value;
    this.count++;
  }

  /**
   * Over the list limit: passes one-byte references to entries that exist, which change no state;
   * anything else is left to the full path (and its errors).
   */
  private skipIndexed(block: Buffer): void {
    const last = STATIC_TABLE.length + this.tableNames.length;
    let at = this.at;
    for (; at < block.length; at++) {
      const byte = block[at]!;
      if (byte <= 0x80 || byte === 0xff || (byte & 0x7f) > last) break;
    }
    if (at === this.at) this.pushIndexed(this.integer(block, 7));
    else this.at = at;
  }

  private pushIndexed(index: number): void {
    if (index === 0) throw new HpackError('index 0');
    if (index <= STATIC_TABLE.length) {
      const entry = STATIC_TABLE[index - 1]!;
      this.push(entry[0], entry[1]);
      return;
    }
    const slot = this.dynamicSlot(index);
    this.push(this.tableNames[slot]!, this.tableValues[slot]!);
  }

  private entryName(index: number): string {
    if (index <= STATIC_TABLE.length) return STATIC_TABLE[index - 1]![0];
    return this.tableNames[this.dynamicSlot(index)]!;
  }

  private dynamicSlot(index: number): number {
    const slot = this.tableNames.length - (index - STATIC_TABLE.length);
    if (slot < 0) throw new HpackError(`index ${index} beyond the table`);
    return slot;
  }

  private insert(name: string, value: string): void {
    const size = entrySize(name, value);
    this.evict(size);
    if (size > this.maxTableSize) return; // an entry larger than the table empties it (RFC 7541 4.4)
    this.tableNames.push(name);
    this.tableValues.push(value);
    this.tableSize += size;
  }

  /** Drops the oldest entries until `room` more bytes fit. */
  private evict(room: number): void {
    while (this.tableSize + room > this.maxTableSize && this.tableNames.length > 0) {
      this.tableSize -= entrySize(this.tableNames.shift()!, this.tableValues.shift()!);
    }
  }

  /** An integer with an N-bit prefix (RFC 7541 5.1), at most 2^28. */
  private integer(block: Buffer, prefixBits: number): number {
    const max = (1 << prefixBits) - 1;
    let value = block[this.at++]! & max;
    if (value < max) return value;
    for (let shift = 0; ; shift += 7) {
      if (shift > 21) throw new HpackError('integer too large');
      if (this.at >= block.length) throw new HpackError('truncated integer');
      const byte = block[this.at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
  }

  /** A string literal (RFC 7541 5.2), Huffman-coded or not, as latin1. */
  private string(block: Buffer): string {
    if (this.at >= block.length) throw new HpackError('truncated string');
    const huffman = (block[this.at]! & 0x80) !== 0;
    const length = this.integer(block, 7);
    const start = this.at;
    const end = start + length;
    if (end > block.length) throw new HpackError('truncated string');
    this.at = end;
    return huffman ? this.huffman(block, start, end) : block.toString('latin1', start, end);
  }

  private huffman(block: Buffer, start: number, end: number): string {
    if (this.scratch.length < (end - start) * 2) this.scratch = Buffer.allocUnsafe((end - start) * 2);
    const out = this.scratch;
    let written = 0;
    let node = 0;
    let pendingBits = 0; // bits read since the last symbol
    let allOnes = true;
    for (let i = start; i < end; i++) {
      const byte = block[i]!;
      for (let bit = 7; bit >= 0; bit--) {
        const one = (byte >>> bit) & 1;
        const next = HUFFMAN_TREE[2 * node + one]!;
        pendingBits++;
        allOnes &&= one === 1;
        if (next < 0) {
          if (next === -257) throw new HpackError('EOS in a Huffman string');
          out[written++] = -next - 1;
          node = 0;
          pendingBits = 0;
          allOnes = true;
        } else if (next === 0) {
          throw new HpackError('invalid Huffman code');
        } else {
          node = next;
        }
      }
    }
    // Padding: fewer than 8 bits, all ones (a prefix of EOS).
    if (pendingBits > 7 || !allOnes) throw new HpackError('invalid Huffman padding');
    return out.toString('latin1', 0, written);
  }
}

/** Writes an HPACK integer with an N-bit prefix, `flags` in the first byte's upper bits; returns the new offset. */
function writeInteger(out: Buffer, at: number, value: number, prefixBits: number, flags: number): number {
  const max = (1 << prefixBits) - 1;
  if (value < max) {
    out[at] = flags | value;
    return at + 1;
  }
  out[at++] = flags | max;
  let rest = value - max;
  while (rest >= 0x80) {
    out[at++] = (rest & 0x7f) | 0x80;
    rest >>>= 7;
  }
  out[at] = rest;
  return at + 1;
}

/** The longest an encoded field can be: name and value and their lengths. */
export const fieldBytes = (name: string, value: string): number => name.length + value.length + 12;

/**
 * A field as a literal without indexing (RFC 7541 6.2.2), plain (not Huffman) latin1; the name by
 * its static table index when `nameIndex` is given. Returns the new offset.
 */
export function writeLiteral(out: Buffer, at: number, name: string, value: string, nameIndex = 0): number {
  if (nameIndex > 0) {
    at = writeInteger(out, at, nameIndex, 4, 0);
  } else {
    out[at++] = 0;
    at = writeInteger(out, at, name.length, 7, 0);
    at += out.write(name, at, 'latin1');
  }
  at = writeInteger(out, at, value.length, 7, 0);
  return at + out.write(value, at, 'latin1');
}

/** An indexed field (RFC 7541 6.1) from the static table. */
export function writeIndexed(out: Buffer, at: number, index: number): number {
  return writeInteger(out, at, index, 7, 0x80);
}
