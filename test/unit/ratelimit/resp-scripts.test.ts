// The lean RESP connection's side of the limit scripts: arrays of integers read from any cut of
// the bytes, each script's reply or error kept in order beside INCRBY pipelines, and a reply out of
// step refused.
import { describe, expect, it } from 'vitest';
import { createReplyQueue } from '../../../services/ratelimit/adapters/redis/reply-queue.ts';
import { createRespReader } from '../../../services/ratelimit/adapters/redis/resp-reader.ts';

const INCREMENT = { key: 'k', addend: 1, windowSeconds: 60, perSecond: false };

describe('script replies on the lean connection', () => {
  // An INCRBY + EXPIRE pair, two scripts (one an error), then an empty array and a bucket's reply.
  const BYTES =
    ':7\r\n:1\r\n*3\r\n:1\r\n:283333400\r\n:4\r\n-NOSCRIPT No matching script.\r\n*0\r\n*3\r\n:0\r\n:1700000408571\r\n:3\r\n';

  it('reads every reply whichever byte a chunk ends at', async () => {
    for (let cut = 1; cut < BYTES.length; cut++) {
      const queue = createReplyQueue();
      const counts = queue.increments([INCREMENT]);
      const scripts = queue.scripts(2);
      const more = queue.scripts(2);
      const reader = createRespReader(queue.replies);
      reader.feed(Buffer.from(BYTES.slice(0, cut)));
      reader.feed(Buffer.from(BYTES.slice(cut)));
      expect(await counts, `cut at ${cut}`).toEqual([7]);
      expect(await scripts).toEqual([[1, 283333400, 4], 'NOSCRIPT No matching script.']);
      expect(await more).toEqual([[], [0, 1700000408571, 3]]);
    }
  });

  it('refuses an array where no script waits, which would leave the replies out of step', () => {
    const queue = createReplyQueue();
    void queue.increments([INCREMENT]).catch(() => {});
    const reader = createRespReader(queue.replies);
    expect(() => reader.feed(Buffer.from('*1\r\n:1\r\n'))).toThrow('unexpected array reply of 1');
  });

  it('keeps the reference reader refusing arrays when no one asks for them', () => {
    const reader = createRespReader({ integer() {}, simple() {}, error() {} });
    expect(() => reader.feed(Buffer.from('*1\r\n:1\r\n'))).toThrow('unexpected reply type "*"');
  });

  it('fails every waiting script request when the connection is lost', async () => {
    const queue = createReplyQueue();
    const scripts = queue.scripts(1);
    queue.failAll('connection lost: reset');
    await expect(scripts).rejects.toThrow('connection lost: reset');
  });
});
