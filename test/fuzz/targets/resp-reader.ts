// The counter store's RESP reader (services/ratelimit/adapters/redis/resp-reader.ts) against
// redis-parser, the parser ioredis reads replies with: the same replies in the same order from the
// same bytes however they are cut into chunks; where ours stops with RespProtocolError, what it gave
// before is what redis-parser gave (redis-parser is laxer: it reads `:12x` as a number).
import { createRequire } from 'node:module';
import {
  createRespReader,
  RespProtocolError,
} from '../../../services/ratelimit/adapters/redis/resp-reader.ts';
import { canonical, check, type FuzzTarget, integer, mutate, pick, type Rng, text } from '../fuzz-core.ts';

interface RedisParser {
  execute(chunk: Buffer): void;
}
type RedisParserConstructor = new (options: {
  returnReply(reply: unknown): void;
  returnError(error: Error): void;
  returnFatalError(error: Error): void;
}) => RedisParser;
const RedisParser = createRequire(import.meta.url)('redis-parser') as RedisParserConstructor;

type Reply = ['integer' | 'simple' | 'error', number | string];

/** Replies as Redis sends them for the counter store's commands, and some it never sends. */
function randomReplies(rng: Rng): Buffer {
  const parts: string[] = [];
  for (let n = 1 + rng.int(6); n > 0; n--) {
    switch (rng.int(4)) {
      case 0:
        parts.push(`+${pick(rng, ['OK', 'QUEUED', text(rng, 12).replace(/[\r\n]/g, '')])}\r\n`);
        break;
      case 1:
        parts.push(
          `-${pick(rng, ['ERR unknown command', 'NOSCRIPT No matching script', text(rng, 20).replace(/[\r\n]/g, '')])}\r\n`,
        );
        break;
      case 2: {
        const magnitude = pick(rng, [
          String(integer(rng)),
          '9007199254740993',
          '9223372036854775807',
          String(rng.int(10)),
        ]);
        parts.push(`:${rng.int(4) === 0 ? '-' : ''}${magnitude}\r\n`);
        break;
      }
      default:
        parts.push(
          pick(rng, [':0\r\n', ':1\r\n', '$3\r\nabc\r\n', '*1\r\n:1\r\n', '_\r\n', ':\r\n', ':-\r\n']),
        );
    }
  }
  const bytes = Buffer.from(parts.join(''));
  if (rng.int(4) !== 0) return bytes;
  // Ours refuses arrays; redis-parser allocates the count a mutated `*` header names: none made here.
  const mutated = mutate(rng, bytes);
  for (let i = 0; i < mutated.length; i++) if (mutated[i] === 0x2a) mutated[i] = 0x3f;
  return mutated;
}

function chunks(rng: Rng, bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < bytes.length) {
    const size = rng.int(3) === 0 ? bytes.length - at : 1 + rng.int(bytes.length - at);
    out.push(bytes.subarray(at, at + size));
    at += size;
  }
  return out;
}

function ours(parts: readonly Buffer[]): { replies: Reply[]; failed: boolean } {
  const replies: Reply[] = [];
  const reader = createRespReader({
    integer: (value) => replies.push(['integer', value]),
    simple: (value) => replies.push(['simple', value]),
    error: (value) => replies.push(['error', value]),
  });
  try {
    for (const part of parts) reader.feed(part);
  } catch (error) {
    if (!(error instanceof RespProtocolError)) throw error;
    return { replies, failed: true };
  }
  return { replies, failed: false };
}

function reference(parts: readonly Buffer[]): { replies: Reply[]; failed: boolean } {
  const replies: Reply[] = [];
  let failed = false;
  const parser = new RedisParser({
    returnReply: (reply) =>
      replies.push(typeof reply === 'number' ? ['integer', reply] : ['simple', canonical(reply)]),
    returnError: (error) => replies.push(['error', error.message]),
    returnFatalError: () => {
      failed = true;
    },
  });
  try {
    for (const part of parts) if (!failed) parser.execute(part);
  } catch {
    failed = true; // redis-parser throws on some garbage (RangeError for `*` with a huge count)
  }
  // redis-parser gives simple strings as they are; ours too: compare the text, not its JSON.
  return {
    replies: replies.map(([kind, value]) => [kind, kind === 'simple' ? JSON.parse(value as string) : value]),
    failed,
  };
}

export const respReaderTarget: FuzzTarget = {
  name: 'resp-reader',
  oracle: 'redis-parser (ioredis)',
  run(rng, count, found) {
    for (let i = 0; i < count; i++) {
      const bytes = randomReplies(rng);
      const parts = chunks(rng, bytes);
      check(
        found,
        () => `${bytes.toString('hex')} cut at ${parts.map((p) => p.length).join('+')}`,
        () => {
          const mine = ours(parts);
          const theirs = reference(parts);
          const agreed = theirs.replies.slice(0, mine.replies.length);
          if (canonical(mine.replies) !== canonical(agreed))
            return `ours ${canonical(mine.replies)}, redis-parser ${canonical(theirs.replies)}`;
          if (!mine.failed && (theirs.failed || theirs.replies.length !== mine.replies.length))
            return `ours took ${canonical(mine.replies)} where redis-parser ${theirs.failed ? 'failed' : `gave ${canonical(theirs.replies)}`}`;
          return undefined;
        },
      );
    }
  },
};
