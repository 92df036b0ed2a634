// The server's own HTTP/2 on what node:http2's client sends, changed: sessions of the client are
// captured once (preface, SETTINGS, HEADERS, DATA, WINDOW_UPDATE...), then each input is a capture
// with frames changed, dropped, repeated or cut, fed in random chunks to a fresh H2Connection
// (driven without a socket). No library judges a broken stream, so the properties are the RFC's: a
// frame error is answered with GOAWAY or RST_STREAM (never an exception out of the reader, never
// onError), what is written parses as frames with nothing after a GOAWAY that carries an error,
// and the handler sees each stream in order (headers, then end, then closed, nothing after).
import http2 from 'node:http2';
import { duplexPair } from 'node:stream';
import { FRAME, H2_ERROR, PREFACE } from '../../../shared/grpc-server/h2-frames.ts';
import { OK_TRAILERS, RESPONSE_HEADERS } from '../../../shared/grpc-server/http2-parts.ts';
import { createDriver, parseFrames } from '../../helpers/h2-driver.ts';
import { bytes, check, type FuzzTarget, mutate, pick, type Rng } from '../fuzz-core.ts';
import { randomHeaderFields } from './h2-fields.ts';

/** What a node:http2 client writes for a few requests (no server answers it). */
async function capture(rng: Rng): Promise<Buffer[]> {
  const [clientSide, peer] = duplexPair();
  const written: Buffer[] = [];
  peer.on('data', (chunk: Buffer) => written.push(chunk));
  const client = http2.connect('http://fuzz.test', {
    createConnection: () => clientSide,
    paddingStrategy: pick(rng, [http2.constants.PADDING_STRATEGY_NONE, http2.constants.PADDING_STRATEGY_MAX]),
  });
  client.on('error', () => {});
  const sent: Promise<unknown>[] = [];
  for (let n = 1 + rng.int(4); n > 0; n--) {
    const request = client.request(randomHeaderFields(rng));
    request.on('error', () => {});
    sent.push(new Promise((resolve) => request.once('finish', resolve)));
    request.end(bytes(rng, pick(rng, [0, 5, 300, 3_000, 17_000])));
  }
  if (rng.int(2) === 0) client.ping(() => {});
  await Promise.all(sent);
  await new Promise((resolve) => setTimeout(resolve, 5));
  client.destroy();
  // The frames after the preface, one Buffer each.
  const all = Buffer.concat(written).subarray(PREFACE.length);
  const frames: Buffer[] = [];
  for (let at = 0; at + 9 <= all.length; ) {
    const end = at + 9 + all.readUIntBE(at, 3);
    frames.push(all.subarray(at, end));
    at = end;
  }
  return frames;
}

function changed(rng: Rng, frames: readonly Buffer[]): Buffer {
  const out = [...frames];
  for (let n = rng.int(4); n > 0 && out.length > 0; n--) {
    const at = rng.int(out.length);
    const roll = rng.int(6);
    if (roll === 0) out.splice(at, 1);
    else if (roll === 1) out.splice(at, 0, out[at]!);
    else if (roll === 2) out.splice(at, 1, out[at]!.subarray(0, 9 + rng.int(out[at]!.length - 8)));
    else if (roll === 3) {
      const frame = Buffer.from(out[at]!); // header changed: type, flags or stream id
      const field = pick(rng, [3, 4, 8]);
      frame[field] = pick(rng, [0, 1, 3, 0x20, 0xff, rng.int(256)]);
      out[at] = frame;
    } else out[at] = Buffer.concat([out[at]!.subarray(0, 9), mutate(rng, out[at]!.subarray(9))]);
  }
  const stream = Buffer.concat([PREFACE, ...out]);
  return rng.int(8) === 0 ? mutate(rng, stream) : stream;
}

/** What each handler event may follow on its stream. */
const ALLOWED_BEFORE: Readonly<Record<string, readonly string[]>> = {
  headers: ['idle'],
  end: ['headers'],
  oversize: ['headers'],
  closed: ['idle', 'headers', 'end', 'oversize'],
  error: [],
};

/** undefined when the connection kept the properties on `input`, else what broke. */
export function checkConnection(input: Buffer, cuts: readonly number[]): string | undefined {
  const driver = createDriver({
    handshake: false,
    onEnd: (stream, connection) =>
      connection.respond(stream, RESPONSE_HEADERS, Buffer.from('ok'), OK_TRAILERS),
  });
  driver.read();
  let written: Buffer;
  try {
    for (let i = 0; i + 1 < cuts.length; i++)
      driver.socket.emit('data', input.subarray(cuts[i], cuts[i + 1]));
    driver.connection.flush();
    written = Buffer.concat(driver.socket.written);
  } catch (error) {
    return `the reader threw ${error instanceof Error ? error.stack : error}`;
  }
  const errors = driver.events.filter(([event]) => event === 'error');
  if (errors.length > 0) return `onError: ${String(errors[0]![2])}`;
  let frames: ReturnType<typeof parseFrames>;
  try {
    frames = parseFrames(written);
  } catch (error) {
    return `written bytes are not frames: ${(error as Error).message}`;
  }
  const fatal = frames.findIndex(
    (f) => f.type === FRAME.GOAWAY && f.payload.readUInt32BE(4) !== H2_ERROR.NO_ERROR,
  );
  if (fatal >= 0 && fatal !== frames.length - 1) return 'frames written after a GOAWAY with an error';
  const state = new Map<number, string>();
  for (const [event, id] of driver.events) {
    const before = state.get(id) ?? 'idle';
    const allowed = ALLOWED_BEFORE[event]!;
    if (!allowed.includes(before)) return `stream ${id}: ${event} after ${before}`;
    state.set(id, event);
  }
  return undefined;
}

let corpus: Buffer[][] = [];

export const h2MutatedTarget: FuzzTarget = {
  name: 'h2-mutated',
  oracle: "RFC 9113's rules on node:http2 client sessions, changed",
  async run(rng, count, found) {
    if (corpus.length === 0) corpus = await Promise.all(Array.from({ length: 40 }, () => capture(rng)));
    for (let i = 0; i < count; i++) {
      const input = changed(rng, pick(rng, corpus));
      const cuts = [
        0,
        ...Array.from({ length: rng.int(4) }, () => rng.int(input.length + 1)).sort((a, b) => a - b),
        input.length,
      ];
      check(
        found,
        () => `${input.toString('hex')} cut at ${cuts.join(',')}`,
        () => checkConnection(input, cuts),
      );
    }
  },
  close() {
    corpus = [];
  },
};
