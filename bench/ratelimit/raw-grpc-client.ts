// A minimal HTTP/2 gRPC client for the benchmark, as cheap per call as a C client such as Envoy's:
// each request is a HEADERS frame (a header block encoded once, static-table HPACK only, so no
// encoder state) and a DATA frame, the frames of one turn of the event loop leave in one write,
// and a reply is judged by its bytes: the stream must end after a message whose overall_code is OK.
// Response header blocks are skipped, not decoded (a failure has no such message: gRPC's
// trailers-only error answers carry none). Flow control: the windows we grant are made huge at
// the start; the server's window for our small requests is tracked and never exceeded.
import { connect, type Socket } from 'node:net';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const DATA = 0x0;
const HEADERS = 0x1;
const RST_STREAM = 0x3;
const SETTINGS = 0x4;
const PING = 0x6;
const GOAWAY = 0x7;
const WINDOW_UPDATE = 0x8;
const END_STREAM = 0x1;
const ACK = 0x1;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const MAX_WINDOW = 2 ** 31 - 1;
const DEFAULT_WINDOW = 65_535;

function frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const out = Buffer.alloc(9 + payload.length);
  out.writeUIntBE(payload.length, 0, 3);
  out[3] = type;
  out[4] = flags;
  out.writeUInt32BE(stream, 5);
  payload.copy(out, 9);
  return out;
}

/** HPACK string literal, no Huffman; lengths below 127 only (ours are). */
function literal(text: string): Buffer {
  const bytes = Buffer.from(text, 'latin1');
  if (bytes.length >= 127) throw new Error(`header too long for this encoder: ${text}`);
  return Buffer.concat([Buffer.from([bytes.length]), bytes]);
}

/** The request's header block: static-table indices and literals without indexing. */
function headerBlock(authority: string, path: string): Buffer {
  return Buffer.concat([
    Buffer.from([0x83, 0x86]), // :method POST, :scheme http
    Buffer.from([0x04]), // :path (static name 4), literal value
    literal(path),
    Buffer.from([0x01]), // :authority (static name 1)
    literal(authority),
    Buffer.from([0x0f, 0x10]), // content-type (static name 31)
    literal('application/grpc'),
    Buffer.from([0x00]), // te: new name
    literal('te'),
    literal('trailers'),
  ]);
}

interface Waiting {
  reply: Buffer | undefined;
  resolve(): void;
  reject(error: Error): void;
}

export interface RawGrpcConnection {
  /** The frames of a unary call carrying `message` (length-prefixed), to pass to `call`. */
  prepare(message: Buffer): Buffer;
  /** Sends one call prepared by `prepare`; resolves when the answer is OK. */
  call(prepared: Buffer): Promise<void>;
  close(): void;
}

/** ShouldRateLimit's reply: length prefix (5 bytes), then field 1 (overall_code) as a varint, 08 01 for OK. */
const rateLimitOk = (reply: Buffer): boolean => reply.length >= 7 && reply[5] === 0x08 && reply[6] === 1;

/** `replyOk` judges the reply message (with its 5-byte prefix); the default is ShouldRateLimit's OK. */
export function rawGrpcConnection(
  host: string,
  port: number,
  path: string,
  replyOk: (reply: Buffer) => boolean = rateLimitOk,
): RawGrpcConnection {
  const socket: Socket = connect(port, host);
  socket.setNoDelay(true);
  const block = headerBlock(`${host}:${port}`, path);
  const streams = new Map<number, Waiting>();
  let nextStream = 1;
  let sendWindow = DEFAULT_WINDOW;
  let received = 0;
  let pending: Buffer[] = [];
  let scheduled = false;
  let rest: Buffer | undefined;
  let failure: Error | undefined;

  const flush = (): void => {
    scheduled = false;
    if (pending.length === 0) return;
    socket.write(pending.length === 1 ? pending[0]! : Buffer.concat(pending));
    pending = [];
  };
  const send = (bytes: Buffer): void => {
    pending.push(bytes);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  const failAll = (error: Error): void => {
    failure ??= error;
    for (const waiting of streams.values()) waiting.reject(error);
    streams.clear();
  };

  const settings = Buffer.alloc(12);
  settings.writeUInt16BE(0x2, 0); // ENABLE_PUSH
  settings.writeUInt32BE(0, 2);
  settings.writeUInt16BE(0x4, 6); // INITIAL_WINDOW_SIZE
  settings.writeUInt32BE(MAX_WINDOW, 8);
  const grow = Buffer.alloc(4);
  grow.writeUInt32BE(MAX_WINDOW - DEFAULT_WINDOW);
  socket.write(Buffer.concat([PREFACE, frame(SETTINGS, 0, 0, settings), frame(WINDOW_UPDATE, 0, 0, grow)]));

  const end = (stream: number): void => {
    const waiting = streams.get(stream);
    if (waiting === undefined) return;
    streams.delete(stream);
    const reply = waiting.reply;
    if (reply !== undefined && replyOk(reply)) waiting.resolve();
    else waiting.reject(new Error(`stream ${stream} ended without an OK reply`));
  };

  const onFrame = (type: number, flags: number, stream: number, payload: Buffer): void => {
    if (type === DATA) {
      let body = payload;
      if (flags & PADDED) body = payload.subarray(1, payload.length - payload[0]!);
      const waiting = streams.get(stream);
      if (waiting !== undefined)
        waiting.reply = waiting.reply === undefined ? body : Buffer.concat([waiting.reply, body]);
      received += payload.length;
      if (received > 2 ** 30) {
        const more = Buffer.alloc(4);
        more.writeUInt32BE(received);
        send(frame(WINDOW_UPDATE, 0, 0, more));
        received = 0;
      }
      if (flags & END_STREAM) end(stream);
    } else if (type === HEADERS) {
      if (!(flags & END_HEADERS)) socket.destroy(new Error('CONTINUATION frames are not handled'));
      else if (flags & END_STREAM) end(stream);
    } else if (type === SETTINGS) {
      if (!(flags & ACK)) send(frame(SETTINGS, ACK, 0, Buffer.alloc(0)));
    } else if (type === PING) {
      if (!(flags & ACK)) send(frame(PING, ACK, 0, payload));
    } else if (type === WINDOW_UPDATE) {
      if (stream === 0) sendWindow += payload.readUInt32BE(0) & MAX_WINDOW;
    } else if (type === RST_STREAM) {
      streams.get(stream)?.reject(new Error(`stream ${stream} reset, code ${payload.readUInt32BE(0)}`));
      streams.delete(stream);
    } else if (type === GOAWAY) {
      failAll(new Error(`GOAWAY, code ${payload.readUInt32BE(4)}`));
    }
  };

  socket.on('data', (chunk: Buffer) => {
    const buffer = rest === undefined ? chunk : Buffer.concat([rest, chunk]);
    rest = undefined;
    let at = 0;
    while (buffer.length - at >= 9) {
      const length = buffer.readUIntBE(at, 3);
      if (buffer.length - at < 9 + length) break;
      const stream = buffer.readUInt32BE(at + 5) & MAX_WINDOW;
      onFrame(buffer[at + 3]!, buffer[at + 4]!, stream, buffer.subarray(at + 9, at + 9 + length));
      at += 9 + length;
    }
    if (at < buffer.length) rest = buffer.subarray(at);
  });
  socket.on('error', (error) => failAll(error));
  socket.on('close', () => failAll(new Error('connection closed')));

  return {
    prepare: (message) =>
      Buffer.concat([frame(HEADERS, END_HEADERS, 0, block), frame(DATA, END_STREAM, 0, message)]),
    call(prepared) {
      if (failure !== undefined) return Promise.reject(failure);
      const dataLength = prepared.length - 9 - block.length - 9;
      if (sendWindow < dataLength) return Promise.reject(new Error('the server granted no window'));
      sendWindow -= dataLength;
      const stream = nextStream;
      nextStream += 2;
      const frames = Buffer.allocUnsafe(prepared.length);
      prepared.copy(frames);
      frames.writeUInt32BE(stream, 5);
      frames.writeUInt32BE(stream, 9 + block.length + 5);
      return new Promise<void>((resolve, reject) => {
        streams.set(stream, { reply: undefined, resolve, reject });
        send(frames);
      });
    },
    close: () => socket.destroy(),
  };
}
