// The HPACK decoder (shared/grpc-server/hpack.ts) against node:http2's (nghttp2's), on blocks
// node:http2's client encodes: a real client talks to a real node:http2 server through an in-memory
// tap that hands every header block to our decoder too. The server announces a random
// SETTINGS_HEADER_TABLE_SIZE, so the client's encoder emits table size updates, evicts and uses
// Huffman and never-indexed literals as it chooses. Some blocks are changed on the way (the frame
// length kept right): whatever nghttp2 decodes, ours decodes the same, and the block nghttp2 refuses
// with COMPRESSION_ERROR ours refuses too. A session ends at the first block either side refuses.
import http2 from 'node:http2';
import { duplexPair } from 'node:stream';
import { FLAG, FRAME, PREFACE, writeFrameHeader } from '../../../shared/grpc-server/h2-frames.ts';
import { holdsForbiddenInValue, isRegularFieldName } from '../../../shared/grpc-server/h2-stream.ts';
import { HpackDecoder, HpackError } from '../../../shared/grpc-server/hpack.ts';
import { canonical, type Finding, type FuzzTarget, mutate, pick, type Rng } from '../fuzz-core.ts';
import { randomHeaderFields } from './h2-fields.ts';

type Decoded = { ok: true; fields: string[] } | { ok: false; error: string };

const isFieldName = (name: string): boolean => /^:[a-z]+$/.test(name) || isRegularFieldName(name);

/**
 * The name, value pairs of a flat list but those a server may not pass on: a value with a control
 * character, a name that is not a token. nghttp2 drops such a field silently; ours refuses the
 * stream (RFC 9113 8.2.1 calls the request malformed): either way no handler sees it.
 */
function withoutRefusedFields(fields: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < fields.length; i += 2)
    if (isFieldName(fields[i]!) && !holdsForbiddenInValue(fields[i + 1]!))
      kept.push(fields[i]!, fields[i + 1]!);
  return kept;
}

/** One session: requests until `count` are done, or the session ends on a refused block. */
async function session(rng: Rng, count: number, found: (finding: Finding) => void): Promise<number> {
  const tableSize = pick(rng, [0, 32, 64, 100, 256, 1024, 4096]);
  const mutating = rng.int(4) === 0;
  const [clientSide, tapIn] = duplexPair();
  const [tapOut, serverSide] = duplexPair();
  const ours = new Map<number, { block: string; decoded: Decoded }>();
  const theirs = new Map<number, string[]>();
  const decoder = new HpackDecoder(tableSize);
  // The server's SETTINGS lower the table from the default: the client's first block must say so.
  if (tableSize < 4096) decoder.requireSizeUpdate();
  let pending = Buffer.alloc(0);
  let prefaceSeen = false;
  let oursFailed = false;
  let partial: { id: number; parts: Buffer[] } | undefined;

  tapIn.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    if (!prefaceSeen) {
      if (pending.length < PREFACE.length) return;
      tapOut.write(pending.subarray(0, PREFACE.length));
      pending = pending.subarray(PREFACE.length);
      prefaceSeen = true;
    }
    while (pending.length >= 9) {
      const length = pending.readUIntBE(0, 3);
      if (pending.length < 9 + length) break;
      let frame: Buffer = pending.subarray(0, 9 + length);
      pending = pending.subarray(9 + length);
      const type = frame[3]!;
      if (type === FRAME.HEADERS || type === FRAME.CONTINUATION) frame = headerFrame(frame);
      tapOut.write(frame);
    }
  });
  tapOut.on('data', (chunk: Buffer) => tapIn.write(chunk));

  function headerFrame(frame: Buffer): Buffer {
    const flags = frame[4]!;
    const id = frame.readUInt32BE(5) & 0x7fffffff;
    let payload = frame.subarray(9);
    // node:http2's client sends neither padding nor priority: the payload is the fragment.
    if (mutating && rng.int(3) === 0) payload = mutate(rng, payload);
    const out = Buffer.alloc(9 + payload.length);
    out.writeUIntBE(payload.length, 0, 3);
    out[3] = frame[3]!;
    out[4] = flags;
    out.writeUInt32BE(id, 5);
    payload.copy(out, 9);
    partial ??= { id, parts: [] };
    partial.parts.push(payload);
    if ((flags & FLAG.END_HEADERS) !== 0) {
      const block = Buffer.concat(partial.parts);
      partial = undefined;
      if (!oursFailed) ours.set(id, { block: block.toString('hex'), decoded: decode(block) });
    }
    return out;
  }

  function decode(block: Buffer): Decoded {
    try {
      decoder.decode(block);
    } catch (error) {
      if (!(error instanceof HpackError)) throw error;
      oursFailed = true;
      return { ok: false, error: error.message };
    }
    const fields: string[] = [];
    for (let i = 0; i < decoder.count; i++) fields.push(decoder.names[i]!, decoder.values[i]!);
    return { ok: true, fields };
  }

  const server = http2.performServerHandshake(serverSide, { settings: { headerTableSize: tableSize } });
  server.on('stream', (stream, _headers, _flags, rawHeaders) => {
    theirs.set(stream.id!, rawHeaders as unknown as string[]);
    stream.on('error', () => {});
    if (!stream.destroyed && !stream.closed) stream.respond({ ':status': 200 }, { endStream: true });
  });
  server.on('error', () => {});
  const client = http2.connect('http://fuzz.test', { createConnection: () => clientSide });
  client.on('error', () => {});
  // nghttp2 answers a block it cannot decode with GOAWAY COMPRESSION_ERROR naming the last stream it took.
  let refusedAfter: number | undefined;
  client.on('goaway', (code: number, lastStreamId: number) => {
    if (code === http2.constants.NGHTTP2_COMPRESSION_ERROR) refusedAfter = lastStreamId;
  });
  await new Promise<void>((resolve) => client.once('remoteSettings', () => resolve()));

  let done = 0;
  let inFlight = 0;
  await new Promise<void>((resolve) => {
    const next = (): void => {
      while (inFlight < 16 && done + inFlight < count && !client.closed && !client.destroyed) {
        inFlight++;
        const request = client.request(randomHeaderFields(rng), { endStream: true });
        request.on('error', () => {});
        request.resume();
        request.on('close', () => {
          inFlight--;
          done++;
          next();
        });
      }
      if (inFlight === 0) resolve();
    };
    client.on('close', () => {
      if (inFlight === 0) resolve();
    });
    next();
  });
  client.destroy();
  server.destroy();

  if (refusedAfter !== undefined) {
    const refusedId = Math.min(...[...ours.keys()].filter((id) => id > refusedAfter!));
    const refused = ours.get(refusedId);
    if (refused?.decoded.ok === true)
      found({
        kind: 'difference',
        input: refused.block,
        detail: 'ours decoded a block nghttp2 refused (COMPRESSION_ERROR)',
      });
  }
  for (const [id, { block, decoded }] of ours) {
    const nghttp2 = theirs.get(id);
    if (nghttp2 === undefined) continue; // nghttp2 refused the block or the stream: ours may do either
    if (!decoded.ok) {
      found({
        kind: 'difference',
        input: block,
        detail: `ours refused (${decoded.error}) what nghttp2 decoded`,
      });
    } else if (
      // nghttp2 drops a field whose value holds a control character; ours refuses the request
      // (RFC 9113 8.2.1): neither hands the field on, which is what is compared.
      canonical(withoutRefusedFields(decoded.fields)) !== canonical(withoutRefusedFields(nghttp2))
    ) {
      found({
        kind: 'difference',
        input: block,
        detail: `ours ${canonical(decoded.fields)}, nghttp2 ${canonical(nghttp2)}`,
      });
    }
  }
  return Math.max(done, 1);
}

export const hpackNghttp2Target: FuzzTarget = {
  name: 'hpack-nghttp2',
  oracle: "node:http2's client encoding, its server (nghttp2) decoding",
  async run(rng, count, found) {
    for (let done = 0; done < count; ) {
      try {
        done += await session(rng, Math.min(count - done, 1 + rng.int(100)), found);
      } catch (error) {
        found({
          kind: 'crash',
          input: '(a session)',
          detail: error instanceof Error ? (error.stack ?? '') : String(error),
        });
        done++;
      }
    }
  },
};

/**
 * Whether nghttp2 (a node:http2 server announcing `tableSize`) refuses `block`, the first request's
 * header block after its SETTINGS are acknowledged, with GOAWAY COMPRESSION_ERROR: the oracle for
 * one kept input.
 */
export async function nghttp2RefusesFirstBlock(block: Buffer, tableSize: number): Promise<boolean> {
  const [peer, serverSide] = duplexPair();
  const server = http2.performServerHandshake(serverSide, { settings: { headerTableSize: tableSize } });
  server.on('error', () => {});
  server.on('stream', (stream) => stream.on('error', () => {}));
  const frameOf = (type: number, flags: number, id: number, payload: Buffer) => {
    const out = Buffer.alloc(9 + payload.length);
    writeFrameHeader(out, 0, payload.length, type, flags, id);
    payload.copy(out, 9);
    return out;
  };
  const back: Buffer[] = [];
  peer.on('data', (chunk: Buffer) => back.push(chunk));
  peer.write(
    Buffer.concat([
      PREFACE,
      frameOf(FRAME.SETTINGS, 0, 0, Buffer.alloc(0)),
      frameOf(FRAME.SETTINGS, FLAG.ACK, 0, Buffer.alloc(0)),
      frameOf(FRAME.HEADERS, FLAG.END_HEADERS | FLAG.END_STREAM, 1, block),
    ]),
  );
  await new Promise((resolve) => setTimeout(resolve, 20));
  server.destroy();
  peer.destroy();
  const bytes = Buffer.concat(back);
  for (let at = 0; at + 9 <= bytes.length; at += 9 + bytes.readUIntBE(at, 3))
    if (bytes[at + 3] === FRAME.GOAWAY)
      return bytes.readUInt32BE(at + 13) === http2.constants.NGHTTP2_COMPRESSION_ERROR;
  return false;
}
