// The Redis counter store's connections against the real Redis: pipelined INCRBY + EXPIRE of
// concurrent decisions and Redis error replies through both the lean RESP connection and ioredis
// (sentinel, cluster, TLS), then the lean one's AUTH, unix socket, outage and a connection that
// stops answering.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CounterConnection } from '../../services/ratelimit/adapters/redis/counter-connection.ts';
import { parseHostPort } from '../../services/ratelimit/adapters/redis/redis-client.ts';
import { createRespConnection } from '../../services/ratelimit/adapters/redis/resp-connection.ts';
import type { CounterIncrement } from '../../services/ratelimit/ports.ts';
import { ioredisCounterConnection } from '../helpers/counter-connections.ts';
import { freePort } from '../helpers/experiment-server.ts';
import { startTcpProxy } from '../helpers/ratelimit-tcp-proxy.ts';
import { waitFor } from '../helpers/wait-for.ts';

const prefix = `resp-${randomBytes(6).toString('hex')}:`;
const item = (key: string, addend = 1, windowSeconds = 60): CounterIncrement => ({
  key: `${prefix}${key}`,
  addend,
  windowSeconds,
  perSecond: false,
});

/** Events of one connection, and the connection. */
function connectTo(
  address: { host: string; port: number } | { path: string },
  auth: { username?: string; password?: string } = {},
) {
  const events = { ready: 0, closed: 0, errors: [] as string[] };
  const connection: CounterConnection = createRespConnection({
    ...address,
    ...auth,
    connectTimeoutMs: 2_000,
    onReady: () => events.ready++,
    onClose: () => events.closed++,
    onError: (error) => events.errors.push(error.message),
  });
  return { connection, events };
}

describe.each([
  ['lean RESP', 'lean:'],
  ['ioredis', 'ioredis:'],
] as const)('%s counter connection', (name, space) => {
  const infra = inject('infra');
  const redis = new Redis({ ...parseHostPort(infra.REDIS_URL), lazyConnect: true });
  const opened: CounterConnection[] = [];
  const make = (): CounterConnection => {
    const connection =
      name === 'ioredis'
        ? ioredisCounterConnection(infra.REDIS_URL, 2_000)
        : connectTo(parseHostPort(infra.REDIS_URL)).connection;
    opened.push(connection);
    return connection;
  };

  afterAll(async () => {
    await Promise.all(opened.map((c) => c.close()));
    const keys = await redis.keys(`${prefix}${space}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('counts the decisions of one turn, in order, and sets each key to expire within its window and jitter', async () => {
    const connection = make();
    await connection.whenReady(5_000);
    const decisions = Array.from({ length: 200 }, (_, i) =>
      connection.increment(
        [item(`${space}k${i % 20}`), item(`${space}other${i % 3}`, 2, 3_600)],
        (window) => window + 7,
      ),
    );
    const counts = await Promise.all(decisions);
    const perKey = new Map<number, number[]>();
    counts.forEach(([count], i) => {
      perKey.set(i % 20, [...(perKey.get(i % 20) ?? []), count!]);
    });
    for (const seen of perKey.values()) expect(seen).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    expect(counts.map(([, other]) => other).sort((a, b) => a! - b!)).toEqual(
      Array.from({ length: 200 }, (_, i) => 2 * (Math.floor(i / 3) + 1)),
    );
    expect(await redis.ttl(`${prefix}${space}k0`)).toBeGreaterThan(60);
    expect(await redis.ttl(`${prefix}${space}k0`)).toBeLessThanOrEqual(67);
    expect(await redis.ttl(`${prefix}${space}other0`)).toBeLessThanOrEqual(3_607);
  });

  it('fails a decision whose key Redis refuses with its error, and keeps serving the others', async () => {
    const connection = make();
    await connection.whenReady(5_000);
    await redis.set(`${prefix}${space}text`, 'not a number');
    const [refused, counted] = await Promise.allSettled([
      connection.increment([item(`${space}fine-1`), item(`${space}text`)], (w) => w),
      connection.increment([item(`${space}fine-2`)], (w) => w),
    ]);
    expect(refused.status).toBe('rejected');
    expect((refused as PromiseRejectedResult).reason.message).toBe(
      `INCRBY ${prefix}${space}text: ERR value is not an integer or out of range`,
    );
    expect(counted).toEqual({ status: 'fulfilled', value: [1] });
    expect(await connection.ping()).toBe('PONG');
  });
});

describe('lean RESP connection', () => {
  const infra = inject('infra');
  const address = parseHostPort(infra.REDIS_URL);
  const redis = new Redis({ ...address, lazyConnect: true });
  const opened: CounterConnection[] = [];
  const open = (...args: Parameters<typeof connectTo>) => {
    const made = connectTo(...args);
    opened.push(made.connection);
    return made;
  };

  afterAll(async () => {
    await Promise.all(opened.map((c) => c.close()));
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  describe('with AUTH, over TCP and a unix socket', () => {
    const socketPath = join(tmpdir(), `ratelimit-resp-${process.pid}-${randomBytes(4).toString('hex')}.sock`);
    let port: number;
    let stop: () => Promise<void>;
    beforeAll(async () => {
      port = await freePort();
      const child = spawn(
        'redis-server',
        [
          ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--requirepass', 'sesame'],
          ...['--unixsocket', socketPath, '--unixsocketperm', '700'],
        ],
        { stdio: 'ignore' },
      );
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      stop = async () => {
        child.kill('SIGTERM');
        await exited;
      };
      const probe = await waitFor('the AUTH redis-server', async () => {
        const attempt = new Redis({
          host: '127.0.0.1',
          port,
          password: 'sesame',
          lazyConnect: true,
          retryStrategy: () => null,
        });
        attempt.on('error', () => {});
        return attempt.connect().then(
          () => attempt,
          () => void attempt.disconnect(),
        );
      });
      await probe.acl('SETUSER', 'counter', 'on', '>open', '~*', '+@all');
      probe.disconnect();
    });
    afterAll(() => stop?.());

    it('authenticates with a password, or a user and password', async () => {
      for (const auth of [{ password: 'sesame' }, { username: 'counter', password: 'open' }]) {
        const { connection } = open({ host: '127.0.0.1', port }, auth);
        await connection.whenReady(5_000);
        expect(await connection.increment([item('auth')], (w) => w)).toHaveLength(1);
      }
    });

    it('connects over a unix socket', async () => {
      const { connection } = open({ path: socketPath }, { password: 'sesame' });
      await connection.whenReady(5_000);
      expect(await connection.increment([item('unix')], (w) => w)).toEqual([1]);
    });

    it('never becomes ready with a wrong password, and reports why', async () => {
      const { connection, events } = open({ host: '127.0.0.1', port }, { password: 'wrong' });
      await expect(connection.whenReady(5_000)).rejects.toThrow(/WRONGPASS|invalid password/);
      expect(connection.ready).toBe(false);
      await expect(connection.increment([item('x')], (w) => w)).rejects.toThrow(/^not connected: /);
      expect(events.errors.some((e) => /WRONGPASS|invalid password/.test(e))).toBe(true);
    });
  });

  it('fails what waits when the connection drops, refuses at once while down, and reconnects by itself', async () => {
    const proxy = await startTcpProxy(address);
    try {
      const { connection, events } = open({ host: '127.0.0.1', port: proxy.port });
      await connection.whenReady(5_000);
      const waiting = connection.increment([item('outage')], (w) => w);
      proxy.cut();
      await expect(waiting).rejects.toThrow(/^connection lost/);
      await waitFor('the close to be reported', () => events.closed === 1);
      await expect(connection.increment([item('outage')], (w) => w)).rejects.toThrow(/^not connected/);
      proxy.restore();
      await connection.whenReady(5_000);
      expect(events.ready).toBe(2);
      expect(await connection.increment([item('outage')], (w) => w)).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it('tells when requests wait without any answer, and fails them on reset', async () => {
    // A server that answers PING and nothing else.
    const silent: Server = createServer((socket) =>
      socket.on('data', (data) => {
        if (data.includes('PING')) socket.write('+PONG\r\n');
      }),
    );
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      const { connection } = open({ host: '127.0.0.1', port });
      await connection.whenReady(5_000);
      expect(connection.stalled(0, 100)).toBe(false);
      const waiting = connection.increment([item('silent')], (w) => w);
      expect(connection.stalled(1_000, 100)).toBe(false);
      expect(connection.stalled(1_050, 100)).toBe(false);
      expect(connection.stalled(1_101, 100)).toBe(true);
      connection.reset();
      await expect(waiting).rejects.toThrow('connection lost: no answer in time');
    } finally {
      silent.close();
    }
  });
});
