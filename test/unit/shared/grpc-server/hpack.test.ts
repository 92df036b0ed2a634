// The HPACK decoder of the gRPC server's own HTTP/2 on RFC 7541's worked examples (appendix C.4:
// three requests on one connection, Huffman strings, the dynamic table carried over), the
// encoder's blocks read back, and the blocks it must refuse with their messages.
import { describe, expect, it } from 'vitest';
import { HpackDecoder, HpackError } from '../../../../shared/grpc-server/hpack.ts';
import { failureBlock, RESPONSE_HEADERS } from '../../../../shared/grpc-server/http2-parts.ts';

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const fields = (decoder: HpackDecoder): Array<[string, string]> =>
  Array.from({ length: decoder.count }, (_, i) => [decoder.names[i]!, decoder.values[i]!]);

describe('HPACK decoder', () => {
  it('decodes RFC 7541 C.4 (requests with Huffman coding), the dynamic table carried from block to block', () => {
    const decoder = new HpackDecoder();
    decoder.decode(hex('8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff'));
    expect(fields(decoder)).toEqual([
      [':method', 'GET'],
      [':scheme', 'http'],
      [':path', '/'],
      [':authority', 'www.example.com'],
    ]);
    decoder.decode(hex('8286 84be 5886 a8eb 1064 9cbf'));
    expect(fields(decoder)).toEqual([
      [':method', 'GET'],
      [':scheme', 'http'],
      [':path', '/'],
      [':authority', 'www.example.com'],
      ['cache-control', 'no-cache'],
    ]);
    decoder.decode(hex('8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf'));
    expect(fields(decoder)).toEqual([
      [':method', 'GET'],
      [':scheme', 'https'],
      [':path', '/index.html'],
      [':authority', 'www.example.com'],
      ['custom-key', 'custom-value'],
    ]);
    expect(decoder.listSize).toBe(5 * 32 + 7 + 3 + 7 + 5 + 5 + 11 + 10 + 15 + 10 + 12);
  });

  it('reads back the blocks the server sends', () => {
    const decoder = new HpackDecoder();
    decoder.decode(failureBlock(3, 'domain must not be empty: ü'));
    expect(fields(decoder)).toEqual([
      [':status', '200'],
      ['content-type', 'application/grpc'],
      ['grpc-accept-encoding', 'identity'],
      ['grpc-status', '3'],
      ['grpc-message', 'domain%20must%20not%20be%20empty:%20%C3%BC'],
    ]);
    decoder.decode(RESPONSE_HEADERS);
    expect(fields(decoder).length).toBe(3);
  });

  describe('past its list limit (an HPACK bomb: one big entry referenced again and again)', () => {
    // 0x40: a literal with incremental indexing, new name: x-bomb, 4,000 b's (RFC 7541 6.2.1).
    const insert = Buffer.concat([
      hex('40 06'),
      Buffer.from('x-bomb'),
      hex('7f a1 1e'),
      Buffer.alloc(4000, 'b'),
    ]);
    const bomb = Buffer.concat([hex('83 86'), Buffer.alloc(1000, 0xbe)]); // 0xbe: index 62, the entry above

    it('keeps the fields up to the limit, says it is over, and stays in step with the table', () => {
      const decoder = new HpackDecoder(4096, 16 * 1024);
      decoder.decode(insert);
      expect(decoder.overLimit).toBe(false);
      decoder.decode(bomb);
      expect(decoder.overLimit).toBe(true);
      expect(fields(decoder).slice(0, 2)).toEqual([
        [':method', 'POST'],
        [':scheme', 'http'],
      ]);
      expect(decoder.count).toBe(2 + Math.floor((16 * 1024 - 43 - 43) / 4038));
      // The next block still resolves index 62 to the entry the first one inserted.
      decoder.decode(hex('be'));
      expect(decoder.overLimit).toBe(false);
      expect(fields(decoder)).toEqual([['x-bomb', 'b'.repeat(4000)]]);
    });

    it('counts every field without a limit', () => {
      const decoder = new HpackDecoder();
      decoder.decode(insert);
      decoder.decode(bomb);
      expect(decoder.count).toBe(1002);
      expect(decoder.listSize).toBe(43 + 43 + 1000 * 4038);
    });

    it.each([
      ['an index beyond the table', 'bf', 'index 63 beyond the table'],
      ['index 0', '80', 'index 0'],
      ['a table size update after the fields', '20', 'table size update after a field'],
    ])('still refuses %s after it', (_, tail, message) => {
      const decoder = new HpackDecoder(4096, 16 * 1024);
      decoder.decode(insert);
      expect(() => decoder.decode(Buffer.concat([bomb, hex(tail)]))).toThrow(new HpackError(message));
    });
  });

  it('keeps grpc-message within one frame, cut between characters, a lone surrogate replaced', () => {
    const decoder = new HpackDecoder();
    decoder.decode(failureBlock(13, '😀'.repeat(5000)));
    expect(decodeURI(decoder.values[4]!)).toBe('😀'.repeat(1024));
    decoder.decode(failureBlock(13, 'a\ud800b'));
    expect(decodeURI(decoder.values[4]!)).toBe('a\ufffdb');
  });

  it.each([
    ['index 0', '80', 'index 0'],
    ['an index beyond the tables', 'be', 'index 62 beyond the table'],
    ['a table size update after a field', '82 3f e1 1f', 'table size update after a field'],
    ['a table size over SETTINGS_HEADER_TABLE_SIZE', '3f e2 1f', 'table size 4097 over 4096'],
    ['a truncated string', '40 05 61 62', 'truncated string'],
    ['a Huffman string padded with zeros', '40 81 00 81 1f', 'invalid Huffman padding'],
    ['Huffman padding of 8 bits or more', '00 83 1f ff ff 81 1f', 'invalid Huffman padding'],
    ['EOS inside a Huffman string', '00 84 ff ff ff ff 81 1f', 'EOS in a Huffman string'],
    ['an integer of more than 28 bits', '7f ff ff ff ff 7f', 'integer too large'],
  ])('refuses %s', (_, block, message) => {
    expect(() => new HpackDecoder().decode(hex(block))).toThrow(new HpackError(message));
  });
});
