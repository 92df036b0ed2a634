import { describe, expect, it } from 'vitest';
import {
  createRespReader,
  RespProtocolError,
} from '../../../services/ratelimit/adapters/redis/resp-reader.ts';

type Reply = ['integer', number] | ['simple', string] | ['error', string];

function read(chunks: readonly string[]): Reply[] {
  const replies: Reply[] = [];
  const reader = createRespReader({
    integer: (value) => replies.push(['integer', value]),
    simple: (text) => replies.push(['simple', text]),
    error: (text) => replies.push(['error', text]),
  });
  for (const chunk of chunks) reader.feed(Buffer.from(chunk, 'utf8'));
  return replies;
}

const PIPELINE =
  ':1\r\n:1\r\n:-7\r\n:0\r\n+PONG\r\n-WRONGTYPE Operation against a key\r\n:9007199254740991\r\n';
const EXPECTED: Reply[] = [
  ['integer', 1],
  ['integer', 1],
  ['integer', -7],
  ['integer', 0],
  ['simple', 'PONG'],
  ['error', 'WRONGTYPE Operation against a key'],
  ['integer', 9007199254740991],
];

describe('RESP reply reader', () => {
  it('reads integers, simple strings and errors in order', () => {
    expect(read([PIPELINE])).toEqual(EXPECTED);
  });

  it('reads the same replies whichever byte a chunk ends at', () => {
    for (let cut = 1; cut < PIPELINE.length; cut++)
      expect(read([PIPELINE.slice(0, cut), PIPELINE.slice(cut)]), `cut at ${cut}`).toEqual(EXPECTED);
  });

  it('reads replies arriving one byte at a time', () => {
    expect(read([...PIPELINE])).toEqual(EXPECTED);
  });

  it('reads UTF-8 text in errors', () => {
    expect(read(['-ERR clé invalide\r\n'])).toEqual([['error', 'ERR clé invalide']]);
  });

  it('refuses reply types the counter store never asks for, and malformed integers', () => {
    expect(() => read(['$5\r\nhello\r\n'])).toThrow(RespProtocolError);
    expect(() => read(['*1\r\n:1\r\n'])).toThrow('unexpected reply type "*"');
    expect(() => read([':12a\r\n'])).toThrow('bad integer reply');
    expect(() => read([':\r\n'])).toThrow('empty integer reply');
  });
});
