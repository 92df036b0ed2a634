// The HPACK decoder on the rest of RFC 7541's appendix C (C.1 integers, C.2 each representation,
// C.3 requests without Huffman, C.5 and C.6 responses in a 256-byte table whose entries are
// evicted), dynamic table size updates, an entry larger than the table, every byte value through
// the Huffman code, and the bounds of integers and strings.
import { describe, expect, it } from 'vitest';
import {
  HpackDecoder,
  HpackError,
  writeIndexed,
  writeLiteral,
} from '../../../../shared/grpc-server/hpack.ts';
import { HUFFMAN_CODES, HUFFMAN_LENGTHS } from '../../../../shared/grpc-server/hpack-tables.ts';

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const fields = (decoder: HpackDecoder): Array<[string, string]> =>
  Array.from({ length: decoder.count }, (_, i) => [decoder.names[i]!, decoder.values[i]!]);
const decoded = (decoder: HpackDecoder, block: string) => {
  decoder.decode(hex(block));
  return fields(decoder);
};

/** A Huffman-coded string literal (RFC 7541 5.2) for a length under 127, from the appendix B code. */
function huffmanString(bytes: Buffer): Buffer {
  let bits = 0n;
  let count = 0n;
  for (const byte of bytes) {
    bits = (bits << BigInt(HUFFMAN_LENGTHS[byte]!)) | BigInt(HUFFMAN_CODES[byte]!);
    count += BigInt(HUFFMAN_LENGTHS[byte]!);
  }
  const pad = (8n - (count % 8n)) % 8n;
  bits = (bits << pad) | ((1n << pad) - 1n);
  const length = Number((count + pad) / 8n);
  const out = Buffer.alloc(length);
  for (let i = length - 1; i >= 0; i--, bits >>= 8n) out[i] = Number(bits & 0xffn);
  if (length > 126) throw new Error('test helper: lengths under 127 only');
  return Buffer.concat([Buffer.from([0x80 | length]), out]);
}

const DATE_1 = 'Mon, 21 Oct 2013 20:13:21 GMT';
const DATE_2 = 'Mon, 21 Oct 2013 20:13:22 GMT';
const COOKIE = 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1';
const LOCATION = 'https://www.example.com';

describe('RFC 7541 appendix C', () => {
  it('C.1: integers with a prefix (10 in 5 bits, 1337 in 5 bits, 42 on a byte boundary) as the encoder writes them', () => {
    const out = Buffer.alloc(2000);
    expect(out.subarray(0, writeIndexed(out, 0, 10))).toEqual(hex('8a'));
    expect(out.subarray(0, writeIndexed(out, 0, 1337))).toEqual(hex('ff ba 09'));
    const end = writeLiteral(out, 0, 'x', 'v'.repeat(1337));
    expect(out.subarray(0, 6)).toEqual(hex('00 01 78 7f ba 09'));
    expect(decodedFrom(out.subarray(0, end))).toEqual([['x', 'v'.repeat(1337)]]);
    expect(decoded(new HpackDecoder(), '3f 9a 0a 2a')).toEqual([]); // size updates of 1337, then 10
  });

  it('C.2: literal with indexing, without indexing, never indexed, and indexed', () => {
    const decoder = new HpackDecoder();
    expect(decoded(decoder, '400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572')).toEqual([
      ['custom-key', 'custom-header'],
    ]);
    expect(decoded(decoder, 'be')).toEqual([['custom-key', 'custom-header']]);
    expect(decoded(decoder, '040c 2f73 616d 706c 652f 7061 7468')).toEqual([[':path', '/sample/path']]);
    expect(decoded(decoder, '1008 7061 7373 776f 7264 0673 6563 7265 74')).toEqual([['password', 'secret']]);
    expect(decoded(decoder, '82')).toEqual([[':method', 'GET']]);
    expect(() => decoder.decode(hex('bf'))).toThrow(new HpackError('index 63 beyond the table')); // none of those indexed
  });

  it('C.3: three requests without Huffman coding, the table carried over', () => {
    const decoder = new HpackDecoder();
    const base: Array<[string, string]> = [
      [':method', 'GET'],
      [':scheme', 'http'],
      [':path', '/'],
      [':authority', 'www.example.com'],
    ];
    expect(decoded(decoder, '8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d')).toEqual(base);
    expect(decoded(decoder, '8286 84be 5808 6e6f 2d63 6163 6865')).toEqual([
      ...base,
      ['cache-control', 'no-cache'],
    ]);
    expect(
      decoded(decoder, '8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65'),
    ).toEqual([
      [':method', 'GET'],
      [':scheme', 'https'],
      [':path', '/index.html'],
      [':authority', 'www.example.com'],
      ['custom-key', 'custom-value'],
    ]);
  });

  const responses = [
    [
      [':status', '302'],
      ['cache-control', 'private'],
      ['date', DATE_1],
      ['location', LOCATION],
    ],
    [
      [':status', '307'],
      ['cache-control', 'private'],
      ['date', DATE_1],
      ['location', LOCATION],
    ],
    [
      [':status', '200'],
      ['cache-control', 'private'],
      ['date', DATE_2],
      ['location', LOCATION],
      ['content-encoding', 'gzip'],
      ['set-cookie', COOKIE],
    ],
  ];

  it.each([
    [
      'C.5: without Huffman',
      [
        '4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
        '4803 3330 37c1 c0bf',
        '88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31',
      ],
    ],
    [
      'C.6: with Huffman',
      [
        '4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3',
        '4883 640e ffc1 c0bf',
        '88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07',
      ],
    ],
  ])('%s: three responses in a 256-byte table, the oldest entries evicted', (_, blocks) => {
    const decoder = new HpackDecoder(256);
    blocks.forEach((block, i) => {
      expect(decoded(decoder, block)).toEqual(responses[i]);
    });
    // Left in the table (RFC 7541 C.5.3): set-cookie, content-encoding, date; index 65 was evicted.
    expect(decoded(decoder, 'be bf c0')).toEqual([
      ['set-cookie', COOKIE],
      ['content-encoding', 'gzip'],
      ['date', DATE_2],
    ]);
    expect(() => decoder.decode(hex('c1'))).toThrow(new HpackError('index 65 beyond the table'));
  });
});

describe('dynamic table', () => {
  const customKey = '400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572'; // 55 bytes in the table

  it('a size update to 0 empties the table; two updates may open a block', () => {
    const decoder = new HpackDecoder();
    decoded(decoder, customKey);
    expect(decoded(decoder, 'be')).toEqual([['custom-key', 'custom-header']]);
    expect(decoded(decoder, '20 3f e1 1f 82')).toEqual([[':method', 'GET']]);
    expect(() => decoder.decode(hex('be'))).toThrow(new HpackError('index 62 beyond the table'));
  });

  it('a smaller size evicts the oldest entries; an entry larger than the table empties it', () => {
    const decoder = new HpackDecoder();
    decoded(decoder, customKey);
    decoded(decoder, '4001 61 0162'); // a: b, 34 bytes, index 62; custom-key now 63
    expect(decoded(decoder, '3f 29 be')).toEqual([['a', 'b']]); // size 72: room for 34, not 89
    expect(() => decoder.decode(hex('bf'))).toThrow(HpackError);
    expect(decoded(decoder, `3f 09 ${customKey} 82`)).toEqual([
      // 55 bytes in a table of 40
      ['custom-key', 'custom-header'],
      [':method', 'GET'],
    ]);
    expect(() => decoder.decode(hex('be'))).toThrow(new HpackError('index 62 beyond the table'));
  });

  it('counts the header list size as entries do (name + value + 32)', () => {
    const decoder = new HpackDecoder();
    decoded(decoder, '82 4001 61 0162');
    expect(decoder.listSize).toBe(7 + 3 + 32 + 1 + 1 + 32);
  });
});

describe('Huffman strings', () => {
  it('decodes every byte value, and strings padded with 0 to 7 one-bits', () => {
    const everyByte = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    for (let at = 0; at < 256; at += 16) {
      const chunk = everyByte.subarray(at, at + 16);
      const block = Buffer.concat([hex('00 01 78'), huffmanString(chunk)]);
      expect(decodedFrom(block)).toEqual([['x', chunk.toString('latin1')]]);
    }
    for (const text of ['', 'a', 'ab', 'abc', 'abcd', 'abcde', 'abcdef', 'abcdefg', '0123456789']) {
      const block = Buffer.concat([hex('00 01 78'), huffmanString(Buffer.from(text))]);
      expect(decodedFrom(block)).toEqual([['x', text]]);
    }
  });
});

describe('bounds', () => {
  it.each([
    ['an integer cut short', '7f ff', 'truncated integer'],
    ['a string length cut short', '00 7f', 'truncated integer'],
    ['a literal without its value', '00 01 78', 'truncated string'],
    ['a string longer than the block', '00 01 78 05 61', 'truncated string'],
    ['an index past 2^28', 'ff ff ff ff ff 0f', 'integer too large'],
    ['a huge index within 2^28', 'ff ff ff ff 7f', 'index 268435582 beyond the table'],
  ])('refuses %s', (_, block, message) => {
    expect(() => new HpackDecoder().decode(hex(block))).toThrow(new HpackError(message));
  });
});

function decodedFrom(block: Buffer): Array<[string, string]> {
  const decoder = new HpackDecoder();
  decoder.decode(block);
  return fields(decoder);
}
