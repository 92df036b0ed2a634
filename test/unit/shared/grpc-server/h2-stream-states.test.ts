// Stream states of the server's own HTTP/2 (RFC 9113 5.1): idle → open → half-closed (remote) →
// closed, what each frame does in each state, stream id order, RST_STREAM and GOAWAY either way, the
// concurrency limit, and the malformed requests of 8.1–8.3 (a stream error, the connection goes on).
import { describe, expect, it } from 'vitest';
import { FLAG, FRAME, H2_ERROR } from '../../../../shared/grpc-server/h2-frames.ts';
import type { H2Output } from '../../../../shared/grpc-server/h2-output.ts';
import type { H2Stream } from '../../../../shared/grpc-server/h2-stream.ts';
import { OK_TRAILERS, RESPONSE_HEADERS } from '../../../../shared/grpc-server/http2-parts.ts';
import {
  createDriver,
  data,
  frame,
  GRPC_REQUEST,
  goAwayCode,
  headers,
  resets,
  u32,
} from '../../../helpers/h2-driver.ts';

const { NO_ERROR, PROTOCOL_ERROR, STREAM_CLOSED, REFUSED_STREAM, CANCEL } = H2_ERROR;
const answer = (stream: H2Stream, connection: H2Output): void =>
  connection.respond(stream, RESPONSE_HEADERS, Buffer.from('reply'), OK_TRAILERS);
const kinds = (frames: ReadonlyArray<{ type: number; flags: number; id: number }>) =>
  frames.map((f) => [f.type, f.flags, f.id]);

describe('stream states', () => {
  it('idle → open → half-closed (remote) → closed: headers, body, END_STREAM, then the answer', () => {
    const driver = createDriver({ onEnd: answer });
    expect(driver.send(headers(1))).toEqual([]);
    expect(driver.events).toEqual([['headers', 1]]);
    driver.send(data(1, Buffer.from('ab')));
    const frames = driver.send(data(1, Buffer.from('cd'), true));
    expect(driver.streams.get(1)!.message().toString()).toBe('abcd');
    expect(kinds(frames)).toEqual([
      [FRAME.HEADERS, FLAG.END_HEADERS, 1],
      [FRAME.DATA, 0, 1],
      [FRAME.HEADERS, FLAG.END_HEADERS | FLAG.END_STREAM, 1],
    ]);
    expect(frames[1]!.payload.toString()).toBe('reply');
    expect(driver.events).toEqual([
      ['headers', 1],
      ['end', 1],
      ['closed', 1],
    ]);
    expect(driver.connection.streams.size).toBe(0);
  });

  it('takes trailers that end the request, and resets trailers without END_STREAM, with a pseudo-header or over 16 KiB', () => {
    const driver = createDriver();
    driver.send(headers(1), data(1, 3), headers(1, true, [['x-trailer', 'yes']]));
    expect(driver.events).toEqual([
      ['headers', 1],
      ['end', 1],
    ]);
    driver.send(headers(3), headers(5));
    const frames = driver.send(headers(3, false, [['x-trailer', 'no']]), headers(5, true, [[':path', '/']]));
    expect(resets(frames)).toEqual([
      [3, PROTOCOL_ERROR],
      [5, PROTOCOL_ERROR],
    ]);
    driver.send(headers(7));
    expect(resets(driver.send(...splitHeaders(7, [['x-big', 'v'.repeat(16_384)]])))).toEqual([
      [7, PROTOCOL_ERROR],
    ]);
    expect(driver.events.filter(([, id]) => id === 7)).toEqual([
      ['headers', 7],
      ['closed', 7],
    ]);
  });

  it('half-closed (remote): DATA or HEADERS after END_STREAM is a stream error STREAM_CLOSED', () => {
    const driver = createDriver();
    driver.send(headers(1, true));
    expect(resets(driver.send(data(1, 1)))).toEqual([[1, STREAM_CLOSED]]);
    driver.send(headers(3, true));
    expect(resets(driver.send(headers(3, true, [['x', 'y']])))).toEqual([[3, STREAM_CLOSED]]);
    expect(goAwayCode(driver.read())).toBeUndefined();
  });

  it('closed: DATA is a stream error STREAM_CLOSED, HEADERS a connection error STREAM_CLOSED', () => {
    const driver = createDriver({ onEnd: answer });
    driver.send(headers(1, true));
    expect(resets(driver.send(data(1, 1)))).toEqual([[1, STREAM_CLOSED]]);
    expect(goAwayCode(driver.send(headers(1, true)))).toBe(STREAM_CLOSED);
  });

  it('stream ids only grow: a lower id never opened is a connection error PROTOCOL_ERROR', () => {
    const driver = createDriver();
    driver.send(headers(5, true));
    expect(goAwayCode(driver.send(headers(3, true)))).toBe(PROTOCOL_ERROR);
  });

  it('an id skipped over is closed: RST_STREAM and WINDOW_UPDATE on it are taken without answer', () => {
    const driver = createDriver();
    driver.send(headers(7, true));
    expect(
      driver.send(frame(FRAME.RST_STREAM, 0, 3, u32(CANCEL)), frame(FRAME.WINDOW_UPDATE, 0, 5, u32(9))),
    ).toEqual([]);
  });

  it('RST_STREAM from the client closes the stream: the answer given later writes nothing, DATA after it is STREAM_CLOSED', () => {
    let later: (() => void) | undefined;
    const driver = createDriver({
      onEnd: (stream, connection) => (later = () => answer(stream, connection)),
    });
    driver.send(headers(1, true));
    driver.send(frame(FRAME.RST_STREAM, 0, 1, u32(CANCEL)));
    expect(driver.events.at(-1)).toEqual(['closed', 1]);
    later!();
    expect(driver.read()).toEqual([]);
    // After receiving RST_STREAM, any frame but PRIORITY is a stream error STREAM_CLOSED (5.1).
    expect(resets(driver.send(data(1, 1)))).toEqual([[1, STREAM_CLOSED]]);
    expect(driver.send(frame(FRAME.PRIORITY, 0, 1, Buffer.alloc(5)))).toEqual([]);
  });

  it('DATA still in flight on a stream we reset is dropped without a second RST_STREAM', () => {
    const driver = createDriver({ onEnd: answer });
    driver.send(headers(1));
    driver.send(frame(FRAME.WINDOW_UPDATE, 0, 1, u32(0)));
    expect(driver.send(data(1, 10))).toEqual([]);
  });

  it('an answer before the request ends is followed by RST_STREAM NO_ERROR (the rest is not wanted)', () => {
    const driver = createDriver();
    driver.send(headers(1));
    const stream = driver.streams.get(1)!;
    driver.connection.respond(stream, RESPONSE_HEADERS, Buffer.from('early'), OK_TRAILERS);
    const frames = driver.read();
    expect(kinds(frames).at(-1)).toEqual([FRAME.RST_STREAM, 0, 1]);
    expect(resets(frames)).toEqual([[1, NO_ERROR]]);
    expect(driver.send(data(1, 5, true))).toEqual([]);
  });

  it('refuses a stream past MAX_CONCURRENT_STREAMS (1000) with REFUSED_STREAM, and takes one once a stream closes', () => {
    const driver = createDriver();
    const opened = Array.from({ length: 1000 }, (_, i) => headers(2 * i + 1));
    expect(driver.send(...opened)).toEqual([]);
    expect(resets(driver.send(headers(2001)))).toEqual([[2001, REFUSED_STREAM]]);
    driver.send(frame(FRAME.RST_STREAM, 0, 1, u32(CANCEL)));
    expect(driver.send(headers(2003))).toEqual([]);
    expect(driver.connection.streams.size).toBe(1000);
  });
});

describe('GOAWAY and the connection going', () => {
  it('our GOAWAY names the last stream; streams under way finish, later ones are not processed', () => {
    const driver = createDriver({ onEnd: answer });
    driver.send(headers(1), headers(3));
    driver.connection.goAway();
    const [goAway] = driver.read();
    expect([goAway!.type, goAway!.payload.readUInt32BE(0), goAway!.payload.readUInt32BE(4)]).toEqual([
      FRAME.GOAWAY,
      3,
      NO_ERROR,
    ]);
    expect(driver.send(headers(5, true))).toEqual([]);
    expect(driver.events.some(([, id]) => id === 5)).toBe(false);
    driver.send(data(1, 0, true));
    expect(driver.socket.ended).toBe(false);
    driver.send(data(3, 0, true));
    expect(driver.socket.ended).toBe(true);
  });

  it('a socket that ends closes every stream', () => {
    const driver = createDriver();
    driver.send(headers(1), headers(3, true));
    driver.socket.emit('end');
    expect(driver.events.filter(([event]) => event === 'closed').map(([, id]) => id)).toEqual([1, 3]);
    expect(driver.socket.ended).toBe(true);
  });

  it('a connection error drops every stream and sends nothing after the GOAWAY', () => {
    const driver = createDriver();
    driver.send(headers(1));
    const frames = driver.send(
      frame(FRAME.PING, 0, 0, Buffer.alloc(1)),
      frame(FRAME.PING, 0, 0, Buffer.alloc(8)),
    );
    expect(kinds(frames)).toEqual([[FRAME.GOAWAY, 0, 0]]);
    expect(driver.events.at(-1)).toEqual(['closed', 1]);
  });
});

describe('malformed requests (stream error PROTOCOL_ERROR, the connection goes on)', () => {
  const without = (name: string) => GRPC_REQUEST.filter(([key]) => key !== name);
  it.each([
    ['no :method', without(':method')],
    ['no :scheme', without(':scheme')],
    ['no :path', without(':path')],
    ['an empty :path', [...without(':path'), [':path', '']]],
    ['a pseudo-header after a regular one', [...GRPC_REQUEST, [':authority', 'x']]],
    ['a response pseudo-header', [[':status', '200'], ...GRPC_REQUEST]],
    ['a repeated pseudo-header', [[':method', 'POST'], ...GRPC_REQUEST]],
    ['an uppercase name', [...GRPC_REQUEST, ['X-Upper', '1']]],
    ['a connection-specific header', [...GRPC_REQUEST, ['connection', 'keep-alive']]],
    ['te other than trailers', [...without('te'), ['te', 'gzip']]],
    ['a content-length not a number', [...GRPC_REQUEST, ['content-length', '1e3']]],
    ['a header list over 16 KiB', [...GRPC_REQUEST, ['x-big', 'v'.repeat(16_384)]]],
  ] as const)('%s', (_, fields) => {
    const driver = createDriver();
    const frames = driver.send(...splitHeaders(1, fields as ReadonlyArray<readonly [string, string]>));
    expect(resets(frames)).toEqual([[1, PROTOCOL_ERROR]]);
    expect(driver.events).toEqual([]);
    expect(driver.send(headers(3, true))).toEqual([]);
    expect(driver.events).toEqual([
      ['headers', 3],
      ['end', 3],
    ]);
  });

  it('a body that does not match content-length', () => {
    const driver = createDriver();
    driver.send(headers(1, false, [...GRPC_REQUEST, ['content-length', '4']]));
    expect(resets(driver.send(data(1, 3, true)))).toEqual([[1, PROTOCOL_ERROR]]);
    expect(driver.events).toEqual([
      ['headers', 1],
      ['closed', 1],
    ]);
  });

  it('a body past the limit: onOversize once, the rest of the body dropped', () => {
    const driver = createDriver({ maxBodyBytes: 10, onOversize: answer });
    driver.send(headers(1), data(1, 8));
    driver.send(data(1, 8));
    expect(driver.events).toEqual([
      ['headers', 1],
      ['oversize', 1],
      ['closed', 1],
    ]);
    expect(driver.send(data(1, 8, true))).toEqual([]);
  });
});

/** A request's header block in HEADERS and as many CONTINUATIONs as it needs. */
function splitHeaders(id: number, fields: ReadonlyArray<readonly [string, string]>): Buffer[] {
  const whole = headers(id, true, fields).subarray(9);
  const parts: Buffer[] = [];
  for (let at = 0; at < whole.length; at += 16_384) parts.push(whole.subarray(at, at + 16_384));
  return parts.map((part, i) =>
    frame(
      i === 0 ? FRAME.HEADERS : FRAME.CONTINUATION,
      (i === 0 ? FLAG.END_STREAM : 0) | (i === parts.length - 1 ? FLAG.END_HEADERS : 0),
      id,
      part,
    ),
  );
}
