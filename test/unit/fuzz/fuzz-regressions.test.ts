// Inputs the fuzz targets found (test/fuzz), kept: each failed before its fix, and each is compared
// with the library again here.
import { describe, expect, it } from 'vitest';
import { decodeRateLimitRequest } from '../../../services/ratelimit/adapters/grpc/rls-codec.ts';
import { compareReport } from '../../fuzz/targets/report-request.ts';
import { compareRlsRequest } from '../../fuzz/targets/rls-request.ts';

const hex = (text: string): Buffer => Buffer.from(text, 'hex');

describe('ReportObservationLog fast path (parseReport + the Avro fast writer) against protobufjs + avsc', () => {
  it.each([
    // A time stamp whose year is not four digits was copied as it was into the event.
    [
      '"01\\x800-08-11T02:06:58,212Z"',
      '0a07747269616c2d31122d0a2b0a18303180302d30382d31315430323a30363a35382c3231325a120f0a0861636375726163791203302e35',
    ],
    [
      '"00-9-10-15T20:34:00Z"',
      '0a0b703635625075426249364912250a230a1430302d392d31302d31355432303a33343a30305a120b0a046c6f73731203302e35',
    ],
  ])('%s: the fast path leaves it to the generic path, which refuses it', (_, bytes) => {
    expect(compareReport(hex(bytes))).toBeUndefined();
  });
});

describe('RLS request reader against protobufjs', () => {
  it.each([
    // An enum (limit.unit) sent as a 10-byte negative int32 was read as 18446744073709552000.
    [
      'an enum as a 10-byte varint',
      '0a0c3738736f33432d7268774c5f1215120b10feffffffffffffffff011a06088080808010',
    ],
    // Kept as found, though they passed before: a tag past 32 bits is read from its low 32 bits.
    ['a tag past 32 bits', '0a067874766e787280808080108010'],
    ['a 9-byte tag', 'ffffffffffffffff0f0f'],
    // An unknown group was refused; protobufjs (and Go) skip it.
    ['an unknown group', '18ffffffa60a43e4ff0f'],
  ])('%s', (_, bytes) => {
    expect(compareRlsRequest(hex(bytes))).toBeUndefined();
  });

  it('reads a 32-bit field from the low 32 bits of a long varint, as Go does (protobufjs skips 5 bytes blindly)', () => {
    expect(decodeRateLimitRequest(hex('18c9cfffefffff0f')).hitsAddend).toBe(0xfdffe7c9);
  });

  it('refuses a varint past 64 bits (Go refuses it; protobufjs keeps its low 64 bits)', () => {
    const bytes = hex('120d1a0b08fffffffffff7ffffff7f');
    expect(() => decodeRateLimitRequest(bytes)).toThrow('varint over 64 bits');
  });
});
