// A request's header block (or its trailers) gathered from HEADERS and CONTINUATION frames and decoded
// by HPACK, and the connection error every frame check throws (the connection answers it with GOAWAY).
import { FLAG, H2_ERROR } from './h2-frames.ts';
import { type HpackDecoder, HpackError } from './hpack.ts';

const MAX_HEADER_BLOCK = 64 * 1024;

export class ConnectionError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

/** Strips the padding of a DATA or HEADERS payload; returns where the content starts and ends. */
export function unpad(flags: number, buf: Buffer, start: number, end: number): [number, number] {
  if ((flags & FLAG.PADDED) === 0) return [start, end];
  if (end === start)
    throw new ConnectionError(H2_ERROR.FRAME_SIZE_ERROR, 'padded frame without a pad length');
  const pad = buf[start]!;
  if (pad >= end - start) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'padding longer than the frame');
  return [start + 1, end - pad];
}

/** A block complete and decoded: its fields are in the decoder. */
export interface CompleteBlock {
  readonly id: number;
  readonly endStream: boolean;
  /** The HEADERS frame made the stream depend on itself (refused once the block updated the table). */
  readonly selfDependent: boolean;
}

export class HeaderBlock {
  /** The stream whose block is being gathered; 0 when none is. */
  stream = 0;
  private readonly decoder: HpackDecoder;
  private endStream = false;
  private selfDependent = false;
  private parts: Buffer[] = [];
  private bytes = 0;

  constructor(decoder: HpackDecoder) {
    this.decoder = decoder;
  }

  /** A HEADERS frame's payload; the block when END_HEADERS completes it. */
  begin(flags: number, id: number, buf: Buffer, start: number, end: number): CompleteBlock | undefined {
    if (id === 0) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'HEADERS on stream 0');
    if ((id & 1) === 0) throw new ConnectionError(H2_ERROR.PROTOCOL_ERROR, 'a client stream id must be odd');
    let [from, to] = unpad(flags, buf, start, end);
    this.selfDependent = false;
    if (flags & FLAG.PRIORITY) {
      if (to - from < 5) throw new ConnectionError(H2_ERROR.FRAME_SIZE_ERROR, 'HEADERS priority truncated');
      this.selfDependent = (buf.readUInt32BE(from) & 0x7fffffff) === id;
      from += 5;
    }
    this.endStream = (flags & FLAG.END_STREAM) !== 0;
    this.stream = id;
    this.parts = [];
    this.bytes = 0;
    return this.add(buf.subarray(from, to), (flags & FLAG.END_HEADERS) !== 0);
  }

  /** A fragment (HEADERS' or a CONTINUATION's); the block when it is the last. */
  add(part: Buffer, last: boolean): CompleteBlock | undefined {
    this.bytes += part.length;
    if (this.bytes > MAX_HEADER_BLOCK)
      throw new ConnectionError(H2_ERROR.ENHANCE_YOUR_CALM, 'header block too large');
    this.parts.push(part);
    if (!last) return undefined;
    const id = this.stream;
    this.stream = 0;
    const block = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [];
    try {
      this.decoder.decode(block);
    } catch (error) {
      if (error instanceof HpackError) throw new ConnectionError(H2_ERROR.COMPRESSION_ERROR, error.message);
      throw error;
    }
    return { id, endStream: this.endStream, selfDependent: this.selfDependent };
  }
}
