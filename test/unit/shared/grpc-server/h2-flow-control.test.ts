// Flow control of the server's own HTTP/2 (RFC 9113 5.2, 6.9): what it sends stays within the
// connection and stream windows and the peer's SETTINGS_MAX_FRAME_SIZE, waits for WINDOW_UPDATE,
// follows SETTINGS_INITIAL_WINDOW_SIZE changes on open streams (down to a negative window), refuses
// a window past 2^31-1; what it receives is counted (padding included) and its windows topped up.
import { describe, expect, it } from 'vitest';
import { FLAG, FRAME, H2_ERROR, SETTING } from '../../../../shared/grpc-server/h2-frames.ts';
import { OK_TRAILERS, RESPONSE_HEADERS } from '../../../../shared/grpc-server/http2-parts.ts';
import {
  createDriver,
  type Driver,
  data,
  type Frame,
  frame,
  goAwayCode,
  headers,
  resets,
  settings,
  u32,
} from '../../../helpers/h2-driver.ts';

const { FLOW_CONTROL_ERROR } = H2_ERROR;
const dataSizes = (frames: readonly Frame[]) =>
  frames.filter((f) => f.type === FRAME.DATA).map((f) => f.payload.length);
const trailersSent = (frames: readonly Frame[]) =>
  frames.some((f) => f.type === FRAME.HEADERS && (f.flags & FLAG.END_STREAM) !== 0);
const windowUpdate = (id: number, increment: number) => frame(FRAME.WINDOW_UPDATE, 0, id, u32(increment));

/** Opens stream `id` (request complete) and answers it with `size` bytes; returns the frames sent now. */
function answer(driver: Driver, id: number, size: number): Frame[] {
  driver.send(headers(id, true));
  const body = Buffer.alloc(size, id);
  driver.connection.respond(driver.streams.get(id)!, RESPONSE_HEADERS, body, OK_TRAILERS);
  return driver.read();
}

describe('sending within the peer windows', () => {
  it('sends a reply in one write when it fits, frames of at most 16,384 bytes when it does not', () => {
    const driver = createDriver();
    expect(dataSizes(answer(driver, 1, 100))).toEqual([100]);
    expect(dataSizes(answer(driver, 3, 40_000))).toEqual([16_384, 16_384, 7_232]);
  });

  it('stops at the stream window (65,535) and sends the rest and the trailers after WINDOW_UPDATEs', () => {
    const driver = createDriver();
    const first = answer(driver, 1, 70_000);
    expect(dataSizes(first).reduce((a, b) => a + b)).toBe(65_535);
    expect(trailersSent(first)).toBe(false);
    expect(dataSizes(driver.send(windowUpdate(1, 1_000)))).toEqual([]); // the connection window is spent too
    const rest = driver.send(windowUpdate(0, 10_000));
    expect(dataSizes(rest)).toEqual([1_000]);
    const last = driver.send(windowUpdate(1, 10_000));
    expect(dataSizes(last)).toEqual([70_000 - 65_535 - 1_000]);
    expect(trailersSent(last)).toBe(true);
  });

  it('shares the connection window between streams', () => {
    const driver = createDriver();
    driver.send(settings([[SETTING.INITIAL_WINDOW_SIZE, 100_000]]));
    expect(dataSizes(answer(driver, 1, 50_000)).reduce((a, b) => a + b)).toBe(50_000);
    expect(dataSizes(answer(driver, 3, 50_000)).reduce((a, b) => a + b)).toBe(65_535 - 50_000);
    expect(dataSizes(driver.send(windowUpdate(0, 65_535))).reduce((a, b) => a + b)).toBe(50_000 - 15_535);
  });

  it('follows a larger SETTINGS_MAX_FRAME_SIZE', () => {
    const driver = createDriver();
    driver.send(settings([[SETTING.MAX_FRAME_SIZE, 32_768]]));
    expect(dataSizes(answer(driver, 1, 40_000))).toEqual([32_768, 7_232]);
  });

  it('applies SETTINGS_INITIAL_WINDOW_SIZE changes to open streams, through a negative window', () => {
    const driver = createDriver();
    driver.send(settings([[SETTING.INITIAL_WINDOW_SIZE, 10]]));
    expect(dataSizes(answer(driver, 1, 100))).toEqual([10]);
    const stream = driver.connection.streams.get(1)!;
    driver.send(settings([[SETTING.INITIAL_WINDOW_SIZE, 0]]));
    expect(stream.sendWindow).toBe(-10);
    expect(dataSizes(driver.send(windowUpdate(1, 15)))).toEqual([5]);
    const rest = driver.send(settings([[SETTING.INITIAL_WINDOW_SIZE, 200]]));
    expect(dataSizes(rest)).toEqual([85]);
    expect(trailersSent(rest)).toBe(true);
    expect(dataSizes(answer(driver, 3, 300))).toEqual([200]); // new streams start at the new size
  });
});

describe('window overflow (past 2^31-1)', () => {
  it('the connection window: connection error FLOW_CONTROL_ERROR', () => {
    const driver = createDriver();
    expect(goAwayCode(driver.send(windowUpdate(0, 2 ** 31 - 1 - 65_535)))).toBeUndefined();
    expect(goAwayCode(driver.send(windowUpdate(0, 1)))).toBe(FLOW_CONTROL_ERROR);
  });

  it('a stream window: stream error FLOW_CONTROL_ERROR, the connection going on', () => {
    const driver = createDriver();
    driver.send(headers(1));
    expect(resets(driver.send(windowUpdate(1, 2 ** 31 - 65_535)))).toEqual([[1, FLOW_CONTROL_ERROR]]);
    driver.send(headers(3));
    expect(driver.send(windowUpdate(3, 2 ** 31 - 1 - 65_535))).toEqual([]);
    expect(goAwayCode(driver.read())).toBeUndefined();
  });

  it('an INITIAL_WINDOW_SIZE change that takes an open stream past 2^31-1: connection error FLOW_CONTROL_ERROR', () => {
    const driver = createDriver();
    driver.send(headers(1));
    driver.send(windowUpdate(1, 2 ** 30));
    expect(goAwayCode(driver.send(settings([[SETTING.INITIAL_WINDOW_SIZE, 2 ** 31 - 1]])))).toBe(
      FLOW_CONTROL_ERROR,
    );
  });
});

describe('receiving', () => {
  it('tops a stream window up once half of it is spent, not on the frame that ends the stream', () => {
    const driver = createDriver();
    driver.send(headers(1));
    expect(driver.send(data(1, 16_384), data(1, 16_383))).toEqual([]);
    const [update] = driver.send(data(1, 1));
    expect([update!.type, update!.id, update!.payload.readUInt32BE(0)]).toEqual([
      FRAME.WINDOW_UPDATE,
      1,
      32_768,
    ]);
    driver.send(headers(3));
    expect(driver.send(data(3, 16_384), data(3, 16_384, true))).toEqual([]);
  });

  it('counts padding, and tops the connection window (1 MiB) up once half of it is spent', () => {
    const driver = createDriver();
    const padded = (id: number) =>
      frame(FRAME.DATA, FLAG.PADDED, id, Buffer.concat([Buffer.from([255]), Buffer.alloc(16_383)]));
    const updates: Frame[] = [];
    for (let id = 1; id <= 65; id += 2) {
      driver.send(headers(id));
      updates.push(...driver.send(padded(id)).filter((f) => f.id === 0));
    }
    // 33 frames of 16,384 bytes: the 32nd brings the connection window to 512 KiB.
    expect(updates.map((f) => [f.type, f.payload.readUInt32BE(0)])).toEqual([
      [FRAME.WINDOW_UPDATE, 32 * 16_384],
    ]);
  });

  it('counts DATA on a stream it reset against the connection window', () => {
    const driver = createDriver();
    driver.send(headers(1));
    driver.send(windowUpdate(1, 0)); // reset by us
    const updates: Frame[] = [];
    for (let i = 0; i < 32; i++) updates.push(...driver.send(data(1, 16_384)));
    expect(updates.map((f) => [f.type, f.id])).toEqual([[FRAME.WINDOW_UPDATE, 0]]);
  });
});
