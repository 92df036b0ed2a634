// Inputs the fuzz targets found (test/fuzz), kept: each failed before its fix, and each is compared
// with the library again here.
import { describe, expect, it } from 'vitest';
import { decodeRateLimitRequest } from '../../../services/ratelimit/adapters/grpc/rls-codec.ts';
import { parseJsonRequest } from '../../../services/ratelimit/adapters/http/json-codec.ts';
import {
  MemcacheProtocolError,
  MemcacheReplyReader,
} from '../../../services/ratelimit/adapters/memcached/memcache-replies.ts';
import { HpackDecoder, HpackError } from '../../../shared/grpc-server/hpack.ts';
import { nghttp2RefusesFirstBlock } from '../../fuzz/targets/hpack-nghttp2.ts';
import { compareJsonRequest } from '../../fuzz/targets/json-request.ts';
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

describe('RLS request reader: a message field seen twice is merged, as Go merges it', () => {
  // Found by the 1,000,000-input run of rls-request: the first limit override was checked (and
  // refused for its unit 0) before the second one set the unit. protobufjs replaces rather than
  // merges, so these are checked against the encoding's rule, not against it.
  it('a limit override in two parts: the unit from the second', () => {
    // descriptor { entries: [{}], limit: { <field 12> }, limit: { unit: YEAR }, hits_addend: {} }
    expect(decodeRateLimitRequest(hex('120f0a0012056579757a6a120210061a00')).descriptors[0]).toEqual({
      entries: [{ key: '', value: '' }],
      limit: { requestsPerUnit: 0, unit: 'YEAR' },
      hitsAddend: 0,
    });
    // descriptor { limit: { requests_per_unit: 7 }, limit: { unit: HOUR } }
    expect(decodeRateLimitRequest(hex('12081202080712021003')).descriptors[0]!.limit).toEqual({
      requestsPerUnit: 7,
      unit: 'HOUR',
    });
  });

  it('refuses the merged override once, naming its unit', () => {
    expect(() => decodeRateLimitRequest(hex('120812021007120208071a00'))).toThrow(
      'descriptors[0].limit.unit must be one of SECOND, MINUTE, HOUR, DAY, MONTH, YEAR, not 7',
    );
  });

  it('hits_addend in two parts keeps the value the first gave', () => {
    // descriptor { hits_addend: { value: 5 } , hits_addend: {} }
    expect(decodeRateLimitRequest(hex('12061a0208051a00')).descriptors[0]!.hitsAddend).toBe(5);
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
    // A uint64 hits_addend past 2^53 was summed in doubles, rounded on the way: now the exact
    // value rounded once, as Number() of proto-loader's decimal text.
    ['a uint64 past 2^53', '0a0971416d452e666251441211120210051a0b08fff7ffffffffffffff011801'],
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

describe('POST /json reader against protobufjs', () => {
  it.each([
    // One field under its JSON and its proto name: the last was taken; protojson refuses a duplicate.
    [
      '{"domain":"","hits_addend":"9","hitsAddend":"007"}',
      'invalid /json body: duplicate field "hitsAddend" in the body',
    ],
    [
      '{"hitsAddend":256,"hits_addend":null}',
      'invalid /json body: duplicate field "hits_addend" in the body',
    ],
    // null in a list was read as an empty descriptor; null stands for a field, not for an element.
    ['{"descriptors":[null]}', 'invalid /json body: descriptors[0] must be an object'],
    [
      '{"descriptors":[{"entries":[null]}]}',
      'invalid /json body: descriptors[0].entries[0] must be an object',
    ],
  ])('%s', (body, message) => {
    expect(compareJsonRequest(body)).toBeUndefined();
    expect(() => parseJsonRequest(body)).toThrow(message);
  });
});

describe('memcached reply reader against the protocol text', () => {
  const reader = (...chunks: string[]) => {
    const replies = new MemcacheReplyReader();
    for (const chunk of chunks) replies.push(Buffer.from(chunk, 'utf8'));
    return replies;
  };

  it('refuses a VALUE line whose byte count is not a number (the loop that read it never ended)', () => {
    expect(() => reader('VALUE k 0 x\r\nEND\r\n').next(true)).toThrow(MemcacheProtocolError);
  });

  it('counts a data block in bytes, not in UTF-16 characters', () => {
    expect(reader('VALUE k 0 2\r\né\r\nEND\r\n').next(true)).toEqual({
      kind: 'values',
      values: new Map([['k', 'é']]),
      casUniques: new Map(),
    });
    expect(reader('VALUE k 0 2\r\n', 'é'.slice(0, 1), '\r\nEND\r\n').next(true)).toEqual({
      kind: 'values',
      values: new Map([['k', 'é']]),
      casUniques: new Map(),
    });
  });

  it("reads the CAS unique of a gets's VALUE line", () => {
    expect(reader('VALUE k 0 1 42\r\n7\r\nEND\r\n').next(true)).toEqual({
      kind: 'values',
      values: new Map([['k', '7']]),
      casUniques: new Map([['k', '42']]),
    });
  });

  it.each([
    ['a data block longer than its count', 'VALUE k 0 1\r\n12\r\nEND\r\n'],
    ['a line other than VALUE or END in a get reply', 'STORED\r\n'],
    ['a key with a control character', 'VALUE k\u0000 0 1\r\n1\r\nEND\r\n'],
  ])('refuses %s', (_, bytes) => {
    expect(() => reader(bytes).next(true)).toThrow(MemcacheProtocolError);
  });

  it('takes ERROR followed by text as an error (the reference first read it as a line)', () => {
    // Found by the 1,000,000-input run: a difference in the reference, not in the reader.
    expect(reader('ERROR outemory\r\nEND\r\n').next(false)).toEqual({
      kind: 'error',
      line: 'ERROR outemory',
    });
  });

  it('takes an error line whose text holds a lone CR or LF as an error', () => {
    expect(reader('CLIENT_ERROR bad\rformat\nhere\r\n').next(false)).toEqual({
      kind: 'error',
      line: 'CLIENT_ERROR bad\rformat\nhere',
    });
  });
});

describe('HPACK decoder against nghttp2, the table announced smaller than 4,096', () => {
  // Found by the 1,000,000-input run of hpack-nghttp2 (seed 1): first blocks, changed on the way,
  // that lost the table size update nghttp2 demands after SETTINGS_HEADER_TABLE_SIZE lowered the
  // table. Ours decoded them.
  it.each([
    '8204022f61018996df7ed749509b8f03860f108b1d75d0620d263d4c4d656400879acac8b2bd4c9f3c2f6f20432f6a3b215b64573429408e4932343a65612753633b44547b7c2055354d342c372d4e5e554b4a4366712b307c433b706c422e244dc8544d380086f2b35e1fe91700',
    '020350555404b363ff59f7efe1d74edcedcddffe0bffe72d177f7ff9f7f1b3c7ffefdffccbbb2ffdfff898f002bf1b3bfac80fba69d0e7fb9e3f018996df7ed749509b8f03860f108b1d75d0620d263d4c4d65640f041461775f442254496263543ed43c43623a3940626f008a9acac8b35dfffefcfcd3055826244e7e0002727400008af97cb5b41ff6f794482f000087f2b37450f23d7f01590087f2b37450f23d7f00',
  ])('%s: refused by both, as COMPRESSION_ERROR', async (block) => {
    const decoder = new HpackDecoder(256);
    decoder.requireSizeUpdate();
    expect(() => decoder.decode(hex(block))).toThrow(HpackError);
    expect(await nghttp2RefusesFirstBlock(hex(block), 256)).toBe(true);
  });

  it('takes the same block after a size update within the table, as nghttp2 does', async () => {
    const block = hex('3fe101' + '8286418a089d5c0b8170dc640007');
    const decoder = new HpackDecoder(256);
    decoder.requireSizeUpdate();
    decoder.decode(block);
    expect(decoder.count).toBe(3);
    expect(await nghttp2RefusesFirstBlock(block, 256)).toBe(false);
    // The update is due once: the next block needs none.
    decoder.decode(hex('8286'));
    expect(decoder.count).toBe(2);
  });
});
