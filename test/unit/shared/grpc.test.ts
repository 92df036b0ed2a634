import path from 'node:path';
import {
  type Client,
  type ClientReadableStream,
  credentials,
  loadPackageDefinition as grpcLoadPackageDefinition,
  Metadata,
  type ServiceError,
  status,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors.ts';
import {
  loadPackageDefinition,
  lookupService,
  PROTO_LOADER_OPTIONS,
  PROTO_ROOT,
} from '../../../shared/grpc.ts';
import { startGrpcServer } from '../../../shared/grpc-server/grpc-server.ts';
import { silentLogger } from '../../../shared/logger.ts';
import type { HandlerContext } from '../../../shared/rpc/contract.ts';
import { createHealthService, type HealthService } from '../../../shared/rpc/health.ts';
import { protoService } from '../../../shared/rpc/proto-service.ts';
import { memoryLogger } from '../../helpers/memory-logger.ts';

interface SayRequest {
  text: string;
  mode: string;
  delay_ms: number;
}
interface SayReply {
  text: string;
}
interface LogLine {
  level: string;
  msg: string;
  method?: string;
  code?: string;
  err?: { type?: string; message?: string };
}
type Callback<T> = (error: ServiceError | null, value?: T) => void;
type UnaryWithMetadata = (
  request: unknown,
  metadata: Metadata,
  options: { deadline: number },
  callback: Callback<unknown>,
) => void;
type UnaryMethod<Req, Res> = (request: Req, options: { deadline: number }, callback: Callback<Res>) => void;

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/proto');
const echoPackage = grpcLoadPackageDefinition(
  loadSync(path.join(FIXTURES, 'echo.proto'), { ...PROTO_LOADER_OPTIONS, includeDirs: [FIXTURES] }),
);
const Echo = lookupService(echoPackage, 'test.echo.Echo');
const Health = lookupService(loadPackageDefinition(['grpc/health/v1/health.proto']), 'grpc.health.v1.Health');

interface Running {
  readonly port: number;
  stop(deadlineMs: number): Promise<void>;
}
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
const start = (options: {
  host: string;
  port: number;
  logger: typeof silentLogger;
  services: Parameters<typeof startGrpcServer>[0]['services'];
}) => startGrpcServer({ ...options, maxMessageBytes: MAX_MESSAGE_BYTES });

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Calls a unary method, resolving with the reply or the ServiceError (never rejecting). */
function call<Res>(client: Client, method: string, request: object): Promise<Res | ServiceError> {
  const fn = (client as unknown as Record<string, UnaryMethod<object, Res>>)[method]!.bind(client);
  return new Promise((resolve) => {
    fn(request, { deadline: Date.now() + 5_000 }, (error, value) => resolve(error ?? (value as Res)));
  });
}

function expectStatus(result: unknown, code: status, details?: string): void {
  expect(result).toBeInstanceOf(Error);
  const error = result as ServiceError;
  expect(status[error.code]).toBe(status[code]);
  if (details !== undefined) expect(error.details).toBe(details);
}

/** What `until_aborted` calls saw aborted. */
const abortedCalls: string[] = [];

/** The test service: behaves as `mode` says, after `delay_ms`. */
async function say(request: SayRequest, context: HandlerContext): Promise<SayReply> {
  if (request.delay_ms > 0) await sleep(request.delay_ms);
  switch (request.mode) {
    case 'ok':
      return { text: `echo: ${request.text}` };
    case 'correlation':
      return { text: context.correlationId ?? '(none)' };
    case 'deadline':
      return { text: String(Number(context.deadline) - Date.now()) };
    case 'metadata':
      return { text: String(context.metadata[request.text]) };
    case 'aborted':
      return { text: String(context.signal.aborted) };
    case 'until_aborted':
      await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve()));
      abortedCalls.push(request.text);
      return { text: 'too late' };
    case 'invalid':
      throw new AppError('INVALID_ARGUMENT', 'field x: bad');
    case 'not_found':
      throw new AppError('NOT_FOUND', `no such thing: ${request.text}`);
    case 'unavailable':
      throw new AppError('UNAVAILABLE', 'database is down');
    case 'store_outage':
      // As the rate limit service answers a Redis outage: UNKNOWN, but the service's fault.
      throw new AppError('UNKNOWN', 'redis: connection refused', { retriable: true });
    case 'unknown_request':
      throw new AppError('UNKNOWN', 'rate limit descriptor list must not be empty');
    case 'type_error':
      throw new TypeError('cannot read properties of undefined');
    default:
      throw new Error(`unknown mode ${request.mode}`);
  }
}

describe('unary handlers on the gRPC server', () => {
  const { logger, lines } = memoryLogger<LogLine>();
  let running: Running;
  let client: Client;

  beforeAll(async () => {
    running = await start({
      host: '127.0.0.1',
      port: 0,
      logger,
      services: [protoService(Echo.service, { unary: { Say: say } })],
    });
    client = new Echo(`127.0.0.1:${running.port}`, credentials.createInsecure());
  });

  afterEach(() => {
    lines.length = 0;
  });

  afterAll(async () => {
    client?.close();
    await running?.stop(1_000);
  });

  it('binds a free port when asked for port 0', () => {
    expect(running.port).toBeGreaterThan(0);
  });

  it("hands the handler the caller's x-correlation-id, and none when it sent none", async () => {
    const withId = await new Promise<SayReply>((resolve, reject) => {
      const metadata = new Metadata();
      metadata.set('x-correlation-id', 'req-42');
      const say = (client as unknown as Record<string, UnaryWithMetadata>).Say;
      say?.call(
        client,
        { text: '', mode: 'correlation' },
        metadata,
        { deadline: Date.now() + 5_000 },
        (error, value) => (error ? reject(error) : resolve(value as SayReply)),
      );
    });
    expect(withId).toEqual({ text: 'req-42' });
    expect(await call<SayReply>(client, 'Say', { text: '', mode: 'correlation' })).toEqual({
      text: '(none)',
    });
  });

  it("hands the handler the caller's deadline and metadata", async () => {
    const left = await call<SayReply>(client, 'Say', { text: '', mode: 'deadline' });
    // The call gives 5 s: the handler sees a deadline in the next 5 s.
    expect(Number((left as SayReply).text)).toBeGreaterThan(3_000);
    expect(Number((left as SayReply).text)).toBeLessThanOrEqual(5_000);
    const withMetadata = (key: string, value: string | Buffer) =>
      new Promise<SayReply>((resolve, reject) => {
        const metadata = new Metadata();
        metadata.set(key, value);
        (client as unknown as Record<string, UnaryWithMetadata>).Say?.call(
          client,
          { text: key, mode: 'metadata' },
          metadata,
          { deadline: Date.now() + 5_000 },
          (error, value) => (error ? reject(error) : resolve(value as SayReply)),
        );
      });
    expect(await withMetadata('x-team', 'blue')).toEqual({ text: 'blue' });
    // Binary metadata as it crossed the wire: base64.
    expect(await withMetadata('x-trace-bin', Buffer.from('ab'))).toEqual({
      text: Buffer.from('ab').toString('base64'),
    });
    // A call under way has not been given up.
    expect(await call<SayReply>(client, 'Say', { text: '', mode: 'aborted' })).toEqual({ text: 'false' });
  });

  it("aborts the handler's signal when the caller's deadline passes", async () => {
    const answer = await new Promise<SayReply | ServiceError>((resolve) => {
      (client as unknown as Record<string, UnaryMethod<object, SayReply>>).Say!.call(
        client,
        { text: 'short', mode: 'until_aborted' },
        { deadline: Date.now() + 200 },
        (error, value) => resolve(error ?? (value as SayReply)),
      );
    });
    expectStatus(answer, status.DEADLINE_EXCEEDED);
    await expect.poll(() => abortedCalls).toEqual(['short']);
  });

  it('answers with what the handler resolves', async () => {
    const reply = await call<SayReply>(client, 'Say', { text: 'hi', mode: 'ok' });
    expect(reply).toEqual({ text: 'echo: hi' });
  });

  it('turns an INVALID_ARGUMENT AppError into that status with the message as details', async () => {
    expectStatus(await call(client, 'Say', { mode: 'invalid' }), status.INVALID_ARGUMENT, 'field x: bad');
  });

  it('maps NOT_FOUND and UNAVAILABLE', async () => {
    expectStatus(
      await call(client, 'Say', { mode: 'not_found', text: 'k' }),
      status.NOT_FOUND,
      'no such thing: k',
    );
    expectStatus(await call(client, 'Say', { mode: 'unavailable' }), status.UNAVAILABLE, 'database is down');
  });

  it('turns a thrown TypeError into INTERNAL without leaking its message', async () => {
    expectStatus(await call(client, 'Say', { mode: 'type_error' }), status.INTERNAL, 'internal error');
  });

  it('awaits handlers that settle later', async () => {
    expectStatus(await call(client, 'Say', { mode: 'invalid', delay_ms: 50 }), status.INVALID_ARGUMENT);
    expect(await call(client, 'Say', { text: 'late', mode: 'ok', delay_ms: 50 })).toEqual({
      text: 'echo: late',
    });
  });

  it('logs server-side failures at error and client mistakes at info, naming the method', async () => {
    await call(client, 'Say', { mode: 'type_error' });
    await call(client, 'Say', { mode: 'invalid' });
    const internal = lines.find((line) => line.code === 'INTERNAL');
    expect(internal).toMatchObject({ level: 'error', method: 'Echo.Say' });
    expect(internal?.err).toMatchObject({
      type: 'TypeError',
      message: 'cannot read properties of undefined',
    });
    expect(lines.find((line) => line.code === 'INVALID_ARGUMENT')).toMatchObject({
      level: 'info',
      method: 'Echo.Say',
    });
  });

  it('logs an outage answered UNAVAILABLE or UNKNOWN at error, a request answered UNKNOWN at info', async () => {
    await call(client, 'Say', { mode: 'unavailable' });
    await call(client, 'Say', { mode: 'store_outage' });
    await call(client, 'Say', { mode: 'unknown_request' });
    const levelOf = (message: string) =>
      lines.find((line) => (line.err as { message?: string })?.message === message)?.level;
    expect(levelOf('database is down')).toBe('error');
    expect(levelOf('redis: connection refused')).toBe('error');
    expect(levelOf('rate limit descriptor list must not be empty')).toBe('info');
  });
});

describe('the health service', () => {
  let health: HealthService;
  let running: Running;
  let client: Client;
  let watches: ClientReadableStream<unknown>[] = [];

  beforeAll(async () => {
    health = createHealthService();
    running = await start({
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      services: [health.rpc],
    });
    client = new Health(`127.0.0.1:${running.port}`, credentials.createInsecure());
  });

  afterEach(() => {
    for (const watch of watches) watch.cancel();
    watches = [];
  });

  afterAll(async () => {
    health?.shutdown();
    client?.close();
    await running?.stop(1_000);
  });

  function watch(service: string): { statuses: string[]; next: () => Promise<string> } {
    const stream = (
      client as unknown as { Watch: (req: object) => ClientReadableStream<{ status: string }> }
    ).Watch({
      service,
    });
    watches.push(stream);
    stream.on('error', () => {}); // cancelling ends the stream with CANCELLED
    const statuses: string[] = [];
    stream.on('data', (message: { status: string }) => statuses.push(message.status));
    let seen = 0;
    const next = async (): Promise<string> => {
      for (let waited = 0; statuses.length <= seen; waited += 10) {
        if (waited > 2_000) throw new Error(`no Watch message after ${statuses.join(',')}`);
        await sleep(10);
      }
      return statuses[seen++]!;
    };
    return { statuses, next };
  }

  it('reports the server NOT_SERVING until told otherwise', async () => {
    expect(await call(client, 'Check', { service: '' })).toEqual({ status: 'NOT_SERVING' });
    health.setStatus('', 'SERVING');
    expect(await call(client, 'Check', { service: '' })).toEqual({ status: 'SERVING' });
    expect(health.status('')).toBe('SERVING');
  });

  it('answers NOT_FOUND for a service it does not know', async () => {
    expectStatus(await call(client, 'Check', { service: 'no.such.Service' }), status.NOT_FOUND);
    expect(health.status('no.such.Service')).toBe('SERVICE_UNKNOWN');
  });

  it('Watch sends the current status, then each change', async () => {
    const current = health.status('');
    const server = watch('');
    expect(await server.next()).toBe(current);
    const flipped = current === 'SERVING' ? 'NOT_SERVING' : 'SERVING';
    health.setStatus('', flipped);
    expect(await server.next()).toBe(flipped);
    health.setStatus('', flipped); // no change, no message
    const back = flipped === 'SERVING' ? 'NOT_SERVING' : 'SERVING';
    health.setStatus('', back);
    // Messages arrive in order: a message for the repeated status would come before this one.
    expect(await server.next()).toBe(back);
    expect(server.statuses).toEqual([current, flipped, back]);

    const later = watch('test.echo.Echo');
    expect(await later.next()).toBe('SERVICE_UNKNOWN');
    health.setStatus('test.echo.Echo', 'SERVING');
    expect(await later.next()).toBe('SERVING');
    health.setStatus('test.echo.Echo', 'NOT_SERVING');
    expect(await later.next()).toBe('NOT_SERVING');
  });
});

describe('starting and stopping', () => {
  it('stop() closes the server: later calls fail with UNAVAILABLE', async () => {
    const health = createHealthService();
    health.setStatus('', 'SERVING');
    const running = await start({
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      services: [health.rpc],
    });
    const client = new Health(`127.0.0.1:${running.port}`, credentials.createInsecure());
    try {
      expect(await call(client, 'Check', { service: '' })).toEqual({ status: 'SERVING' });
      health.shutdown();
      await running.stop(1_000);
      expectStatus(await call(client, 'Check', { service: '' }), status.UNAVAILABLE);
    } finally {
      client.close();
      await running.stop(1_000);
    }
  });

  it('shutdown() ends Watch streams so a graceful stop does not hang', async () => {
    const health = createHealthService();
    const running = await start({
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      services: [health.rpc],
    });
    const client = new Health(`127.0.0.1:${running.port}`, credentials.createInsecure());
    try {
      const stream = (client as unknown as { Watch: (req: object) => ClientReadableStream<unknown> }).Watch({
        service: '',
      });
      const ended = new Promise<string>((resolve) => {
        stream.on('status', (s: { code: status }) => resolve(status[s.code]));
        stream.on('error', () => {});
      });
      // The first message (the current status) says the stream is open on the server.
      await new Promise<void>((resolve) => stream.once('data', () => resolve()));
      health.shutdown();
      expect(await ended).toBe('OK');
      const started = Date.now();
      await running.stop(5_000);
      expect(Date.now() - started).toBeLessThan(4_000);
    } finally {
      client.close();
      await running.stop(1_000);
    }
  });

  it('rejects with UNAVAILABLE naming the address when the port is taken', async () => {
    const first = await start({ host: '127.0.0.1', port: 0, logger: silentLogger, services: [] });
    try {
      const second = start({
        host: '127.0.0.1',
        port: first.port,
        logger: silentLogger,
        services: [],
      });
      await expect(second).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      await expect(second).rejects.toThrow(`127.0.0.1:${first.port}`);
    } finally {
      await first.stop(1_000);
    }
  });

  it('PROTO_ROOT is the repository proto folder', () => {
    expect(PROTO_ROOT).toBe(path.resolve(import.meta.dirname, '../../../proto'));
  });
});
