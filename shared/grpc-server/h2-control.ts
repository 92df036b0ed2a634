// What a server HTTP/2 connection keeps of the peer besides its streams: its SETTINGS and window
// updates, and the budgets that end a connection abusing them (RST_STREAMs past nghttp2's bucket,
// frames without content, ACKs the peer does not read) with GOAWAY ENHANCE_YOUR_CALM.
import {
  DEFAULT_MAX_FRAME,
  FLAG,
  FRAME,
  H2_ERROR,
  MAX_WINDOW,
  SETTING,
  SETTINGS_ACK,
  word,
} from './h2-frames.ts';
import { ConnectionError } from './h2-header-block.ts';
import { H2Output } from './h2-output.ts';

/**
 * RST_STREAMs a peer may send, as nghttp2 bounds them since the rapid-reset attack
 * (CVE-2023-44487): a bucket of 1,000 refilled at 33 a second; an empty bucket is GOAWAY
 * ENHANCE_YOUR_CALM and the end of the connection.
 */
export const RESET_BURST = 1000;
export const RESETS_PER_SECOND = 33;
/** PING and SETTINGS ACKs queued for a peer that does not read them (nghttp2's max_outbound_ack). */
export const MAX_UNREAD_ACKS = 1000;
/**
 * Frames that ask for work and carry nothing: SETTINGS other than ACKs, and DATA, HEADERS or
 * CONTINUATION without content that neither end the stream nor the header block (CVE-2019-9515,
 * CVE-2019-9518). A client sends a handful in a connection's life (grpc-go's window growth is
 * about eight SETTINGS); a flood of them, read as fast as the peer can write, kept the event
 * loop from its real calls. The same kind of bucket as the resets': 1,000, refilled at 100 a
 * second, then GOAWAY ENHANCE_YOUR_CALM.
 */
export const EMPTY_FRAME_BURST = 1000;
export const EMPTY_FRAMES_PER_SECOND = 100;

/** A token bucket refilled with time; take() is false once it is empty. */
class Bucket {
  private readonly burst: number;
  private readonly perSecond: number;
  private tokens: number;
  private at = performance.now();
  constructor(burst: number, perSecond: number) {
    this.burst = burst;
    this.perSecond = perSecond;
    this.tokens = burst;
  }
  take(): boolean {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) * this.perSecond) / 1000);
    this.at = now;
    this.tokens -= 1;
    return this.tokens >= 0;
  }
}

export class H2Control extends H2Output {
  protected settingsSeen = false;
  private readonly resets = new Bucket(RESET_BURST, RESETS_PER_SECOND);
  private readonly emptyFrames = new Bucket(EMPTY_FRAME_BURST, EMPTY_FRAMES_PER_SECOND);

  protected settings(flags: number, id: number, buf: Buffer, start: number, end: number): void {
    if (id !== 0) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'SETTINGS on a stream');
    if (flags & FLAG.ACK) {
      if (end !== start) throw new ConnectionError(H2_ERROR.FRAME_SIZE_ERROR, 'SETTINGS ACK with a payload');
      return;
    }
    if ((end - start) % 6 !== 0) throw new ConnectionError(H2_ERROR.FRAME_SIZE_ERROR, 'SETTINGS size');
    if (this.settingsSeen) this.countEmptyFrame(); // the first is the preface's
    this.settingsSeen = true;
    for (let at = start; at < end; at += 6) {
      const key = buf.readUInt16BE(at);
      const value = buf.readUInt32BE(at + 2);
      if (key === SETTING.ENABLE_PUSH && value > 1)
        throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'ENABLE_PUSH not 0 or 1');
      if (key === SETTING.INITIAL_WINDOW_SIZE) {
        if (value > MAX_WINDOW)
          throw new ConnectionError(H2_ERROR.FLOW_CONTROL_ERROR, 'INITIAL_WINDOW_SIZE too large');
        const delta = value - this.peerInitialWindow;
        this.peerInitialWindow = value;
        for (const stream of this.streams.values()) {
          stream.sendWindow += delta;
          if (stream.sendWindow > MAX_WINDOW)
            throw new ConnectionError(H2_ERROR.FLOW_CONTROL_ERROR, 'window overflow');
        }
      }
      // A smaller table for the peer's decoder: our next header block must say we shrank ours.
      if (key === SETTING.HEADER_TABLE_SIZE && value < this.encoderTableSize) this.sizeUpdateDue = true;
      if (key === SETTING.MAX_FRAME_SIZE) {
        if (value < DEFAULT_MAX_FRAME || value > 0xffffff)
          throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'MAX_FRAME_SIZE out of range');
        this.peerMaxFrame = value;
      }
    }
    this.writeAck(SETTINGS_ACK);
    this.unblock();
  }

  protected windowUpdate(id: number, buf: Buffer, start: number, end: number): void {
    if (end - start !== 4) throw new ConnectionError(H2_ERROR.FRAME_SIZE_ERROR, 'WINDOW_UPDATE size');
    const increment = buf.readUInt32BE(start) & 0x7fffffff;
    if (id === 0) {
      if (increment === 0) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'WINDOW_UPDATE of 0');
      this.sendWindow += increment;
      if (this.sendWindow > MAX_WINDOW)
        throw new ConnectionError(H2_ERROR.FLOW_CONTROL_ERROR, 'window overflow');
      this.unblock();
      return;
    }
    if (id > this.lastStreamId)
      throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'WINDOW_UPDATE on an idle stream');
    const stream = this.streams.get(id);
    if (stream === undefined) return;
    if (increment === 0) {
      this.streamError(id, H2_ERROR.PROTOCOL_ERROR);
      return;
    }
    stream.sendWindow += increment;
    if (stream.sendWindow > MAX_WINDOW) {
      this.streamError(id, H2_ERROR.FLOW_CONTROL_ERROR);
      return;
    }
    if (stream.queued !== undefined) this.unblock();
  }

  protected countReset(): void {
    if (!this.resets.take()) throw new ConnectionError(H2_ERROR.ENHANCE_YOUR_CALM, 'too many stream resets');
  }

  protected countEmptyFrame(): void {
    if (!this.emptyFrames.take())
      throw new ConnectionError(H2_ERROR.ENHANCE_YOUR_CALM, 'too many frames without content');
  }

  protected writeAck(frame: Buffer): void {
    if (++this.acksUnread > MAX_UNREAD_ACKS)
      throw new ConnectionError(H2_ERROR.ENHANCE_YOUR_CALM, 'too many ACKs the peer does not read');
    this.write(frame);
  }

  protected streamError(id: number, code: number): void {
    const stream = this.streams.get(id);
    if (stream !== undefined) this.reset(stream, code);
    else {
      this.write(word(FRAME.RST_STREAM, id, code));
      this.rememberReset(id);
    }
  }
}
