// The protobuf reader of the hot paths (GetSuggestionsRequest, ReportObservationLogRequest): a
// cursor over a request's bytes that reads tags, int32s, doubles and strings as protobufjs 7 reads
// them from a Buffer, skips unknown fields as it does, and throws STEP_ASIDE at anything it would
// read differently or that is malformed (a known field with another wire type, a group, anything
// running past its message, a tag or length beyond 31 bits), so that the method's own deserializer
// reads those bytes, or fails on them with grpc-js's own error. (wire.ts's ProtobufReader is the
// strict one: it fails on malformed bytes itself.)
import { WIRE } from './wire.ts';

const VARINT = WIRE.varint;
const I64 = WIRE.fixed64;
const LEN = WIRE.bytes;
const I32 = WIRE.fixed32;

/** The reader leaves the bytes to the generic decoder. One instance: no stack trace per use. */
class StepAside extends Error {}
export const STEP_ASIDE = new StepAside('left to the generic decoder');

/** Node's Buffer methods behind toString('latin1' | 'utf8'), without its argument handling. */
interface BufferSlices {
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
}

export class StepAsideReader {
  private readonly bytes: Buffer & BufferSlices;
  /** Position of the next byte to read. */
  at = 0;
  /** The bytes strings are cut from (see `stringsFrom`), and their Latin-1 text once needed. */
  private regionStart = 0;
  private regionEnd = 0;
  private regionText: string | undefined = undefined;

  constructor(bytes: Buffer) {
    this.bytes = bytes as Buffer & BufferSlices;
  }

  /**
   * Strings from `at` to `end` are cut from one Latin-1 decoding of those bytes: for ASCII, the
   * same string as a UTF-8 decoding, for one call into Buffer instead of one per string. A cut of
   * 13 characters or more shares the region's text, so a region is kept as long as any of those;
   * regions of one trial each keep that small.
   */
  stringsFrom(end: number): void {
    this.regionStart = this.at;
    this.regionEnd = end;
    this.regionText = undefined;
  }

  /** A field's tag (field number << 3 | wire type). Field 0 is malformed here: left aside. */
  tag(end: number): number {
    const tag = this.uint31(end);
    if (tag < 8) throw STEP_ASIDE;
    return tag;
  }

  /** A tag or length: a varint of at most 31 bits (protobufjs's uint32, without its oddities). */
  private uint31(end: number): number {
    const bytes = this.bytes;
    let at = this.at;
    // Most are one byte: read apart from the loop, which is measurably faster.
    const first = at < end ? bytes[at]! : 0x80;
    if (first < 0x80) {
      this.at = at + 1;
      return first;
    }
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (at >= end) throw STEP_ASIDE;
      const byte = bytes[at++]!;
      value |= (byte & 0x7f) << shift;
      if (byte < 0x80) {
        // A fifth byte above 7 would pass 31 bits.
        if (shift === 28 && byte > 7) throw STEP_ASIDE;
        this.at = at;
        return value;
      }
    }
    throw STEP_ASIDE;
  }

  /** An int32 or enum field. */
  int32(tag: number, end: number): number {
    if ((tag & 7) !== VARINT) throw STEP_ASIDE;
    return this.varint32(end);
  }

  /**
   * protobufjs's int32: the low 32 bits of the first five bytes; when the fifth says more follow
   * (a negative int32 is a 10-byte varint), five more bytes are passed over unread.
   */
  private varint32(end: number): number {
    const bytes = this.bytes;
    let at = this.at;
    let value = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      if (at >= end) throw STEP_ASIDE;
      const byte = bytes[at++]!;
      value |= (byte & 0x7f) << shift;
      if (byte < 0x80) {
        this.at = at;
        return value;
      }
    }
    if (at >= end) throw STEP_ASIDE;
    const fifth = bytes[at++]!;
    value |= (fifth & 0x0f) << 28;
    if (fifth >= 0x80) {
      at += 5;
      if (at > end) throw STEP_ASIDE;
    }
    this.at = at;
    return value;
  }

  /** A repeated int32 field's values: packed (one length-delimited run) or not (one varint). */
  int32s(tag: number, end: number, into: number[]): void {
    const wireType = tag & 7;
    if (wireType === VARINT) {
      into.push(this.varint32(end));
      return;
    }
    if (wireType !== LEN) throw STEP_ASIDE;
    const runEnd = this.lengthEnd(end);
    while (this.at < runEnd) into.push(this.varint32(runEnd));
  }

  double(tag: number, end: number): number {
    if ((tag & 7) !== I64 || this.at + 8 > end) throw STEP_ASIDE;
    const value = this.bytes.readDoubleLE(this.at);
    this.at += 8;
    return value;
  }

  /**
   * A string field as protobufjs decodes it from a Buffer: Buffer's UTF-8 decoding (with its
   * replacement characters for invalid bytes), cut from the region's Latin-1 text when ASCII. A
   * string running past its message, which protobufjs would cut short, is left aside.
   */
  string(tag: number, end: number): string {
    if ((tag & 7) !== LEN) throw STEP_ASIDE;
    const stop = this.lengthEnd(end);
    const start = this.at;
    this.at = stop;
    if (stop === start) return '';
    const bytes = this.bytes;
    let high = 0;
    for (let at = start; at < stop; at++) high |= bytes[at]!;
    // Reading only moves forward: a string not inside the region is past its end.
    if (high >= 0x80 || stop > this.regionEnd) return bytes.utf8Slice(start, stop);
    this.regionText ??= bytes.latin1Slice(this.regionStart, this.regionEnd);
    return this.regionText.substring(start - this.regionStart, stop - this.regionStart);
  }

  /** Passes over a string field without decoding it: returns where its bytes start (they end at `at`). */
  passString(tag: number, end: number): number {
    if ((tag & 7) !== LEN) throw STEP_ASIDE;
    const stop = this.lengthEnd(end);
    const start = this.at;
    this.at = stop;
    return start;
  }

  /** The end of the length-delimited message starting at `at`. */
  messageEnd(tag: number, end: number): number {
    if ((tag & 7) !== LEN) throw STEP_ASIDE;
    return this.lengthEnd(end);
  }

  private lengthEnd(end: number): number {
    const length = this.uint31(end);
    const stop = this.at + length;
    if (stop > end) throw STEP_ASIDE;
    return stop;
  }

  /** Passes over a field the message does not declare, as protobufjs does; groups are left aside. */
  skip(tag: number, end: number): void {
    switch (tag & 7) {
      case VARINT:
        // protobufjs passes over continuation bytes without a limit.
        do {
          if (this.at >= end) throw STEP_ASIDE;
        } while (this.bytes[this.at++]! >= 0x80);
        return;
      case I64:
        this.at += 8;
        break;
      case LEN:
        this.at = this.lengthEnd(end);
        return;
      case I32:
        this.at += 4;
        break;
      default:
        throw STEP_ASIDE;
    }
    if (this.at > end) throw STEP_ASIDE;
  }
}
