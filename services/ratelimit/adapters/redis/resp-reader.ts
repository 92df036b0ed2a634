// Reads the Redis replies the counter store asks for (RESP2 simple strings, errors, integers, and
// the arrays of integers its scripts answer) straight from the socket's bytes: integers are parsed
// without making strings, and a reply cut between two chunks is kept until the rest arrives.

export interface RespReplies {
  integer(value: number): void;
  simple(text: string): void;
  error(text: string): void;
  /** An array's header: its `length` elements follow as replies of their own (-1: a null array). Absent: arrays are refused. */
  array?(length: number): void;
}

export interface RespReader {
  /** Parses every complete reply in `chunk` (after what was left over), in order. */
  feed(chunk: Buffer): void;
}

/** A reply the reader cannot parse; the connection is then unusable. */
export class RespProtocolError extends Error {
  override name = 'RespProtocolError';
}

const CR = 13;
const PLUS = 43;
const MINUS = 45;
const COLON = 58;
const STAR = 42;
const ZERO = 48;
const NINE = 57;

export function createRespReader(replies: RespReplies): RespReader {
  let rest: Buffer | undefined;
  const array = replies.array?.bind(replies);

  return {
    feed(chunk) {
      const buffer = rest === undefined ? chunk : Buffer.concat([rest, chunk]);
      rest = undefined;
      const end = buffer.length;
      let at = 0;
      while (at < end) {
        const type = buffer[at]!;
        if (type === COLON || (type === STAR && array !== undefined)) {
          let i = at + 1;
          const negative = buffer[i] === MINUS;
          if (negative) i++;
          let value = 0;
          let digits = 0;
          for (; i < end; i++) {
            const c = buffer[i]!;
            if (c === CR) break;
            if (c < ZERO || c > NINE) throw new RespProtocolError(`bad integer reply byte ${c}`);
            value = value * 10 + (c - ZERO);
            digits++;
          }
          if (i + 1 >= end) break;
          if (digits === 0) throw new RespProtocolError('empty integer reply');
          at = i + 2;
          if (type === COLON) replies.integer(negative ? -value : value);
          else array!(negative ? -value : value);
        } else if (type === PLUS || type === MINUS) {
          const cr = buffer.indexOf(CR, at + 1);
          if (cr < 0 || cr + 1 >= end) break;
          const text = buffer.toString('utf8', at + 1, cr);
          at = cr + 2;
          if (type === PLUS) replies.simple(text);
          else replies.error(text);
        } else {
          throw new RespProtocolError(`unexpected reply type ${JSON.stringify(String.fromCharCode(type))}`);
        }
      }
      if (at < end) rest = buffer.subarray(at);
    },
  };
}
