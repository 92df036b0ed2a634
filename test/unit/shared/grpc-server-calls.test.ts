// The gRPC server of every service (its own HTTP/2), spoken to by node:http2's client
// (nghttp2): what the gRPC HTTP/2 protocol asks of a server for every request it must refuse,
// deadlines, the status of a failed method, health Watch, a reply larger than the client's
// flow-control window, and GOAWAY on stop with the call under way finishing.
import { type ClientHttp2Session, connect, type IncomingHttpHeaders } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors.ts';
import { type RunningGrpcServer, startGrpcServer } from '../../../shared/grpc-server/grpc-server.ts';
import { silentLogger } from '../../../shared/logger.ts';
import { ProtobufError } from '../../../shared/protobuf/wire.ts';
import { behind, type RpcService, type UnaryHandler } from '../../../shared/rpc/contract.ts';
import { createHealthService } from '../../../shared/rpc/health.ts';
import { memoryLogger } from '../../helpers/memory-logger.ts';

interface Answer {
  headers: IncomingHttpHeaders;
  trailers: IncomingHttpHeaders;
  body: Buffer;
}

const framed = (payload: number[], flag = 0): Buffer => {
  const out = Buffer.alloc(5 + payload.length);
  out[0] = flag;
  out.writeUInt32BE(payload.length, 1);
  Buffer.from(payload).copy(out, 5);
  return out;
};

/** A method of raw bytes: the request's message is the handler's request, its reply the answer's message. */
const raw = (name: string, handle: UnaryHandler<Buffer, Buffer>, decode = (bytes: Buffer) => bytes) => ({
  path: `/t.T/${name}`,
  decode,
  encode: (reply: Buffer, reserve: number) => behind(reply, reserve),
  handle,
});

const TEST_SERVICE: RpcService = {
  name: 't.T',
  unary: [
    raw('Echo', async (message) => message),
    raw('Slow', () => new Promise<Buffer>((resolve) => setTimeout(() => resolve(Buffer.alloc(0)), 300))),
    raw('Refuse', async () => {
      throw new AppError('INVALID_ARGUMENT', 'domain must not be empty: ünï');
    }),
    raw('Bug', async () => {
      throw new TypeError('x is undefined');
    }),
    raw(
      'Garbled',
      async (message) => message,
      () => {
        throw new ProtobufError('truncated varint');
      },
    ),
  ],
  streaming: [],
};

describe('the gRPC server on its own HTTP/2', () => {
  let server: RunningGrpcServer;
  let session: ClientHttp2Session;
  const health = createHealthService();

  const call = (path: string, body: Buffer | undefined, headers: Record<string, string> = {}) =>
    new Promise<Answer>((resolve, reject) => {
      const stream = session.request({
        ':method': 'POST',
        ':path': path,
        'content-type': 'application/grpc',
        te: 'trailers',
        ...headers,
      });
      const answer: Answer = { headers: {}, trailers: {}, body: Buffer.alloc(0) };
      stream.on('response', (h) => {
        answer.headers = h;
      });
      stream.on('trailers', (t) => {
        answer.trailers = t;
      });
      stream.on('data', (chunk: Buffer) => {
        answer.body = Buffer.concat([answer.body, chunk]);
      });
      stream.on('end', () => resolve(answer));
      stream.on('error', reject);
      stream.end(body);
    });
  /** grpc-status and grpc-message, from the trailers or a trailers-only answer. */
  const status = (answer: Answer) => {
    const all = { ...answer.headers, ...answer.trailers };
    return [Number(all['grpc-status']), decodeURI(String(all['grpc-message'] ?? ''))];
  };

  const options = () => ({
    host: '127.0.0.1',
    port: 0,
    reusePort: false,
    services: [TEST_SERVICE, health.rpc],
    maxMessageBytes: 16,
    maxConnectionAgeMs: 0,
    maxConnectionAgeGraceMs: 0,
    logger: silentLogger,
  });

  beforeAll(async () => {
    health.setStatus('', 'SERVING');
    server = await startGrpcServer(options());
    session = connect(`http://127.0.0.1:${server.port}`);
  });
  afterAll(async () => {
    session?.close();
    await server?.stop(1_000);
  });

  it('answers a message with the message, then grpc-status 0 in the trailers', async () => {
    const answer = await call('/t.T/Echo', framed([1, 2, 3]));
    expect(answer.headers[':status']).toBe(200);
    expect(answer.headers['content-type']).toBe('application/grpc');
    expect([...answer.body]).toEqual([0, 0, 0, 0, 3, 1, 2, 3]);
    expect(answer.trailers['grpc-status']).toBe('0');
  });

  it.each([
    ['/t.T/Nope', framed([]), {}, [12, 'The server does not implement the method /t.T/Nope']],
    [
      '/t.T/Echo',
      framed([]),
      { 'grpc-encoding': 'gzip' },
      [12, 'Compression algorithm gzip is not supported'],
    ],
    ['/t.T/Echo', framed([1], 1), {}, [13, 'a compressed message was sent without grpc-encoding']],
    ['/t.T/Echo', undefined, {}, [13, 'the request carries no message']],
    [
      '/t.T/Echo',
      Buffer.concat([framed([1]), framed([2])]),
      {},
      [13, 'the request carries other than one message'],
    ],
    ['/t.T/Echo', framed(new Array(17).fill(1)), {}, [8, 'Received message larger than max (17 vs. 16)']],
    ['/t.T/Refuse', framed([]), {}, [3, 'domain must not be empty: ünï']],
    ['/t.T/Bug', framed([]), {}, [13, 'internal error']],
    ['/t.T/Garbled', framed([]), {}, [13, 'Error parsing request: truncated varint']],
    ['/t.T/Slow', framed([]), { 'grpc-timeout': '50m' }, [4, 'Deadline exceeded']],
  ])('%s %j %j answers %j', async (path, body, headers, expected) => {
    const answer = await call(path, body, headers as Record<string, string>);
    expect(status(answer)).toEqual(expected);
    expect(answer.body.length).toBe(0);
  });

  it('says which encoding it takes when it refuses a compressed call', async () => {
    const answer = await call('/t.T/Echo', framed([]), { 'grpc-encoding': 'gzip' });
    expect(answer.headers['grpc-accept-encoding']).toBe('identity');
  });

  it('answers a call without a deadline or within it', async () => {
    expect(status(await call('/t.T/Slow', framed([]), { 'grpc-timeout': '5S' }))).toEqual([0, '']);
  });

  it('refuses another method than POST (405) and another content type than gRPC (415)', async () => {
    expect((await call('/t.T/Echo', undefined, { ':method': 'GET' })).headers[':status']).toBe(405);
    expect((await call('/t.T/Echo', framed([]), { 'content-type': 'text/plain' })).headers[':status']).toBe(
      415,
    );
  });

  it('serves grpc.health.v1 Check, NOT_FOUND for a service it does not know', async () => {
    const request = [0x0a, 0x00];
    const answer = await call('/grpc.health.v1.Health/Check', framed(request));
    expect([...answer.body]).toEqual([0, 0, 0, 0, 2, 0x08, 1]); // SERVING
    const unknown = await call('/grpc.health.v1.Health/Check', framed([0x0a, 1, 0x78]));
    expect(status(unknown)).toEqual([5, "unknown service 'x'"]);
  });

  it('streams health changes to Watch, and ends the stream with status 0 on shutdown', async () => {
    const messages: number[] = [];
    const ended = new Promise<Answer>((resolve, reject) => {
      const stream = session.request({
        ':method': 'POST',
        ':path': '/grpc.health.v1.Health/Watch',
        'content-type': 'application/grpc',
      });
      const answer: Answer = { headers: {}, trailers: {}, body: Buffer.alloc(0) };
      stream.on('trailers', (t) => {
        answer.trailers = t;
      });
      stream.on('data', (chunk: Buffer) => {
        for (let at = 0; at < chunk.length; at += 7) messages.push(chunk[at + 6]!);
        if (messages.length === 1) health.setStatus('', 'NOT_SERVING');
        if (messages.length === 2) health.setStatus('', 'SERVING');
        if (messages.length === 3) health.shutdown();
      });
      stream.on('end', () => resolve(answer));
      stream.on('error', reject);
      stream.end(framed([0x0a, 0x00]));
    });
    expect((await ended).trailers['grpc-status']).toBe('0');
    expect(messages).toEqual([1, 2, 1, 2]); // SERVING, NOT_SERVING, SERVING, NOT_SERVING at shutdown
  });

  it('sends a reply larger than the window the client gives, as the client opens it', async () => {
    const small = connect(`http://127.0.0.1:${server.port}`, { settings: { initialWindowSize: 3 } });
    try {
      const body = await new Promise<Buffer>((resolve, reject) => {
        const stream = small.request({
          ':method': 'POST',
          ':path': '/t.T/Echo',
          'content-type': 'application/grpc',
        });
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => resolve(Buffer.concat(chunks)));
        stream.on('error', reject);
        stream.end(framed(new Array(16).fill(7)));
      });
      expect([...body]).toEqual([0, 0, 0, 0, 16, ...new Array(16).fill(7)]);
    } finally {
      small.close();
    }
  });

  it('sends GOAWAY on stop, lets the call under way finish, and takes no new connection', async () => {
    const stopping = await startGrpcServer(options());
    const client = connect(`http://127.0.0.1:${stopping.port}`);
    client.on('error', () => {});
    const goaway = new Promise<number>((resolve) => client.once('goaway', (code) => resolve(code)));
    const slow = new Promise<IncomingHttpHeaders>((resolve, reject) => {
      const stream = client.request({
        ':method': 'POST',
        ':path': '/t.T/Slow',
        'content-type': 'application/grpc',
      });
      stream.on('trailers', resolve);
      stream.on('error', reject);
      stream.resume();
      stream.end(framed([]));
    });
    await new Promise((resolve) => setTimeout(resolve, 50)); // the call is under way
    const stopped = stopping.stop(5_000);
    expect(await goaway).toBe(0);
    expect((await slow)['grpc-status']).toBe('0');
    await stopped;
    const refused = connect(`http://127.0.0.1:${stopping.port}`);
    await expect(
      new Promise((resolve, reject) => {
        refused.once('connect', resolve);
        refused.once('error', (error: Error & { code?: string }) => reject(new Error(error.code)));
      }),
    ).rejects.toThrow('ECONNREFUSED');
    client.close();
  });

  it('closes a connection with GOAWAY INTERNAL_ERROR on a bug of its own, logs it, and goes on serving', async () => {
    const { logger, lines } = memoryLogger('error');
    const buggy = await startGrpcServer({
      ...options(),
      admit: () => {
        throw new TypeError('admit is broken');
      },
      logger,
    });
    const client = connect(`http://127.0.0.1:${buggy.port}`);
    client.on('error', () => {});
    const goaway = new Promise<number>((resolve) => client.once('goaway', (code) => resolve(code)));
    client
      .request({ ':method': 'POST', ':path': '/t.T/Echo', 'content-type': 'application/grpc' })
      .on('error', () => {})
      .end(framed([]));
    expect(await goaway).toBe(2); // INTERNAL_ERROR
    expect(lines.map((line) => [line.msg, (line.err as { message: string }).message])).toEqual([
      ['gRPC connection closed on an internal error', 'admit is broken'],
    ]);
    client.close();
    const other = connect(`http://127.0.0.1:${buggy.port}`);
    await new Promise((resolve) => other.once('remoteSettings', resolve));
    other.close();
    await buggy.stop(1_000);
  });

  it('answers a PING, with or without a call under way', async () => {
    const ping = () =>
      new Promise<number>((resolve, reject) =>
        session.ping((error, duration) => (error ? reject(error) : resolve(duration))),
      );
    expect(await ping()).toBeLessThan(100);
    const slow = call('/t.T/Slow', framed([]));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await ping()).toBeLessThan(100); // the call takes 300 ms: the ACK does not wait for its reply
    expect(status(await slow)).toEqual([0, '']);
  });
});
