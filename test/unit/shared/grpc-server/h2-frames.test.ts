// The server's own HTTP/2 frame by frame (RFC 9113 section 6): each frame type's length, flags,
// stream id and padding rules, and the connection error (GOAWAY with its code, then the end) or
// stream error (RST_STREAM) each broken rule gets. Bytes in, frames out, no socket.
import { describe, expect, it } from 'vitest';
import { FLAG, FRAME, H2_ERROR, PREFACE, SETTING } from '../../../../shared/grpc-server/h2-frames.ts';
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

const { PROTOCOL_ERROR, FRAME_SIZE_ERROR, FLOW_CONTROL_ERROR, COMPRESSION_ERROR, ENHANCE_YOUR_CALM } =
  H2_ERROR;

/** The GOAWAY code after `bytes`, and that the connection closed with no internal error. */
function connectionErrorOf(...bytes: Buffer[]): number | undefined {
  const driver = createDriver();
  const code = goAwayCode(driver.send(...bytes));
  if (code !== undefined) expect(driver.socket.ended).toBe(true);
  expect(driver.events.filter(([event]) => event === 'error')).toEqual([]);
  return code;
}

describe('connection start', () => {
  it('opens with SETTINGS (max concurrent streams, max header list size) and a connection WINDOW_UPDATE', () => {
    const frames = createDriver({ handshake: false }).read();
    expect(frames.map((f) => [f.type, f.flags, f.id])).toEqual([
      [FRAME.SETTINGS, 0, 0],
      [FRAME.WINDOW_UPDATE, 0, 0],
    ]);
    expect(frames[0]!.payload).toEqual(
      Buffer.from([
        0,
        SETTING.MAX_CONCURRENT_STREAMS,
        0,
        0,
        0x03,
        0xe8,
        0,
        SETTING.MAX_HEADER_LIST_SIZE,
        0,
        0,
        0x40,
        0,
      ]),
    );
    expect(frames[1]!.payload.readUInt32BE(0)).toBe((1 << 20) - 65_535);
  });

  it('takes the preface and frames cut anywhere, one byte at a time', () => {
    const driver = createDriver({ handshake: false });
    driver.read();
    const bytes = Buffer.concat([PREFACE, settings([[SETTING.MAX_FRAME_SIZE, 20_000]]), headers(1, true)]);
    const frames = [...bytes].flatMap((byte) => driver.send(Buffer.from([byte])));
    expect(frames.map((f) => [f.type, f.flags])).toEqual([[FRAME.SETTINGS, FLAG.ACK]]);
    expect(driver.events).toEqual([
      ['headers', 1],
      ['end', 1],
    ]);
  });

  it.each([
    ['a wrong preface', Buffer.from('GET / HTTP/1.1\r\n\r\n')],
    ['a wrong preface cut short', Buffer.from('PRI * HTTP/1.1')],
  ])('refuses %s with PROTOCOL_ERROR', (_, bytes) => {
    const driver = createDriver({ handshake: false });
    driver.read();
    expect(goAwayCode(driver.send(bytes))).toBe(PROTOCOL_ERROR);
  });

  it('refuses a first frame other than SETTINGS with PROTOCOL_ERROR', () => {
    const driver = createDriver({ handshake: false });
    driver.read();
    expect(goAwayCode(driver.send(PREFACE, frame(FRAME.PING, 0, 0, Buffer.alloc(8))))).toBe(PROTOCOL_ERROR);
  });

  it('refuses a frame over SETTINGS_MAX_FRAME_SIZE (16,384) with FRAME_SIZE_ERROR, whatever its type', () => {
    expect(connectionErrorOf(frame(0x20, 0, 0, Buffer.alloc(16_385)))).toBe(FRAME_SIZE_ERROR);
    expect(connectionErrorOf(frame(FRAME.DATA, 0, 1, Buffer.alloc(16_384)))).toBe(PROTOCOL_ERROR); // idle, not size
  });

  it('ignores frames of unknown types, and unknown flags on known ones', () => {
    const driver = createDriver();
    expect(driver.send(frame(0x20, 0xff, 0, Buffer.from('extension')))).toEqual([]);
    const ping = driver.send(frame(FRAME.PING, 0xfe, 0, Buffer.from('12345678')));
    expect(ping.map((f) => [f.type, f.flags, f.payload.toString()])).toEqual([
      [FRAME.PING, FLAG.ACK, '12345678'],
    ]);
  });
});

describe('SETTINGS', () => {
  it('acknowledges each SETTINGS frame, ignores unknown settings and takes an ACK silently', () => {
    const driver = createDriver();
    expect(driver.send(settings([[0x99, 7]])).map((f) => [f.type, f.flags, f.payload.length])).toEqual([
      [FRAME.SETTINGS, FLAG.ACK, 0],
    ]);
    expect(driver.send(settings([], FLAG.ACK))).toEqual([]);
  });

  it.each([
    ['an ACK with a payload', frame(FRAME.SETTINGS, FLAG.ACK, 0, Buffer.alloc(6)), FRAME_SIZE_ERROR],
    ['a length not a multiple of 6', frame(FRAME.SETTINGS, 0, 0, Buffer.alloc(7)), FRAME_SIZE_ERROR],
    ['a stream id', frame(FRAME.SETTINGS, 0, 1, Buffer.alloc(0)), PROTOCOL_ERROR],
    ['ENABLE_PUSH of 2', settings([[SETTING.ENABLE_PUSH, 2]]), PROTOCOL_ERROR],
    ['INITIAL_WINDOW_SIZE of 2^31', settings([[SETTING.INITIAL_WINDOW_SIZE, 2 ** 31]]), FLOW_CONTROL_ERROR],
    ['MAX_FRAME_SIZE under 16,384', settings([[SETTING.MAX_FRAME_SIZE, 16_383]]), PROTOCOL_ERROR],
    ['MAX_FRAME_SIZE over 2^24-1', settings([[SETTING.MAX_FRAME_SIZE, 2 ** 24]]), PROTOCOL_ERROR],
  ])('refuses %s', (_, bytes, code) => {
    expect(connectionErrorOf(bytes)).toBe(code);
  });

  it('takes the limits of each setting', () => {
    const limits = settings([
      [SETTING.ENABLE_PUSH, 1],
      [SETTING.INITIAL_WINDOW_SIZE, 2 ** 31 - 1],
      [SETTING.MAX_FRAME_SIZE, 2 ** 24 - 1],
      [SETTING.MAX_FRAME_SIZE, 16_384],
      [SETTING.HEADER_TABLE_SIZE, 0],
    ]);
    expect(connectionErrorOf(limits)).toBeUndefined();
  });
});

describe('PING, GOAWAY, PUSH_PROMISE', () => {
  it('answers PING with an ACK of the same 8 bytes, and does not answer an ACK', () => {
    const driver = createDriver();
    const [ack] = driver.send(frame(FRAME.PING, 0, 0, Buffer.from('abcdefgh')));
    expect([ack!.type, ack!.flags, ack!.id, ack!.payload.toString()]).toEqual([
      FRAME.PING,
      FLAG.ACK,
      0,
      'abcdefgh',
    ]);
    expect(driver.send(frame(FRAME.PING, FLAG.ACK, 0, Buffer.alloc(8)))).toEqual([]);
  });

  it.each([
    ['PING of 7 bytes', frame(FRAME.PING, 0, 0, Buffer.alloc(7)), FRAME_SIZE_ERROR],
    ['PING on a stream', frame(FRAME.PING, 0, 1, Buffer.alloc(8)), PROTOCOL_ERROR],
    ['GOAWAY on a stream', frame(FRAME.GOAWAY, 0, 1, u32(0, 0)), PROTOCOL_ERROR],
    ['PUSH_PROMISE from a client', frame(FRAME.PUSH_PROMISE, FLAG.END_HEADERS, 1, u32(2)), PROTOCOL_ERROR],
  ])('refuses %s', (_, bytes, code) => {
    expect(connectionErrorOf(bytes)).toBe(code);
  });

  it('closes once idle after the client GOAWAY, and names the last stream it processed in its own', () => {
    const driver = createDriver();
    driver.send(headers(1), headers(3, true));
    driver.send(frame(FRAME.GOAWAY, 0, 0, u32(0, 0)));
    expect(driver.socket.ended).toBe(false); // two streams under way
    driver.send(frame(FRAME.RST_STREAM, 0, 1, u32(H2_ERROR.CANCEL)), frame(FRAME.RST_STREAM, 0, 3, u32(8)));
    expect(driver.socket.ended).toBe(true);
    const failed = createDriver();
    failed.send(headers(5, true));
    const [goAway] = failed.send(frame(FRAME.PING, 0, 0, Buffer.alloc(3)));
    expect([goAway!.type, goAway!.payload.readUInt32BE(0), goAway!.payload.readUInt32BE(4)]).toEqual([
      FRAME.GOAWAY,
      5,
      FRAME_SIZE_ERROR,
    ]);
  });
});

describe('HEADERS and CONTINUATION', () => {
  const fields = block(GRPC_REQUEST);

  it('gathers a block from HEADERS and CONTINUATIONs, padding and priority stripped', () => {
    const driver = createDriver();
    const first = Buffer.concat([
      Buffer.from([3]),
      u32(0),
      Buffer.from([16]),
      fields.subarray(0, 10),
      Buffer.alloc(3),
    ]);
    driver.send(frame(FRAME.HEADERS, FLAG.PADDED | FLAG.PRIORITY | FLAG.END_STREAM, 1, first));
    driver.send(frame(FRAME.CONTINUATION, 0, 1, fields.subarray(10, 20)));
    expect(driver.events).toEqual([]);
    driver.send(frame(FRAME.CONTINUATION, FLAG.END_HEADERS, 1, fields.subarray(20)));
    expect(driver.events).toEqual([
      ['headers', 1],
      ['end', 1],
    ]);
    expect(driver.streams.get(1)!.headers).toEqual(Object.fromEntries(GRPC_REQUEST));
  });

  it.each([
    ['HEADERS on stream 0', frame(FRAME.HEADERS, FLAG.END_HEADERS, 0, fields), PROTOCOL_ERROR],
    ['HEADERS on an even stream', frame(FRAME.HEADERS, FLAG.END_HEADERS, 2, fields), PROTOCOL_ERROR],
    [
      'a priority cut short',
      frame(FRAME.HEADERS, FLAG.PRIORITY | FLAG.END_HEADERS, 1, u32(0)),
      FRAME_SIZE_ERROR,
    ],
    ['a padded frame without a pad length', frame(FRAME.HEADERS, FLAG.PADDED, 1), FRAME_SIZE_ERROR],
    [
      'padding as long as the payload',
      frame(FRAME.HEADERS, FLAG.PADDED, 1, Buffer.from([2, 0])),
      PROTOCOL_ERROR,
    ],
    ['CONTINUATION without HEADERS', frame(FRAME.CONTINUATION, FLAG.END_HEADERS, 1, fields), PROTOCOL_ERROR],
    [
      'a block that does not decode',
      frame(FRAME.HEADERS, FLAG.END_HEADERS, 1, Buffer.from([0x80])),
      COMPRESSION_ERROR,
    ],
  ])('refuses %s', (_, bytes, code) => {
    expect(connectionErrorOf(bytes)).toBe(code);
  });

  it.each([
    ['a frame of another type', frame(FRAME.PING, 0, 0, Buffer.alloc(8))],
    ['a CONTINUATION of another stream', frame(FRAME.CONTINUATION, FLAG.END_HEADERS, 3, fields)],
    ['an extension frame', frame(0x20, 0, 0)],
  ])('refuses a header block interrupted by %s with PROTOCOL_ERROR', (_, bytes) => {
    expect(connectionErrorOf(frame(FRAME.HEADERS, 0, 1, fields), bytes)).toBe(PROTOCOL_ERROR);
  });

  it('refuses a header block over 64 KiB (a CONTINUATION flood) with ENHANCE_YOUR_CALM', () => {
    const part = Buffer.alloc(16_384);
    const flood = [frame(FRAME.HEADERS, 0, 1, part), ...Array(4).fill(frame(FRAME.CONTINUATION, 0, 1, part))];
    expect(connectionErrorOf(...flood)).toBe(ENHANCE_YOUR_CALM);
  });

  it('resets a stream whose HEADERS make it depend on itself (PROTOCOL_ERROR)', () => {
    const driver = createDriver();
    const payload = Buffer.concat([u32(1), Buffer.from([0]), fields]);
    expect(resets(driver.send(frame(FRAME.HEADERS, FLAG.PRIORITY | FLAG.END_HEADERS, 1, payload)))).toEqual([
      [1, PROTOCOL_ERROR],
    ]);
    expect(driver.events).toEqual([]);
  });
});

describe('DATA, PRIORITY, RST_STREAM, WINDOW_UPDATE', () => {
  it('strips DATA padding, and counts it in flow control', () => {
    const driver = createDriver();
    driver.send(headers(1));
    const padded = Buffer.concat([Buffer.from([4]), Buffer.from('body'), Buffer.alloc(4)]);
    driver.send(frame(FRAME.DATA, FLAG.PADDED | FLAG.END_STREAM, 1, padded));
    expect(driver.streams.get(1)!.message().toString()).toBe('body');
    expect(driver.streams.get(1)!.recvWindow).toBe(65_535 - 9);
  });

  it.each([
    ['DATA on stream 0', data(0, 1), PROTOCOL_ERROR],
    ['DATA on an idle stream', data(1, 1), PROTOCOL_ERROR],
    ['padded DATA without a pad length', frame(FRAME.DATA, FLAG.PADDED, 1), FRAME_SIZE_ERROR],
    ['PRIORITY on stream 0', frame(FRAME.PRIORITY, 0, 0, Buffer.alloc(5)), PROTOCOL_ERROR],
    ['RST_STREAM on stream 0', frame(FRAME.RST_STREAM, 0, 0, u32(0)), PROTOCOL_ERROR],
    ['RST_STREAM of 5 bytes', frame(FRAME.RST_STREAM, 0, 1, Buffer.alloc(5)), FRAME_SIZE_ERROR],
    ['RST_STREAM on an idle stream', frame(FRAME.RST_STREAM, 0, 1, u32(0)), PROTOCOL_ERROR],
    ['WINDOW_UPDATE of 3 bytes', frame(FRAME.WINDOW_UPDATE, 0, 0, Buffer.alloc(3)), FRAME_SIZE_ERROR],
    ['a connection WINDOW_UPDATE of 0', frame(FRAME.WINDOW_UPDATE, 0, 0, u32(0)), PROTOCOL_ERROR],
    ['WINDOW_UPDATE on an idle stream', frame(FRAME.WINDOW_UPDATE, 0, 1, u32(1)), PROTOCOL_ERROR],
  ])('refuses %s', (_, bytes, code) => {
    expect(connectionErrorOf(bytes)).toBe(code);
  });

  it('refuses padded DATA whose padding fills the frame on an open stream with PROTOCOL_ERROR', () => {
    expect(connectionErrorOf(headers(1), frame(FRAME.DATA, FLAG.PADDED, 1, Buffer.from([2, 0])))).toBe(
      PROTOCOL_ERROR,
    );
  });

  it('takes PRIORITY on any stream, and resets a wrong size or a self-dependency', () => {
    const driver = createDriver();
    expect(driver.send(frame(FRAME.PRIORITY, 0, 9, Buffer.alloc(5)))).toEqual([]);
    expect(resets(driver.send(frame(FRAME.PRIORITY, 0, 11, Buffer.alloc(4))))).toEqual([
      [11, FRAME_SIZE_ERROR],
    ]);
    const self = Buffer.concat([u32(13), Buffer.from([0])]);
    expect(resets(driver.send(frame(FRAME.PRIORITY, 0, 13, self)))).toEqual([[13, PROTOCOL_ERROR]]);
  });

  it('resets a stream WINDOW_UPDATE of 0 with PROTOCOL_ERROR, the connection going on', () => {
    const driver = createDriver();
    driver.send(headers(1));
    expect(resets(driver.send(frame(FRAME.WINDOW_UPDATE, 0, 1, u32(0))))).toEqual([[1, PROTOCOL_ERROR]]);
    expect(driver.events).toEqual([
      ['headers', 1],
      ['closed', 1],
    ]);
    expect(driver.send(headers(3, true)).length).toBe(0);
    expect(driver.events.at(-1)).toEqual(['end', 3]);
  });

  it('ignores the reserved bit of a stream id and of a WINDOW_UPDATE increment', () => {
    const driver = createDriver();
    const reserved = headers(1, true);
    reserved[5]! |= 0x80;
    driver.send(reserved);
    expect(driver.events).toEqual([
      ['headers', 1],
      ['end', 1],
    ]);
    expect(driver.send(frame(FRAME.WINDOW_UPDATE, 0, 0, u32(0x8000_0001)))).toEqual([]);
  });
});
