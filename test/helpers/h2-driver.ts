// Drives the gRPC server's own HTTP/2 connection with bytes in and frames out, without a socket: a
// stand-in with the few members H2Connection uses records what it writes, and the test reads the
// frames back. Frame builders write what a client would send; block() writes header fields as HPACK
// literals (any valid block would do: the decoder has its own tests).
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { H2Connection } from '../../shared/grpc-server/h2-connection.ts';
import { FLAG, FRAME, PREFACE, writeFrameHeader } from '../../shared/grpc-server/h2-frames.ts';
import type { H2Output, StreamHandler } from '../../shared/grpc-server/h2-output.ts';
import type { H2Stream } from '../../shared/grpc-server/h2-stream.ts';
import { writeLiteral } from '../../shared/grpc-server/hpack.ts';

/** The members of a net.Socket that H2Connection and H2Output use, writes kept in order. */
export class SocketStandIn extends EventEmitter {
  readonly written: Buffer[] = [];
  destroyed = false;
  ended = false;
  paused = false;
  write(bytes: Buffer): boolean {
    this.written.push(Buffer.from(bytes));
    return true;
  }
  setNoDelay(): this {
    return this;
  }
  pause(): this {
    this.paused = true;
    return this;
  }
  resume(): this {
    this.paused = false;
    return this;
  }
  end(): this {
    this.ended = true;
    return this;
  }
  destroy(): this {
    this.destroyed = true;
    return this;
  }
}

export interface Frame {
  readonly type: number;
  readonly flags: number;
  readonly id: number;
  readonly payload: Buffer;
}

export type HandlerEvent = readonly [
  'headers' | 'end' | 'oversize' | 'closed' | 'error',
  number,
  ...unknown[],
];

export interface Driver {
  readonly connection: H2Connection;
  readonly socket: SocketStandIn;
  /** What the handler was told, in order: [event, stream id]. */
  readonly events: HandlerEvent[];
  readonly streams: Map<number, H2Stream>;
  /** Feeds bytes as one socket chunk; returns the frames the connection wrote in answer. */
  send(...chunks: Buffer[]): Frame[];
  /** The frames written since the last read (flushing the batch first). */
  read(): Frame[];
}

export interface DriverOptions {
  readonly maxBodyBytes?: number;
  /** What the handler does when a request is complete (default: nothing; the test answers). */
  readonly onEnd?: (stream: H2Stream, connection: H2Output) => void;
  readonly onOversize?: (stream: H2Stream, connection: H2Output) => void;
  /** Sends the preface and an empty SETTINGS and drops the frames answering them (default true). */
  readonly handshake?: boolean;
}

export function createDriver(options: DriverOptions = {}): Driver {
  const socket = new SocketStandIn();
  const events: HandlerEvent[] = [];
  const streams = new Map<number, H2Stream>();
  const handler: StreamHandler = {
    onHeaders: (stream) => {
      streams.set(stream.id, stream);
      events.push(['headers', stream.id]);
    },
    onEnd: (stream, connection) => {
      events.push(['end', stream.id]);
      options.onEnd?.(stream, connection);
    },
    onOversize: (stream, connection) => {
      events.push(['oversize', stream.id]);
      options.onOversize?.(stream, connection);
    },
    onClosed: (stream) => events.push(['closed', stream.id]),
    onError: (error) => events.push(['error', 0, error]),
  };
  const connection = new H2Connection(socket as unknown as Socket, handler, options.maxBodyBytes ?? 1 << 20);
  let readUpTo = 0;
  const read = (): Frame[] => {
    connection.flush();
    const fresh = Buffer.concat(socket.written.slice(readUpTo));
    readUpTo = socket.written.length;
    return parseFrames(fresh);
  };
  const send = (...chunks: Buffer[]): Frame[] => {
    socket.emit('data', Buffer.concat(chunks));
    return read();
  };
  if (options.handshake !== false) {
    read();
    send(PREFACE, settings([]));
  }
  return { connection, socket, events, streams, send, read };
}

export function parseFrames(bytes: Buffer): Frame[] {
  const frames: Frame[] = [];
  for (let at = 0; at < bytes.length; ) {
    const length = bytes.readUIntBE(at, 3);
    const payload = bytes.subarray(at + 9, at + 9 + length);
    if (payload.length !== length) throw new Error(`a frame cut short at ${at}`);
    frames.push({ type: bytes[at + 3]!, flags: bytes[at + 4]!, id: bytes.readUInt32BE(at + 5), payload });
    at += 9 + length;
  }
  return frames;
}

export function frame(type: number, flags: number, id: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const out = Buffer.alloc(9 + payload.length);
  writeFrameHeader(out, 0, payload.length, type, flags, id);
  payload.copy(out, 9);
  return out;
}

export const u32 = (...values: number[]): Buffer => {
  const out = Buffer.alloc(4 * values.length);
  values.forEach((value, i) => {
    out.writeUInt32BE(value >>> 0, 4 * i);
  });
  return out;
};

export function settings(pairs: ReadonlyArray<readonly [number, number]>, flags = 0): Buffer {
  const payload = Buffer.alloc(6 * pairs.length);
  pairs.forEach(([key, value], i) => {
    payload.writeUInt16BE(key, 6 * i);
    payload.writeUInt32BE(value >>> 0, 6 * i + 2);
  });
  return frame(FRAME.SETTINGS, flags, 0, payload);
}

/** Header fields as an HPACK block of literals without indexing. */
export function block(fields: ReadonlyArray<readonly [string, string]>): Buffer {
  const out = Buffer.alloc(fields.reduce((n, [k, v]) => n + k.length + v.length + 12, 0));
  let at = 0;
  for (const [name, value] of fields) at = writeLiteral(out, at, name, value);
  return out.subarray(0, at);
}

export const GRPC_REQUEST: ReadonlyArray<readonly [string, string]> = [
  [':method', 'POST'],
  [':scheme', 'http'],
  [':path', '/pkg.Service/Method'],
  [':authority', 'localhost'],
  ['content-type', 'application/grpc'],
  ['te', 'trailers'],
];

/** A request's HEADERS frame (END_HEADERS, and END_STREAM when `end`). */
export function headers(
  id: number,
  end = false,
  fields: ReadonlyArray<readonly [string, string]> = GRPC_REQUEST,
): Buffer {
  return frame(FRAME.HEADERS, FLAG.END_HEADERS | (end ? FLAG.END_STREAM : 0), id, block(fields));
}

export const data = (id: number, payload: Buffer | number, end = false): Buffer =>
  frame(
    FRAME.DATA,
    end ? FLAG.END_STREAM : 0,
    id,
    typeof payload === 'number' ? Buffer.alloc(payload) : payload,
  );

/** The error code of the GOAWAY among `frames`, or undefined. */
export function goAwayCode(frames: readonly Frame[]): number | undefined {
  const goAway = frames.find((f) => f.type === FRAME.GOAWAY);
  return goAway?.payload.readUInt32BE(4);
}

/** The RST_STREAMs among `frames` as [stream id, code]. */
export const resets = (frames: readonly Frame[]): Array<[number, number]> =>
  frames.filter((f) => f.type === FRAME.RST_STREAM).map((f) => [f.id, f.payload.readUInt32BE(0)]);
