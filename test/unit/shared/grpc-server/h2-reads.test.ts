// The connection reads a byte stream, not a sequence of reads: however the same bytes are cut into
// reads (one byte at a time, across frame headers, inside large frames, at random), the requests
// it completes (in the order of each stream's events) and the bytes it answers are the same as when they arrive in one read. (Only a
// reset may tell reads apart: a request reset in the read that completed it never runs.)
import { describe, expect, it } from 'vitest';
import { createRng } from '../../../../services/experiment/suggestion/rng.ts';
import { FLAG, FRAME, PREFACE } from '../../../../shared/grpc-server/h2-frames.ts';
import {
  block,
  createDriver,
  data,
  frame,
  GRPC_REQUEST,
  headers,
  settings,
} from '../../../helpers/h2-driver.ts';

const big = Array.from({ length: 12 }, (_, i) => [`x-field-${i}`, 'v'.repeat(900)] as const);
const STREAM = Buffer.concat([
  PREFACE,
  settings([[4, 1 << 20]]),
  headers(1),
  data(1, 16_384),
  data(1, 5_000),
  data(1, 3, true),
  frame(FRAME.PING, 0, 0, Buffer.alloc(8, 7)),
  frame(FRAME.HEADERS, FLAG.END_STREAM, 3, block([...GRPC_REQUEST, ...big]).subarray(0, 6_000)),
  frame(FRAME.CONTINUATION, FLAG.END_HEADERS, 3, block([...GRPC_REQUEST, ...big]).subarray(6_000)),
  settings([], FLAG.ACK),
  headers(5, true),
]);

function readIn(pieces: readonly Buffer[]) {
  const driver = createDriver({ handshake: false });
  driver.read();
  for (const piece of pieces) driver.socket.emit('data', piece);
  driver.connection.flush();
  // Requests complete at the end of a read, so their order across streams follows the reads.
  const events: Record<number, string[]> = {};
  for (const [event, id] of driver.events) events[id] = [...(events[id] ?? []), event];
  return { events, written: Buffer.concat(driver.socket.written) };
}

const cutAt = (bytes: Buffer, offsets: readonly number[]): Buffer[] =>
  [0, ...offsets, bytes.length]
    .slice(1)
    .map((end, i, ends) => bytes.subarray(i === 0 ? 0 : ends[i - 1], end));

describe('reads cut anywhere', () => {
  const whole = readIn([STREAM]);

  it('the stream in one read completes its three requests', () => {
    expect(whole.events).toEqual({ 1: ['headers', 'end'], 3: ['headers', 'end'], 5: ['headers', 'end'] });
  });

  it('one byte at a time', () => {
    const bytes = Array.from({ length: STREAM.length }, (_, i) => STREAM.subarray(i, i + 1));
    expect(readIn(bytes)).toEqual(whole);
  });

  it('in two reads, cut at each of 400 places', () => {
    for (let cut = 1; cut < STREAM.length; cut += Math.ceil(STREAM.length / 400))
      expect(readIn(cutAt(STREAM, [cut])), `cut at ${cut}`).toEqual(whole);
  });

  it('in reads of random sizes (50 seeds)', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const rng = createRng(seed);
      const offsets: number[] = [];
      for (let at = rng.int(20_000) + 1; at < STREAM.length; at += rng.int(seed % 2 ? 40 : 20_000) + 1)
        offsets.push(at);
      expect(readIn(cutAt(STREAM, offsets)), `seed ${seed}`).toEqual(whole);
    }
  });
});
