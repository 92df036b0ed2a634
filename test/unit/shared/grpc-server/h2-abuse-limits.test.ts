// The per-connection limits of the HTTP/2 server against the floods of CVE-2023-44487 and its kin:
// a reset budget (nghttp2's 1,000, refilled at 33/s), a budget of frames without content (SETTINGS,
// empty DATA, HEADERS and CONTINUATION), nothing read after a connection error, requests reset in
// the read that completed them never reaching a handler, handlers of reset streams still counted against the stream limit,
// ACKs the peer does not read bounded; and field values holding NUL, CR or LF refused (RFC 9113 8.2.1).
import { describe, expect, it } from 'vitest';
import { MAX_CONCURRENT_STREAMS } from '../../../../shared/grpc-server/h2-connection.ts';
import {
  EMPTY_FRAME_BURST,
  MAX_UNREAD_ACKS,
  RESET_BURST,
} from '../../../../shared/grpc-server/h2-control.ts';
import { FLAG, FRAME, H2_ERROR } from '../../../../shared/grpc-server/h2-frames.ts';
import {
  block,
  createDriver,
  data,
  frame,
  GRPC_REQUEST,
  goAwayCode,
  headers,
  resets,
  settings,
  u32,
} from '../../../helpers/h2-driver.ts';

const rst = (id: number) => frame(FRAME.RST_STREAM, 0, id, u32(H2_ERROR.CANCEL));
const ping = (n: number) => frame(FRAME.PING, 0, 0, Buffer.alloc(8, n));

describe('the reset budget', () => {
  it(`takes ${RESET_BURST} resets at once, then ends the connection with GOAWAY ENHANCE_YOUR_CALM`, () => {
    const driver = createDriver();
    const burst: Buffer[] = [];
    for (let i = 0; i < RESET_BURST; i++) burst.push(headers(2 * i + 1), rst(2 * i + 1));
    expect(goAwayCode(driver.send(...burst))).toBeUndefined();
    // The bucket refills at 33/s: a few more, sent at once, run it dry.
    const more: Buffer[] = [];
    for (let i = RESET_BURST; i < RESET_BURST + 40; i++) more.push(headers(2 * i + 1), rst(2 * i + 1));
    expect(goAwayCode(driver.send(...more))).toBe(H2_ERROR.ENHANCE_YOUR_CALM);
    expect(driver.socket.ended).toBe(true);
  });
});

describe('the budget of frames without content', () => {
  const times = (n: number, make: (i: number) => Buffer) => Array.from({ length: n }, (_, i) => make(i));
  const emptyContinuation = (id: number) => frame(FRAME.CONTINUATION, 0, id);

  it.each([
    ['SETTINGS', () => [], () => settings([[4, 65_535]])],
    ['empty DATA that does not end the stream', () => [headers(1)], () => data(1, 0)],
    [
      'empty CONTINUATION that does not end the block',
      () => [frame(FRAME.HEADERS, FLAG.END_STREAM, 1, block(GRPC_REQUEST))],
      () => emptyContinuation(1),
    ],
  ] as const)(
    `takes ${EMPTY_FRAME_BURST} %s at once, then ends the connection with GOAWAY ENHANCE_YOUR_CALM`,
    (_, opening, one) => {
      const driver = createDriver();
      expect(goAwayCode(driver.send(...opening(), ...times(EMPTY_FRAME_BURST, one)))).toBeUndefined();
      // The bucket refills at 100/s: a few more, sent at once, run it dry.
      expect(goAwayCode(driver.send(...times(40, one)))).toBe(H2_ERROR.ENHANCE_YOUR_CALM);
      expect(driver.socket.ended).toBe(true);
    },
  );

  it('does not count what ends a stream or a header block, nor SETTINGS ACKs', () => {
    const driver = createDriver();
    const frames: Buffer[] = [];
    // 600 requests, each a HEADERS without END_HEADERS, an empty CONTINUATION that ends the block,
    // an empty DATA that ends the stream, and a SETTINGS ACK: 1,800 frames, none counted.
    for (let i = 0; i < 600; i++) {
      const id = 2 * i + 1;
      frames.push(
        frame(FRAME.HEADERS, 0, id, block(GRPC_REQUEST)),
        frame(FRAME.CONTINUATION, FLAG.END_HEADERS, id),
        data(id, 0, true),
        settings([], FLAG.ACK),
      );
    }
    expect(goAwayCode(driver.send(...frames))).toBeUndefined();
    expect(driver.events.filter(([event]) => event === 'end')).toHaveLength(600);
  });
});

describe('after a connection error', () => {
  it('reads nothing more: the socket is paused, and closed a second later', () => {
    const driver = createDriver();
    expect(goAwayCode(driver.send(frame(FRAME.PING, 0, 1, Buffer.alloc(8))))).toBe(H2_ERROR.PROTOCOL_ERROR);
    expect(driver.socket.paused).toBe(true);
    expect(driver.socket.ended).toBe(true);
    driver.socket.emit('drain');
    expect(driver.socket.paused).toBe(true);
  });
});

describe('a request reset in the read that completed it', () => {
  it('never reaches a handler; one completed in an earlier read does', () => {
    const driver = createDriver();
    driver.send(headers(1), data(1, 3, true), rst(1));
    expect(driver.events.filter(([event]) => event === 'end')).toEqual([]);
    driver.send(headers(3), data(3, 3, true));
    driver.send(rst(3));
    expect(driver.events.filter(([event]) => event === 'end')).toEqual([['end', 3]]);
  });
});

describe('handlers still running for reset streams', () => {
  it('count against MAX_CONCURRENT_STREAMS: a new stream is refused until they settle', () => {
    const driver = createDriver({
      onEnd: (_, connection) => {
        connection.running += 1;
      },
    });
    driver.connection.running = MAX_CONCURRENT_STREAMS - 1;
    driver.send(headers(1), data(1, 3, true));
    driver.send(rst(1)); // the stream is gone, its handler is not
    expect(driver.streams.get(1)?.closed).toBe(true);
    expect(resets(driver.send(headers(3, true)))).toEqual([[3, H2_ERROR.REFUSED_STREAM]]);
    driver.connection.running -= 1; // the handler settled
    expect(resets(driver.send(headers(5, true)))).toEqual([]);
  });
});

describe('ACKs the peer does not read', () => {
  it(`ends the connection past ${MAX_UNREAD_ACKS} while the socket is backed up, not while it is read`, () => {
    const read = createDriver();
    for (let round = 0; round < 3; round++)
      expect(goAwayCode(read.send(...Array.from({ length: 600 }, (_, i) => ping(i))))).toBeUndefined();

    const stalled = createDriver();
    // The peer reads nothing: every write is taken but stays queued.
    stalled.socket.write = (bytes: Buffer) => {
      stalled.socket.written.push(Buffer.from(bytes));
      return false;
    };
    expect(goAwayCode(stalled.send(...Array.from({ length: 600 }, (_, i) => ping(i))))).toBeUndefined();
    const frames = stalled.send(...Array.from({ length: 600 }, (_, i) => ping(i)));
    expect(goAwayCode(frames)).toBe(H2_ERROR.ENHANCE_YOUR_CALM);
    expect(stalled.socket.ended).toBe(true);
  });
});

describe('field values (RFC 9113 8.2.1)', () => {
  it.each([
    ['NUL', 'a\u0000b'],
    ['CR', 'a\rb'],
    ['LF', 'a\nb'],
    ['another control character', 'a\u0006b'],
    ['DEL', 'a\u007fb'],
  ])('a value holding %s makes the request malformed: stream error PROTOCOL_ERROR', (_, value) => {
    const driver = createDriver();
    expect(resets(driver.send(headers(1, true, [...GRPC_REQUEST, ['x-bad', value]])))).toEqual([
      [1, H2_ERROR.PROTOCOL_ERROR],
    ]);
    const badPath = [[':path', `/a${value}`] as const, ...GRPC_REQUEST.filter(([n]) => n !== ':path')];
    expect(resets(driver.send(headers(3, true, badPath)))).toEqual([[3, H2_ERROR.PROTOCOL_ERROR]]);
    expect(driver.events).toEqual([]);
  });
});
