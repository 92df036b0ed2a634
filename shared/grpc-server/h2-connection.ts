// The server side of one HTTP/2 connection (RFC 9113) for the gRPC server, as it reads: the
// preface, SETTINGS, HEADERS + CONTINUATION through HPACK, DATA within our flow-control windows,
// PING, RST_STREAM, GOAWAY, WINDOW_UPDATE, and every protocol error (a connection error is GOAWAY
// and the end; a stream error RST_STREAM). No server push; priorities are accepted and ignored.
// Answers go out through H2Output.
import type { Socket } from 'node:net';
import { H2Control } from './h2-control.ts';
import {
  DEFAULT_MAX_FRAME,
  DEFAULT_WINDOW,
  FLAG,
  FRAME,
  FRAME_HEADER_BYTES,
  H2_ERROR,
  PREFACE,
  pingAck,
  SETTING,
  settingsFrame,
  word,
} from './h2-frames.ts';
import { type CompleteBlock, ConnectionError, HeaderBlock, unpad } from './h2-header-block.ts';
import type { StreamHandler } from './h2-output.ts';
import { checkTrailers, H2Stream, takeRequestHeaders } from './h2-stream.ts';
import { HpackDecoder } from './hpack.ts';

export const MAX_CONCURRENT_STREAMS = 1000;
const MAX_HEADER_LIST = 16 * 1024;
/** SETTINGS_HEADER_TABLE_SIZE: the default, not announced. */
const DEFAULT_HEADER_TABLE = 4096;
/** The connection's receive window (opened at the start) and when it is topped up again. */
const CONNECTION_WINDOW = 1 << 20;
const STREAM_REFILL = DEFAULT_WINDOW >> 1;
const OUR_SETTINGS = Buffer.concat([
  settingsFrame([
    [SETTING.MAX_CONCURRENT_STREAMS, MAX_CONCURRENT_STREAMS],
    [SETTING.MAX_HEADER_LIST_SIZE, MAX_HEADER_LIST],
  ]),
  word(FRAME.WINDOW_UPDATE, 0, CONNECTION_WINDOW - DEFAULT_WINDOW),
]);

export class H2Connection extends H2Control {
  private readonly maxBodyBytes: number;
  private readonly decoder = new HpackDecoder(DEFAULT_HEADER_TABLE, MAX_HEADER_LIST);
  private pending: Buffer | undefined = undefined;
  private prefaceSeen = false;

  /** The receive window of the connection (ours). */
  private recvWindow = CONNECTION_WINDOW;
  private readonly block = new HeaderBlock(this.decoder);
  /** Requests completed by the frames being read: dispatched once the whole read is taken in. */
  private ready: H2Stream[] = [];

  constructor(socket: Socket, handler: StreamHandler, maxBodyBytes: number) {
    super(socket, handler);
    this.maxBodyBytes = maxBodyBytes;
    socket.setNoDelay(true);
    this.write(OUR_SETTINGS);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('drain', () => {
      this.acksUnread = 0;
      if (!this.closed) socket.resume();
    });
    socket.on('error', () => {});
    socket.on('end', () => this.end());
    socket.on('close', () => this.gone());
  }

  private receive(chunk: Buffer): void {
    let buf = chunk;
    let at = 0;
    try {
      if (this.pending !== undefined) buf = this.joinPending(this.pending, chunk);
      if (!this.prefaceSeen) {
        if (buf.length < PREFACE.length) {
          if (!PREFACE.subarray(0, buf.length).equals(buf))
            throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'bad preface');
          this.pending = buf;
          return;
        }
        if (!PREFACE.equals(buf.subarray(0, PREFACE.length)))
          throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'bad preface');
        this.prefaceSeen = true;
        at = PREFACE.length;
      }
      at = this.frames(buf, at);
      this.dispatchReady();
    } catch (error) {
      if (error instanceof ConnectionError) {
        this.fail(error.code);
        return;
      }
      this.handler.onError(error);
      this.fail(H2_ERROR.INTERNAL_ERROR);
      return;
    }
    if (at < buf.length && !this.closed) this.pending = buf.subarray(at);
  }

  /**
   * The start of a read after one that ended inside a frame: that frame is completed from the
   * head of the chunk and read on its own, and the rest of the chunk is returned to be read in
   * place (a copy of at most one frame, not of every 64 KB read of a flood of large frames).
   */
  private joinPending(pending: Buffer, chunk: Buffer): Buffer {
    this.pending = undefined;
    if (!this.prefaceSeen) return Buffer.concat([pending, chunk]);
    const have = pending.length;
    if (have + chunk.length < FRAME_HEADER_BYTES) {
      this.pending = Buffer.concat([pending, chunk]);
      return chunk.subarray(chunk.length);
    }
    const header =
      have >= FRAME_HEADER_BYTES
        ? pending
        : Buffer.concat([pending, chunk.subarray(0, FRAME_HEADER_BYTES - have)]);
    const length = (header[0]! << 16) | (header[1]! << 8) | header[2]!;
    if (length > DEFAULT_MAX_FRAME) throw new ConnectionError(H2_ERROR.FRAME_SIZE_ERROR, 'frame too large');
    const take = FRAME_HEADER_BYTES + length - have;
    if (take > chunk.length) {
      this.pending = Buffer.concat([pending, chunk]);
      return chunk.subarray(chunk.length);
    }
    this.frames(Buffer.concat([pending, chunk.subarray(0, take)]), 0);
    return chunk.subarray(take);
  }

  /** Reads the whole frames of `buf` from `at`; returns where the first incomplete one starts. */
  private frames(buf: Buffer, at: number): number {
    while (buf.length - at >= FRAME_HEADER_BYTES && !this.closed) {
      const length = (buf[at]! << 16) | (buf[at + 1]! << 8) | buf[at + 2]!;
      if (length > DEFAULT_MAX_FRAME) throw new ConnectionError(H2_ERROR.FRAME_SIZE_ERROR, 'frame too large');
      if (buf.length - at < FRAME_HEADER_BYTES + length) break;
      const type = buf[at + 3]!;
      const flags = buf[at + 4]!;
      const id = buf.readUInt32BE(at + 5) & 0x7fffffff;
      const start = at + FRAME_HEADER_BYTES;
      at = start + length;
      this.frame(type, flags, id, buf, start, at);
    }
    return at;
  }

  private frame(type: number, flags: number, id: number, buf: Buffer, start: number, end: number): void {
    if (!this.settingsSeen && type !== FRAME.SETTINGS)
      throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'the first frame is not SETTINGS');
    if (this.block.stream !== 0 && (type !== FRAME.CONTINUATION || id !== this.block.stream))
      throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'a header block was interrupted');
    switch (type) {
      case FRAME.DATA:
        this.data(flags, id, buf, start, end);
        return;
      case FRAME.HEADERS:
        if (end === start && (flags & FLAG.END_HEADERS) === 0) this.countEmptyFrame();
        this.headerBlock(this.block.begin(flags, id, buf, start, end));
        return;
      case FRAME.CONTINUATION:
        if (this.block.stream === 0)
          throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'CONTINUATION without HEADERS');
        if (end === start && (flags & FLAG.END_HEADERS) === 0) this.countEmptyFrame();
        this.headerBlock(this.block.add(buf.subarray(start, end), (flags & FLAG.END_HEADERS) !== 0));
        return;
      case FRAME.PRIORITY:
        if (id === 0) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'PRIORITY on stream 0');
        if (end - start !== 5) {
          this.streamError(id, H2_ERROR.FRAME_SIZE_ERROR);
          return;
        }
        if ((buf.readUInt32BE(start) & 0x7fffffff) === id) this.streamError(id, H2_ERROR.PROTOCOL_ERROR);
        return;
      case FRAME.RST_STREAM: {
        if (id === 0) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'RST_STREAM on stream 0');
        if (end - start !== 4) throw new ConnectionError(H2_ERROR.FRAME_SIZE_ERROR, 'RST_STREAM size');
        if (id > this.lastStreamId)
          throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'RST_STREAM on an idle stream');
        this.countReset();
        const stream = this.streams.get(id);
        if (stream !== undefined) this.drop(stream);
        return;
      }
      case FRAME.SETTINGS:
        this.settings(flags, id, buf, start, end);
        return;
      case FRAME.PUSH_PROMISE:
        throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'PUSH_PROMISE from a client');
      case FRAME.PING:
        if (id !== 0) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'PING on a stream');
        if (end - start !== 8) throw new ConnectionError(H2_ERROR.FRAME_SIZE_ERROR, 'PING size');
        if ((flags & FLAG.ACK) === 0) this.writeAck(pingAck(buf, start));
        return;
      case FRAME.GOAWAY:
        if (id !== 0) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'GOAWAY on a stream');
        this.goingAway = true;
        this.closeIfIdle();
        return;
      case FRAME.WINDOW_UPDATE:
        this.windowUpdate(id, buf, start, end);
        return;
      default:
        return; // an extension frame: ignored
    }
  }

  private data(flags: number, id: number, buf: Buffer, start: number, end: number): void {
    if (id === 0) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'DATA on stream 0');
    const size = end - start;
    this.recvWindow -= size;
    if (this.recvWindow < 0)
      throw new ConnectionError(H2_ERROR.FLOW_CONTROL_ERROR, 'connection window exceeded');
    if (this.recvWindow <= CONNECTION_WINDOW >> 1) {
      this.write(word(FRAME.WINDOW_UPDATE, 0, CONNECTION_WINDOW - this.recvWindow));
      this.recvWindow = CONNECTION_WINDOW;
    }
    const [from, to] = unpad(flags, buf, start, end);
    if (to === from && (flags & FLAG.END_STREAM) === 0) this.countEmptyFrame();
    const stream = this.streams.get(id);
    if (stream === undefined) {
      if (id > this.lastStreamId)
        throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'DATA on an idle stream');
      if (!this.resetIds.includes(id)) this.streamError(id, H2_ERROR.STREAM_CLOSED);
      return;
    }
    if (stream.remoteEnded) {
      this.streamError(id, H2_ERROR.STREAM_CLOSED);
      return;
    }
    stream.recvWindow -= size;
    if (stream.recvWindow < 0) {
      this.streamError(id, H2_ERROR.FLOW_CONTROL_ERROR);
      return;
    }
    const ended = (flags & FLAG.END_STREAM) !== 0;
    if (!ended && stream.recvWindow <= STREAM_REFILL) {
      this.write(word(FRAME.WINDOW_UPDATE, id, DEFAULT_WINDOW - stream.recvWindow));
      stream.recvWindow = DEFAULT_WINDOW;
    }
    if (to > from && !stream.discarding) {
      stream.append(buf.subarray(from, to));
      if (stream.bodyBytes > this.maxBodyBytes) {
        stream.discarding = true;
        this.handler.onOversize(stream, this);
        if (stream.closed) return;
      }
    }
    if (ended && this.remoteEnd(stream)) this.dispatch(stream);
  }

  /** Marks the request complete; false when it is malformed (then reset) or already answered. */
  private remoteEnd(stream: H2Stream): boolean {
    stream.remoteEnded = true;
    if (stream.contentLength >= 0 && stream.contentLength !== stream.bodyBytes) {
      this.streamError(stream.id, H2_ERROR.PROTOCOL_ERROR);
      return false;
    }
    if (stream.localEnded) this.drop(stream);
    return !stream.closed && !stream.discarding;
  }

  /** A complete request waits for the end of the read: one reset in the same read means no handler runs. */
  private dispatch(stream: H2Stream): void {
    this.ready.push(stream);
  }

  private dispatchReady(): void {
    if (this.ready.length === 0) return;
    const ready = this.ready;
    this.ready = [];
    for (const stream of ready) if (!stream.closed && !stream.localEnded) this.handler.onEnd(stream, this);
  }

  private headerBlock(block: CompleteBlock | undefined): void {
    if (block === undefined) return;
    const { id, endStream } = block;
    const existing = this.streams.get(id);
    if (existing !== undefined) {
      // Trailers: they must end the stream and carry no pseudo-header.
      if (existing.remoteEnded) {
        this.streamError(id, H2_ERROR.STREAM_CLOSED);
        return;
      }
      if (!endStream || this.decoder.overLimit || checkTrailers(this.decoder) !== undefined)
        this.streamError(id, H2_ERROR.PROTOCOL_ERROR);
      else if (this.remoteEnd(existing)) this.dispatch(existing);
      return;
    }
    if (id <= this.lastStreamId) {
      if (this.closedIds.includes(id))
        throw new ConnectionError(H2_ERROR.STREAM_CLOSED, 'HEADERS on a closed stream');
      throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'a stream id lower than one already used');
    }
    this.lastStreamId = id;
    if (block.selfDependent) {
      this.streamError(id, H2_ERROR.PROTOCOL_ERROR);
      return;
    }
    if (this.goingAway) return; // after our GOAWAY: not processed, the client may retry elsewhere
    // Handlers of reset streams still count: a reset frees a stream, not the work it started.
    if (this.streams.size >= MAX_CONCURRENT_STREAMS || this.running >= MAX_CONCURRENT_STREAMS) {
      this.streamError(id, H2_ERROR.REFUSED_STREAM);
      return;
    }
    if (this.decoder.overLimit) {
      this.streamError(id, H2_ERROR.PROTOCOL_ERROR);
      return;
    }
    const stream = new H2Stream(id, this.socket, this.peerInitialWindow, DEFAULT_WINDOW);
    if (takeRequestHeaders(stream, this.decoder) !== undefined) {
      this.streamError(id, H2_ERROR.PROTOCOL_ERROR);
      return;
    }
    this.streams.set(id, stream);
    // A request without a body is complete before the gRPC layer sees it (so an answer to it ends the stream).
    if (endStream && !this.remoteEnd(stream)) return;
    this.handler.onHeaders(stream, this);
    if (endStream && !stream.closed && !stream.localEnded) this.dispatch(stream);
  }
}
