// The sending half of a server HTTP/2 connection (RFC 9113) for the gRPC server: response
// HEADERS, DATA within the peer's flow-control windows (queued until WINDOW_UPDATE when they are
// spent), trailers, RST_STREAM, GOAWAY, and the streams' closing. Frames are written in batches,
// once per tick, so the replies a Redis round trip releases together leave in one write.
import type { Socket } from 'node:net';
import {
  DEFAULT_MAX_FRAME,
  DEFAULT_WINDOW,
  FLAG,
  FRAME,
  FRAME_HEADER_BYTES,
  goAwayFrame,
  H2_ERROR,
  word,
  writeFrameHeader,
} from './h2-frames.ts';
import type { H2Stream } from './h2-stream.ts';

/** What the gRPC layer does with the calls of a connection. */
export interface StreamHandler {
  /** A request's headers arrived (and were well-formed). */
  onHeaders(stream: H2Stream, connection: H2Output): void;
  /** The request's body is complete (END_STREAM), unless the stream was already answered. */
  onEnd(stream: H2Stream, connection: H2Output): void;
  /** The body passed the limit: the stream must be answered now. */
  onOversize(stream: H2Stream, connection: H2Output): void;
  /** The stream is over, either way (answered, reset, connection gone). */
  onClosed(stream: H2Stream): void;
  /** A bug met while serving the connection (it is closed with INTERNAL_ERROR, the process goes on). */
  onError(error: unknown): void;
}

const flush = (connection: H2Output): void => connection.flush();
/** A dynamic table size update to 0 (RFC 7541 6.3). */
const SIZE_UPDATE_TO_ZERO = Buffer.from([0x20]);

function emptyEnd(id: number): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  writeFrameHeader(out, 0, 0, FRAME.DATA, FLAG.END_STREAM, id);
  return out;
}

export class H2Output {
  readonly socket: Socket;
  readonly streams = new Map<number, H2Stream>();
  protected readonly handler: StreamHandler;
  protected lastStreamId = 0;
  protected goingAway = false;
  protected closed = false;
  /** Streams closed lately, and those of them we reset (frames still in flight on those are dropped). */
  protected readonly closedIds: number[] = [];
  protected readonly resetIds: number[] = [];
  // The peer's flow control: what we may send.
  protected sendWindow = DEFAULT_WINDOW;
  protected peerInitialWindow = DEFAULT_WINDOW;
  protected peerMaxFrame = DEFAULT_MAX_FRAME;
  /**
   * The dynamic table size our encoder last told the peer: 4,096 until our first update. We index
   * nothing, so when the peer's SETTINGS lower its decoder's table, one update to 0 says all.
   */
  protected encoderTableSize = 4096;
  /** The next header block must start with a table size update (RFC 7541 4.2; nghttp2 refuses one without). */
  protected sizeUpdateDue = false;
  private blocked: H2Stream[] = [];
  private out: Buffer[] = [];
  private scheduled = false;
  /**
   * Handlers running for this connection's calls, including those of streams the peer reset
   * since: the gRPC layer counts them, and new streams are refused while they fill the limit.
   */
  running = 0;
  /** PING and SETTINGS ACKs written since the peer last read what we sent. */
  protected acksUnread = 0;

  constructor(socket: Socket, handler: StreamHandler) {
    this.socket = socket;
    this.handler = handler;
  }

  /** Queues bytes for the next batch. */
  write(bytes: Buffer): void {
    this.out.push(bytes);
    if (!this.scheduled) {
      this.scheduled = true;
      process.nextTick(flush, this);
    }
  }

  flush(): void {
    this.scheduled = false;
    const out = this.out;
    if (out.length === 0 || this.socket.destroyed) return;
    this.out = [];
    const ok = this.socket.write(out.length === 1 ? out[0]! : Buffer.concat(out));
    if (!ok)
      this.socket.pause(); // the peer does not read: stop reading until it does
    else this.acksUnread = 0;
  }

  /** GOAWAY: streams under way finish, new ones are not taken, the socket closes once idle. */
  goAway(): void {
    if (this.goingAway || this.closed) return;
    this.goingAway = true;
    this.write(goAwayFrame(this.lastStreamId, H2_ERROR.NO_ERROR));
    this.closeIfIdle();
  }

  /** A connection error: GOAWAY with its code, every stream dropped, the socket closed. */
  protected fail(code: number): void {
    if (this.closed) return;
    this.write(goAwayFrame(this.lastStreamId, code));
    this.goingAway = true;
    this.end();
    // Nothing more is read (a peer that sends garbage or floods would otherwise be read, and
    // its bytes dropped, for as long as the socket lingers); the GOAWAY has a second to arrive.
    this.socket.pause();
    setTimeout(() => this.socket.destroy(), 1_000).unref();
  }

  destroy(): void {
    this.socket.destroy();
  }

  /** Sends the response headers (a header block) before any DATA; `end` makes it trailers-only. */
  sendHeaders(stream: H2Stream, headerBlock: Buffer, end: boolean): void {
    if (stream.closed) return;
    const block = this.withSizeUpdate(headerBlock);
    const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + block.length);
    writeFrameHeader(
      out,
      0,
      block.length,
      FRAME.HEADERS,
      FLAG.END_HEADERS | (end ? FLAG.END_STREAM : 0),
      stream.id,
    );
    block.copy(out, FRAME_HEADER_BYTES);
    this.write(out);
    stream.headersSent = true;
    if (end) this.localEnd(stream);
  }

  /** Response headers, one DATA payload and the trailers in one write when the windows allow it. */
  respond(stream: H2Stream, headerBlock: Buffer, data: Buffer, trailers: Buffer): void {
    if (stream.closed) return;
    const n = data.length;
    if (n > this.sendWindow || n > stream.sendWindow || n > this.peerMaxFrame) {
      this.sendHeaders(stream, headerBlock, false);
      this.sendData(stream, data);
      this.sendTrailers(stream, trailers);
      return;
    }
    const headers = this.withSizeUpdate(headerBlock);
    const out = Buffer.allocUnsafe(3 * FRAME_HEADER_BYTES + headers.length + n + trailers.length);
    let at = writeFrameHeader(out, 0, headers.length, FRAME.HEADERS, FLAG.END_HEADERS, stream.id);
    at += headers.copy(out, at);
    at = writeFrameHeader(out, at, n, FRAME.DATA, 0, stream.id);
    at += data.copy(out, at);
    at = writeFrameHeader(
      out,
      at,
      trailers.length,
      FRAME.HEADERS,
      FLAG.END_HEADERS | FLAG.END_STREAM,
      stream.id,
    );
    trailers.copy(out, at);
    this.sendWindow -= n;
    stream.sendWindow -= n;
    stream.headersSent = true;
    this.write(out);
    this.localEnd(stream);
  }

  /** `block`, after a size update to 0 when one is due. */
  private withSizeUpdate(block: Buffer): Buffer {
    if (!this.sizeUpdateDue) return block;
    this.sizeUpdateDue = false;
    this.encoderTableSize = 0;
    return Buffer.concat([SIZE_UPDATE_TO_ZERO, block]);
  }

  /** DATA, as much as the windows allow now, the rest when WINDOW_UPDATEs come. */
  sendData(stream: H2Stream, data: Buffer): void {
    if (stream.closed || stream.localEnded) return;
    if (stream.queued !== undefined) stream.queued.push(data);
    else if (!this.trySend(stream, data)) this.blocked.push(stream); // what is left is queued
  }

  /** Trailers (END_STREAM), after the DATA still queued; `null`: END_STREAM on an empty DATA frame. */
  sendTrailers(stream: H2Stream, block: Buffer | null): void {
    if (stream.closed || stream.localEnded) return;
    if (stream.queued !== undefined) stream.queuedTrailers = block;
    else if (block !== null) this.sendHeaders(stream, block, true);
    else {
      this.write(emptyEnd(stream.id));
      this.localEnd(stream);
    }
  }

  /** Ends a stream with RST_STREAM (a stream error, or NO_ERROR after an early answer). */
  reset(stream: H2Stream, code: number): void {
    this.write(word(FRAME.RST_STREAM, stream.id, code));
    this.rememberReset(stream.id);
    this.drop(stream);
  }

  /** Sends what fits of `data`; false (and `data` sliced to what is left) when it did not all fit. */
  private trySend(stream: H2Stream, data: Buffer): boolean {
    let at = 0;
    while (at < data.length) {
      const n = Math.min(data.length - at, this.sendWindow, stream.sendWindow, this.peerMaxFrame);
      if (n <= 0) {
        if (stream.queued !== undefined) stream.queued[0] = data.subarray(at);
        else stream.queued = [data.subarray(at)];
        return false;
      }
      const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + n);
      writeFrameHeader(out, 0, n, FRAME.DATA, 0, stream.id);
      data.copy(out, FRAME_HEADER_BYTES, at, at + n);
      this.write(out);
      this.sendWindow -= n;
      stream.sendWindow -= n;
      at += n;
    }
    return true;
  }

  /** Sends queued DATA (and trailers after it) of the streams waiting for window. */
  protected unblock(): void {
    const waiting = this.blocked;
    this.blocked = [];
    for (const stream of waiting) {
      if (stream.closed || stream.queued === undefined) continue;
      const queue = stream.queued;
      let stuck = false;
      while (queue.length > 0) {
        if (!this.trySend(stream, queue[0]!)) {
          stuck = true;
          break;
        }
        queue.shift();
      }
      if (stuck) {
        this.blocked.push(stream);
        continue;
      }
      stream.queued = undefined;
      const trailers = stream.queuedTrailers;
      stream.queuedTrailers = undefined;
      if (trailers !== undefined) this.sendTrailers(stream, trailers);
    }
  }

  protected localEnd(stream: H2Stream): void {
    stream.localEnded = true;
    if (stream.remoteEnded) this.drop(stream);
    else this.reset(stream, H2_ERROR.NO_ERROR); // answered early: the rest of the request is not wanted
  }

  protected drop(stream: H2Stream): void {
    if (stream.closed) return;
    stream.closed = true;
    this.streams.delete(stream.id);
    if (this.closedIds.length >= 64) this.closedIds.shift();
    this.closedIds.push(stream.id);
    this.handler.onClosed(stream);
    this.closeIfIdle();
  }

  protected closeIfIdle(): void {
    if (this.goingAway && this.streams.size === 0 && !this.closed) {
      this.closed = true;
      this.flush();
      this.socket.end();
    }
  }

  protected rememberReset(id: number): void {
    if (this.resetIds.length >= 32) this.resetIds.shift();
    this.resetIds.push(id);
  }

  protected end(): void {
    this.goingAway = true;
    for (const stream of [...this.streams.values()]) this.drop(stream);
    this.closeIfIdle();
  }

  protected gone(): void {
    this.closed = true;
    this.goingAway = true;
    for (const stream of [...this.streams.values()]) this.drop(stream);
  }
}
