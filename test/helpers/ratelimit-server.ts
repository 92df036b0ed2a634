// The real rate limit service in a child process on free ports, and small clients for its gRPC,
// /json and debug endpoints; plus a throwaway redis-server for the per-second store.

import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { credentials, type ServiceError } from '@grpc/grpc-js';
import { RLS_PROTO, RLS_SERVICE } from '../../services/ratelimit/adapters/grpc/grpc-handlers.ts';
import type { WireRequest, WireResponse } from '../../services/ratelimit/adapters/grpc/wire.ts';
import { HEALTH_PROTO, loadPackageDefinition, lookupService } from '../../shared/grpc.ts';
import { freePort } from './experiment-server.ts';
import { testKafkaClient } from './kafka.ts';
import { waitFor } from './wait-for.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const MAX_OUTPUT_CHARS = 64 * 1024;

export interface RatelimitServer {
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly debugPort: number;
  readonly grpcAddress: string;
  /** POST /json: status code and body text. */
  json(body: unknown): Promise<{ status: number; body: string; contentType: string | null }>;
  /** GET on the debug port (/rlconfig, /stats, /metrics). */
  debug(path: string): Promise<string>;
  /** GET on the HTTP port. */
  http(path: string): Promise<{ status: number; body: string }>;
  /** A counter from /stats, 0 when absent. */
  stat(name: string): Promise<number>;
  shouldRateLimit(request: Partial<WireRequest>): Promise<WireResponse>;
  /** The same on a TCP connection of its own (with RATELIMIT_WORKERS, calls then spread over the workers). */
  shouldRateLimitOnNewConnection(request: Partial<WireRequest>): Promise<WireResponse>;
  grpcHealth(service: string): Promise<string>;
  stop(): Promise<number | null>;
  output(): string;
}

/** A descriptor request with hits_addend 1, in the shape the gRPC client takes. */
export const descriptors = (...lists: Array<Record<string, string> | Array<[string, string]>>) =>
  lists.map((list) => ({
    entries: (Array.isArray(list) ? list : Object.entries(list)).map(([key, value]) => ({ key, value })),
  }));

/**
 * Calls on new connections until every decision worker of `server` has answered one (the primary
 * hands connections out in turn, but on a loaded machine a worker's stats reply may come late);
 * `check` runs on each answer, and an answer it refuses fails the wait with its assertion.
 */
export async function askEveryWorker(
  server: RatelimitServer,
  workers: number,
  request: () => Partial<WireRequest>,
  check: (reply: WireResponse) => void,
): Promise<void> {
  await waitFor(
    `each of ${workers} workers to answer`,
    async () => {
      check(await server.shouldRateLimitOnNewConnection(request()));
      const served = (await server.debug('/stats'))
        .split('\n')
        .filter((line) => /^ratelimit\.worker\.\d+\.total_requests: [1-9]/.test(line));
      return served.length === workers;
    },
    { timeoutMs: 20_000 },
  );
}

export async function startRatelimitServer(
  settings: Record<string, string>,
  /** built: run the JavaScript `build()` wrote into this folder (what `npm start` runs) instead of the sources. */
  options: { readyTimeoutMs?: number; waitForHealthy?: boolean; built?: string } = {},
): Promise<RatelimitServer> {
  // PORT, GRPC_PORT and DEBUG_PORT when the test chose them (to probe them before the service is ready).
  const portOf = async (variable: string): Promise<number> =>
    settings[variable] !== undefined ? Number(settings[variable]) : freePort();
  const [httpPort, grpcPort, debugPort] = [
    await portOf('PORT'),
    await portOf('GRPC_PORT'),
    await portOf('DEBUG_PORT'),
  ];
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    LOG_LEVEL: 'warn',
    KAFKA_CLIENT: testKafkaClient,
    USE_STATSD: 'false',
    HOST: '127.0.0.1',
    GRPC_HOST: '127.0.0.1',
    DEBUG_HOST: '127.0.0.1',
    PORT: String(httpPort),
    GRPC_PORT: String(grpcPort),
    DEBUG_PORT: String(debugPort),
    // One process unless a test asks for workers: 2 cores are shared by every test run.
    RATELIMIT_WORKERS: '1',
    REDIS_SOCKET_TYPE: 'tcp',
    REDIS_POOL_SIZE: '2',
    REDIS_STARTUP_INITIAL_INTERVAL: '100ms',
    CONFIG_KAFKA_PUBLISH: 'false',
    ...settings,
  };
  const entry = options.built
    ? join(options.built, 'services/ratelimit/main.js')
    : 'services/ratelimit/main.ts';
  const child: ChildProcess = spawn(process.execPath, [entry], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-MAX_OUTPUT_CHARS);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => {
    exitCode = code;
  });
  const reap = (): void => void child.kill('SIGKILL');
  process.once('exit', reap);
  void exited.then(() => process.off('exit', reap));

  const grpcAddress = `127.0.0.1:${grpcPort}`;
  const RateLimitService = lookupService(loadPackageDefinition([RLS_PROTO]), RLS_SERVICE);
  const Health = lookupService(loadPackageDefinition([HEALTH_PROTO]), 'grpc.health.v1.Health');
  const client = new RateLimitService(grpcAddress, credentials.createInsecure()) as unknown as {
    ShouldRateLimit(r: unknown, o: unknown, cb: (e: ServiceError | null, v: WireResponse) => void): void;
    close(): void;
  };
  const health = new Health(grpcAddress, credentials.createInsecure()) as unknown as {
    Check(r: unknown, o: unknown, cb: (e: ServiceError | null, v: { status: string }) => void): void;
    close(): void;
  };

  const http = async (port: number, path: string, init?: RequestInit) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, init);
    return { status: res.status, body: await res.text(), contentType: res.headers.get('content-type') };
  };

  const server: RatelimitServer = {
    httpPort,
    grpcPort,
    debugPort,
    grpcAddress,
    json: (body) =>
      http(httpPort, '/json', {
        method: 'POST',
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    debug: async (path) => (await http(debugPort, path)).body,
    http: (path) => http(httpPort, path),
    async stat(name) {
      const text = (await http(debugPort, '/stats')).body;
      const line = text.split('\n').find((l) => l.startsWith(`${name}: `));
      return line === undefined ? 0 : Number(line.slice(name.length + 2));
    },
    shouldRateLimit: (request) =>
      new Promise((resolve, reject) =>
        client.ShouldRateLimit(
          { hits_addend: 1, ...request },
          { deadline: Date.now() + 10_000 },
          (error, reply) => (error ? reject(error) : resolve(reply)),
        ),
      ),
    async shouldRateLimitOnNewConnection(request) {
      const own = new RateLimitService(grpcAddress, credentials.createInsecure(), {
        'grpc.use_local_subchannel_pool': 1,
      }) as unknown as typeof client;
      try {
        return await new Promise<WireResponse>((resolve, reject) =>
          own.ShouldRateLimit(
            { hits_addend: 1, ...request },
            { deadline: Date.now() + 10_000 },
            (error, reply) => (error ? reject(error) : resolve(reply)),
          ),
        );
      } finally {
        own.close();
      }
    },
    grpcHealth: (service) =>
      new Promise((resolve, reject) =>
        health.Check({ service }, { deadline: Date.now() + 5_000 }, (error, reply) =>
          error ? reject(error) : resolve(reply.status),
        ),
      ),
    async stop() {
      client.close();
      health.close();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    output: () => output,
  };

  try {
    const outcome = await waitFor(
      'the rate limit service to listen',
      async () => {
        if (exitCode !== undefined) return 'exited';
        const res = await http(httpPort, '/healthcheck');
        return (options.waitForHealthy === false || res.status === 200) && 'listening';
      },
      { timeoutMs: options.readyTimeoutMs ?? 30_000, intervalMs: 100 },
    );
    if (outcome === 'exited') throw new Error(`the process exited with code ${exitCode}`);
  } catch (error) {
    await server.stop();
    throw new Error(`rate limit service did not start: ${(error as Error).message}\n${output}`);
  }
  return server;
}

/** A redis-server of the test's own on a free port (no persistence); stopped by `stop`. */
export async function startRedisServer(): Promise<{ port: number; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const reap = (): void => void child.kill('SIGKILL');
  process.once('exit', reap);
  await waitFor('redis-server to listen', async () => {
    const { createConnection } = await import('node:net');
    return new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
  });
  return {
    port,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      process.off('exit', reap);
    },
  };
}

/** A runtime folder like a deploy's: `<dir>/current` is a symlink to a version folder holding `ratelimit/config/`. */
export interface RuntimeFolder {
  /** RUNTIME_ROOT (the symlink). */
  readonly root: string;
  readonly subdirectory: 'ratelimit';
  /** The config folder the symlink points into now. */
  configDir(): string;
  /** Writes a file atomically (write to a temp name, rename). */
  write(name: string, text: string): Promise<void>;
  remove(name: string): Promise<void>;
  /** Points `current` at a new version folder holding exactly `files`, in one rename. */
  swap(files: Readonly<Record<string, string>>): Promise<void>;
  cleanup(): Promise<void>;
}

export const RUNTIME_FIXTURES = join(ROOT, 'test', 'fixtures', 'ratelimit', 'runtime');

export async function createRuntimeFolder(files?: Readonly<Record<string, string>>): Promise<RuntimeFolder> {
  const fs = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const base = await fs.mkdtemp(join(tmpdir(), 'ratelimit-runtime-'));
  let version = 0;
  let current = '';
  const makeVersion = async (content: Readonly<Record<string, string>>): Promise<string> => {
    const dir = join(base, `v${++version}`);
    await fs.mkdir(join(dir, 'ratelimit', 'config'), { recursive: true });
    for (const [name, text] of Object.entries(content))
      await fs.writeFile(join(dir, 'ratelimit', 'config', name), text);
    return dir;
  };
  const initial: Record<string, string> = {};
  if (files === undefined) {
    const fixtureDir = join(RUNTIME_FIXTURES, 'current', 'ratelimit', 'config');
    for (const name of await fs.readdir(fixtureDir))
      initial[name] = await fs.readFile(join(fixtureDir, name), 'utf8');
  } else Object.assign(initial, files);
  current = await makeVersion(initial);
  const root = join(base, 'current');
  await fs.symlink(current, root);
  return {
    root,
    subdirectory: 'ratelimit',
    configDir: () => join(current, 'ratelimit', 'config'),
    async write(name, text) {
      // Written beside, then renamed in: the loader never sees half a file or a temporary one.
      const temporary = join(base, `${name}.tmp`);
      await fs.writeFile(temporary, text);
      await fs.rename(temporary, join(current, 'ratelimit', 'config', name));
    },
    remove: (name) => fs.rm(join(current, 'ratelimit', 'config', name)),
    async swap(content) {
      const next = await makeVersion(content);
      const link = join(base, `current.tmp-${version}`);
      await fs.symlink(next, link);
      await fs.rename(link, root);
      current = next;
    },
    cleanup: () => fs.rm(base, { recursive: true, force: true }),
  };
}
