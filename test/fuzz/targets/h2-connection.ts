// The server's own HTTP/2 (H2Connection: frame reader, HPACK decoder, flow control both ways)
// against node:http2's client: each session has random SETTINGS (initial window, max frame size,
// header table size) and padding strategy, and sends requests with random header lists and bodies
// cut in random writes; the server echoes each body. The headers and body the server reads are the
// ones the client sent, and the reply the client reads is the one the server sent. The connection
// is a loopback socket, as in production (the unit tests drive it without one).
import { createHash } from 'node:crypto';
import http2 from 'node:http2';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { H2Connection } from '../../../shared/grpc-server/h2-connection.ts';
import type { StreamHandler } from '../../../shared/grpc-server/h2-output.ts';
import { OK_TRAILERS, RESPONSE_HEADERS } from '../../../shared/grpc-server/http2-parts.ts';
import { bytes, canonical, type Finding, type FuzzTarget, pick, type Rng } from '../fuzz-core.ts';
import { randomHeaderFields } from './h2-fields.ts';

const digest = (body: Buffer): string => createHash('sha1').update(body).digest('hex');

interface Seen {
  headers: Record<string, string | undefined>;
  body: string;
}

const seen = new Map<string, Seen>();
const failures: string[] = [];
const handler: StreamHandler = {
  onHeaders: () => {},
  onEnd(stream, connection) {
    const body = stream.message();
    const id = stream.headers['x-fuzz-id'] ?? '';
    seen.set(id, { headers: { ...stream.headers }, body: digest(body) });
    connection.respond(stream, RESPONSE_HEADERS, body, OK_TRAILERS);
  },
  onOversize: (stream) => failures.push(`oversize on stream ${stream.id}`),
  onClosed: () => {},
  onError: (error) => failures.push(error instanceof Error ? (error.stack ?? error.message) : String(error)),
};

let server: ReturnType<typeof createServer> | undefined;
let port = 0;
const sockets = new Set<Socket>();

async function listening(): Promise<number> {
  if (server !== undefined) return port;
  server = createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    new H2Connection(socket, handler, 1 << 20);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return port;
}

/** What the server must read for `sent`: names as sent, a repeated field's values joined with ', '. */
function expectedHeaders(sent: http2.OutgoingHttpHeaders, authority: string): Record<string, string> {
  const out: Record<string, string> = { ':scheme': 'http', ':authority': authority };
  for (const [name, value] of Object.entries(sent))
    out[name] = Array.isArray(value) ? value.join(', ') : String(value);
  return out;
}

const sorted = (headers: Record<string, string | undefined>): string =>
  canonical(Object.fromEntries(Object.entries(headers).sort(([a], [b]) => (a < b ? -1 : 1))));

async function session(
  rng: Rng,
  count: number,
  found: (finding: Finding) => void,
  nextId: () => string,
): Promise<void> {
  const authority = `127.0.0.1:${await listening()}`;
  const settings = {
    initialWindowSize: pick(rng, [1, 100, 16_384, 65_535, 1 << 20]),
    maxFrameSize: pick(rng, [16_384, 16_385, 65_536]),
    headerTableSize: pick(rng, [0, 256, 4096]),
  };
  const client = http2.connect(`http://${authority}`, {
    settings,
    paddingStrategy: pick(rng, [http2.constants.PADDING_STRATEGY_NONE, http2.constants.PADDING_STRATEGY_MAX]),
  });
  // The client ending the session is a protocol error it found in what the server sent.
  let sessionError: string | undefined;
  client.on('error', (error: Error) => {
    sessionError ??= error.message;
  });
  const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
  const requests = Array.from({ length: count }, async () => {
    const headers = randomHeaderFields(rng);
    headers[':method'] = 'POST';
    const id = nextId();
    headers['x-fuzz-id'] = id;
    const body = bytes(rng, rng.int(40) === 0 ? rng.int(70_000) : pick(rng, [0, 1, 5, 100, rng.int(2_000)]));
    const cuts = [
      0,
      ...Array.from({ length: rng.int(3) }, () => rng.int(body.length + 1)).sort((a, b) => a - b),
      body.length,
    ];
    const reply = await new Promise<Buffer | undefined>((resolve) => {
      let request: http2.ClientHttp2Stream;
      try {
        request = client.request(headers);
      } catch {
        return resolve(undefined); // node:http2 refused the list itself
      }
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('error', () => resolve(undefined));
      request.on('close', () => resolve(request.rstCode === 0 ? Buffer.concat(chunks) : undefined));
      for (let i = 0; i + 1 < cuts.length; i++) request.write(body.subarray(cuts[i], cuts[i + 1]));
      request.end();
    });
    const got = seen.get(id);
    seen.delete(id);
    if (reply === undefined) {
      refused.count++; // refused (a header list over 16 KiB), or the session ended: nothing to compare
      return;
    }
    const input = `${canonical(headers)} with a body of ${body.length} bytes`;
    if (got === undefined)
      return found({ kind: 'difference', input, detail: 'answered without the server reading it' });
    if (sorted(got.headers) !== sorted(expectedHeaders(headers, authority)))
      found({ kind: 'difference', input, detail: `server read ${sorted(got.headers)}` });
    if (got.body !== digest(body))
      found({ kind: 'difference', input, detail: 'the server read another body' });
    if (!reply.subarray(0).equals(body))
      found({ kind: 'difference', input, detail: `the client read ${reply.length} other bytes` });
  });
  await Promise.all(requests);
  // The session's error comes after its streams have closed, before the session's close.
  client.close();
  await closed;
  if (sessionError !== undefined)
    found({
      kind: 'difference',
      input: `a session with SETTINGS ${canonical(settings)}`,
      detail: `node:http2's client ended the session: ${sessionError}`,
    });
  for (const failure of failures.splice(0)) found({ kind: 'crash', input: '(a session)', detail: failure });
}

let counter = 0;
const refused = { count: 0 };
export const h2ConnectionTarget: FuzzTarget = {
  name: 'h2-connection',
  oracle: "node:http2's client (framing, HPACK, flow control)",
  notCompared: () => refused.count,
  async run(rng, count, found) {
    for (let done = 0; done < count; ) {
      const n = Math.min(count - done, 1 + rng.int(64));
      await session(rng, n, found, () => String(counter++));
      done += n;
    }
  },
  async close() {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
    server = undefined;
  },
};
