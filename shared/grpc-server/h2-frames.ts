// HTTP/2 (RFC 9113) constants and frame writers for the gRPC server's own HTTP/2.

export const FRAME = {
  DATA: 0,
  HEADERS: 1,
  PRIORITY: 2,
  RST_STREAM: 3,
  SETTINGS: 4,
  PUSH_PROMISE: 5,
  PING: 6,
  GOAWAY: 7,
  WINDOW_UPDATE: 8,
  CONTINUATION: 9,
} as const;

export const FLAG = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8, PRIORITY: 0x20 } as const;

export const H2_ERROR = {
  NO_ERROR: 0,
  PROTOCOL_ERROR: 1,
  INTERNAL_ERROR: 2,
  FLOW_CONTROL_ERROR: 3,
  STREAM_CLOSED: 5,
  FRAME_SIZE_ERROR: 6,
  REFUSED_STREAM: 7,
  CANCEL: 8,
  COMPRESSION_ERROR: 9,
  ENHANCE_YOUR_CALM: 11,
} as const;

export const SETTING = {
  HEADER_TABLE_SIZE: 1,
  ENABLE_PUSH: 2,
  MAX_CONCURRENT_STREAMS: 3,
  INITIAL_WINDOW_SIZE: 4,
  MAX_FRAME_SIZE: 5,
  MAX_HEADER_LIST_SIZE: 6,
} as const;

export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
export const FRAME_HEADER_BYTES = 9;
export const MAX_WINDOW = 2 ** 31 - 1;
/** The frame size we take (SETTINGS_MAX_FRAME_SIZE left at its default) and may send until told more. */
export const DEFAULT_MAX_FRAME = 16_384;
export const DEFAULT_WINDOW = 65_535;

/** Writes a frame header at `at`; returns the offset of the payload. */
export function writeFrameHeader(
  out: Buffer,
  at: number,
  length: number,
  type: number,
  flags: number,
  streamId: number,
): number {
  out[at] = length >>> 16;
  out[at + 1] = (length >>> 8) & 0xff;
  out[at + 2] = length & 0xff;
  out[at + 3] = type;
  out[at + 4] = flags;
  out.writeUInt32BE(streamId, at + 5);
  return at + FRAME_HEADER_BYTES;
}

/** A frame whose payload is one 32-bit number (RST_STREAM's code, WINDOW_UPDATE's increment). */
export function word(type: number, streamId: number, value: number): Buffer {
  const out = Buffer.allocUnsafe(13);
  writeFrameHeader(out, 0, 4, type, 0, streamId);
  out.writeUInt32BE(value, 9);
  return out;
}

export function goAwayFrame(lastStreamId: number, code: number): Buffer {
  const out = Buffer.allocUnsafe(17);
  writeFrameHeader(out, 0, 8, FRAME.GOAWAY, 0, 0);
  out.writeUInt32BE(lastStreamId, 9);
  out.writeUInt32BE(code, 13);
  return out;
}

export function settingsFrame(settings: ReadonlyArray<readonly [number, number]>): Buffer {
  const out = Buffer.allocUnsafe(9 + 6 * settings.length);
  writeFrameHeader(out, 0, 6 * settings.length, FRAME.SETTINGS, 0, 0);
  settings.forEach(([id, value], i) => {
    out.writeUInt16BE(id, 9 + 6 * i);
    out.writeUInt32BE(value, 11 + 6 * i);
  });
  return out;
}

export const SETTINGS_ACK = (() => {
  const out = Buffer.alloc(9);
  writeFrameHeader(out, 0, 0, FRAME.SETTINGS, FLAG.ACK, 0);
  return out;
})();

/** A PING ACK carrying the 8 bytes of `payload` from `at`. */
export function pingAck(payload: Buffer, at: number): Buffer {
  const out = Buffer.allocUnsafe(17);
  writeFrameHeader(out, 0, 8, FRAME.PING, FLAG.ACK, 0);
  payload.copy(out, 9, at, at + 8);
  return out;
}
