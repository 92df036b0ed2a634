// One abusive connection of the bench: a node:net socket that writes as fast as the socket takes
// (yielding to the event loop between writes, waiting for 'drain' when the kernel's buffer is
// full), and what the server did to it, read from the frames it sent back: its SETTINGS (ACKed, as
// a real client would), the connection window it grants, RST_STREAMs, answers, GOAWAY and its
// code, and whether it closed the connection before the pattern ended.
import { connect, type Socket } from 'node:net';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { FLAG, FRAME, SETTING, SETTINGS_ACK } from './frames.ts';

const FRAME_HEADER = 9;
const DEFAULT_WINDOW = 65_535;

export class AbusiveConnection {
  readonly socket: Socket;
  /** What may still be sent as DATA on the connection (the server's connection-level window). */
  window = DEFAULT_WINDOW;
  /** SETTINGS_MAX_CONCURRENT_STREAMS as the server announced it; undefined when it set no limit. */
  maxStreams: number | undefined = undefined;
  settingsReceived = false;
  goAwayCode: number | undefined = undefined;
  closed = false;
  /** The server closed (or reset) the connection before we ended it. */
  closedByServer = false;
  framesSent = 0;
  bytesSent = 0;
  resetsReceived = 0;
  headersReceived = 0;
  /** Whether the server's SETTINGS get their ACK (not while a pattern writes a preface of its own). */
  acksSettings = false;
  /** When the pattern ends (ms since epoch): no wait of this connection lasts past it. */
  deadline = Number.POSITIVE_INFINITY;
  private leftover: Buffer | undefined = undefined;
  private waiters: Array<() => void> = [];
  private ending = false;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('drain', () => this.wake());
    // The server's FIN, a reset (a write's EPIPE or ECONNRESET) or the close: the connection is over.
    const gone = (): void => {
      if (this.closed) return;
      this.closed = true;
      if (!this.ending) this.closedByServer = true;
      socket.destroy();
      this.wake();
    };
    socket.on('error', gone);
    socket.on('end', gone);
    socket.on('close', gone);
  }

  static open(host: string, port: number): Promise<AbusiveConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new AbusiveConnection(socket));
      });
      socket.once('error', reject);
    });
  }

  /**
   * Writes `bytes` (holding `frames` frames); resolves once the socket takes more: at once when the
   * kernel took them (after one turn of the event loop, so timers and reads run), else on 'drain'.
   * False once the connection is closed or the pattern's time is up.
   */
  async send(bytes: Buffer, frames: number): Promise<boolean> {
    if (this.closed) return false;
    this.framesSent += frames;
    this.bytesSent += bytes.length;
    if (this.socket.write(bytes)) await nextTurn();
    else await this.until(() => this.socket.writableLength === 0, this.deadline);
    return !this.closed && Date.now() < this.deadline;
  }

  /** Waits until `condition` holds, the connection closes or `deadline` (ms since epoch) passes. */
  async until(condition: () => boolean, deadline = this.deadline): Promise<boolean> {
    while (!condition() && !this.closed && Date.now() < deadline) {
      const left = deadline - Date.now();
      await Promise.race([
        new Promise<void>((resolve) => this.waiters.push(resolve)),
        ...(Number.isFinite(left) ? [sleep(Math.min(left, 250))] : []),
      ]);
    }
    return condition();
  }

  /**
   * Ends our side: a connection that stopped reading (the floods') reads what the server sent for
   * up to `drainMs` first, so a GOAWAY queued behind its ACKs is still seen.
   */
  async finish(drainMs: number): Promise<void> {
    if (!this.closed && this.socket.isPaused()) {
      this.socket.resume();
      await sleep(drainMs);
    }
    this.ending = true;
    this.socket.destroy();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  private read(chunk: Buffer): void {
    const buf = this.leftover === undefined ? chunk : Buffer.concat([this.leftover, chunk]);
    this.leftover = undefined;
    let at = 0;
    while (buf.length - at >= FRAME_HEADER) {
      const length = buf.readUIntBE(at, 3);
      if (buf.length - at < FRAME_HEADER + length) break;
      this.frame(
        buf[at + 3]!,
        buf[at + 4]!,
        buf.readUInt32BE(at + 5) & 0x7fffffff,
        buf,
        at + FRAME_HEADER,
        length,
      );
      at += FRAME_HEADER + length;
    }
    if (at < buf.length) this.leftover = buf.subarray(at);
    this.wake();
  }

  private frame(type: number, flags: number, id: number, buf: Buffer, start: number, length: number): void {
    switch (type) {
      case FRAME.SETTINGS:
        if (flags & FLAG.ACK) return;
        for (let at = start; at + 6 <= start + length; at += 6)
          if (buf.readUInt16BE(at) === SETTING.MAX_CONCURRENT_STREAMS)
            this.maxStreams = buf.readUInt32BE(at + 2);
        this.settingsReceived = true;
        if (this.acksSettings && !this.closed) this.socket.write(SETTINGS_ACK);
        return;
      case FRAME.WINDOW_UPDATE:
        if (id === 0 && length === 4) this.window += buf.readUInt32BE(start) & 0x7fffffff;
        return;
      case FRAME.RST_STREAM:
        this.resetsReceived++;
        return;
      case FRAME.HEADERS:
        this.headersReceived++;
        return;
      case FRAME.GOAWAY:
        if (length >= 8) this.goAwayCode = buf.readUInt32BE(start + 4);
        return;
      default:
        return;
    }
  }
}
