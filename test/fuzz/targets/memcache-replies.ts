// The memcached reply reader (services/ratelimit/adapters/memcached/memcache-replies.ts) against a
// reference written from memcached's protocol.txt (no JavaScript memcached client exposes its
// parser): a get's reply is `VALUE <key> <flags> <bytes> [<cas unique>]\r\n<data block>\r\n`
// lines and `END\r\n`, the data block counted in bytes; incr and add answer one line; any may be
// `ERROR`, `CLIENT_ERROR <error>` or `SERVER_ERROR <error>`; a key holds no control character or
// whitespace. The same replies from the same bytes
// however they are cut, or an error where the reference finds the bytes malformed.
import {
  MemcacheProtocolError,
  type MemcacheReply,
  MemcacheReplyReader,
} from '../../../services/ratelimit/adapters/memcached/memcache-replies.ts';
import { canonical, check, type FuzzTarget, integer, mutate, pick, type Rng, text } from '../fuzz-core.ts';

type Expected = { kind: 'values'; values: [string, string][] } | { kind: 'line' | 'error'; line: string };

const crlf = (bytes: Buffer, from: number): number => bytes.indexOf('\r\n', from);

/** The replies to `requests` (true: a get) in `bytes`; 'malformed' where they stop being replies. */
function reference(bytes: Buffer, requests: readonly boolean[]): { replies: Expected[]; malformed: boolean } {
  const replies: Expected[] = [];
  let at = 0;
  for (const multi of requests) {
    const values: [string, string][] = [];
    for (;;) {
      const end = crlf(bytes, at);
      if (end < 0) return { replies, malformed: false }; // the rest has not come yet
      const line = bytes.toString('utf8', at, end);
      const words = line.split(' ');
      // protocol.txt's ERROR has no text; servers that add some mean an error all the same.
      if (['ERROR', 'CLIENT_ERROR', 'SERVER_ERROR'].includes(words[0]!)) {
        at = end + 2;
        replies.push({ kind: 'error', line });
        break;
      }
      if (!multi) {
        at = end + 2;
        replies.push({ kind: 'line', line });
        break;
      }
      if (line === 'END') {
        at = end + 2;
        replies.push({ kind: 'values', values: [...new Map(values)] }); // a key asked twice: its last value
        break;
      }
      const numbers = words.slice(2).every((w) => /^\d+$/.test(w));
      const key = words[1] ?? '';
      const keyOk = key !== '' && [...key].every((c) => c.charCodeAt(0) > 32 && c.charCodeAt(0) !== 127);
      if (words[0] !== 'VALUE' || words.length < 4 || words.length > 5 || !keyOk || !numbers)
        return { replies, malformed: true };
      const size = Number(words[3]);
      if (bytes.length < end + 2 + size + 2) return { replies, malformed: false };
      if (bytes.toString('latin1', end + 2 + size, end + 4 + size) !== '\r\n')
        return { replies, malformed: true };
      values.push([words[1]!, bytes.toString('utf8', end + 2, end + 2 + size)]);
      at = end + 4 + size;
    }
  }
  return { replies, malformed: false };
}

function ours(
  parts: readonly Buffer[],
  requests: readonly boolean[],
): { replies: Expected[]; malformed: boolean } {
  const reader = new MemcacheReplyReader();
  const replies: Expected[] = [];
  let next = 0;
  try {
    for (const part of parts) {
      reader.push(part);
      for (let reply: MemcacheReply | undefined; next < requests.length; next++) {
        reply = reader.next(requests[next]!);
        if (reply === undefined) break;
        replies.push(reply.kind === 'values' ? { kind: 'values', values: [...reply.values] } : reply);
      }
    }
  } catch (error) {
    if (!(error instanceof MemcacheProtocolError)) throw error;
    return { replies, malformed: true };
  }
  return { replies, malformed: false };
}

const KEYS = ['ratelimit_domain_key_value_1767225600', 'k', 'ключ_é', 'a'.repeat(250)];

function randomReplies(rng: Rng): { bytes: Buffer; requests: boolean[] } {
  const requests: boolean[] = [];
  const parts: (string | Buffer)[] = [];
  for (let n = 1 + rng.int(4); n > 0; n--) {
    const multi = rng.int(2) === 0;
    requests.push(multi);
    if (rng.int(10) === 0) {
      parts.push(
        `${pick(rng, ['ERROR', 'CLIENT_ERROR bad command line format', 'SERVER_ERROR out of memory'])}\r\n`,
      );
      continue;
    }
    if (!multi) {
      parts.push(
        `${pick(rng, ['STORED', 'NOT_STORED', 'NOT_FOUND', String(integer(rng)), '18446744073709551615'])}\r\n`,
      );
      continue;
    }
    for (let v = rng.int(4); v > 0; v--) {
      const value = Buffer.from(rng.int(4) === 0 ? text(rng, 8) : String(integer(rng)));
      const cas = rng.int(2) === 0 ? ` ${integer(rng)}` : '';
      parts.push(
        `VALUE ${pick(rng, KEYS)} ${rng.int(2) === 0 ? 0 : integer(rng)} ${value.length}${cas}\r\n`,
        value,
        '\r\n',
      );
    }
    parts.push('END\r\n');
  }
  const bytes = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
  return { bytes: rng.int(4) === 0 ? mutate(rng, bytes) : bytes, requests };
}

export const memcacheRepliesTarget: FuzzTarget = {
  name: 'memcache-replies',
  oracle: "a reference of memcached's protocol.txt",
  run(rng, count, found) {
    for (let i = 0; i < count; i++) {
      const { bytes, requests } = randomReplies(rng);
      const cuts = [
        0,
        ...Array.from({ length: rng.int(4) }, () => rng.int(bytes.length + 1)).sort((a, b) => a - b),
        bytes.length,
      ];
      const parts = cuts.slice(1).map((end, j) => bytes.subarray(cuts[j], end));
      check(
        found,
        () =>
          `${bytes.toString('hex')} for ${requests.map((m) => (m ? 'get' : 'incr')).join(',')} cut at ${cuts.join(',')}`,
        () => {
          const mine = ours(parts, requests);
          const theirs = reference(bytes, requests);
          if (canonical(mine) === canonical(theirs)) return undefined;
          return `ours ${canonical(mine)}, reference ${canonical(theirs)}`;
        },
      );
    }
  },
};
