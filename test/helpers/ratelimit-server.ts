// The real rate limit service in a child process on free ports, with small clients for its gRPC,
// /json and debug endpoints, and what the rate limit tests share around it.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WireRequest, WireResponse } from '../../services/ratelimit/adapters/grpc/wire.ts';
import { freePort } from './experiment-server.ts';
import { testKafkaClient } from './kafka.ts';
import { createHealthClient, createRlsClient } from './rls-client.ts';
import { spawnService } from './service-process.ts';
import { waitFor } from './wait-for.ts';

export interface RatelimitServer {
  /** The service's process (one for the whole instance). */
  readonly pid: number;
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
  /** The same on a TCP connection of its own (with RATELIMIT_WORKERS, calls then spread over the decision units). */
  shouldRateLimitOnNewConnection(request: Partial<WireRequest>): Promise<WireResponse>;
  grpcHealth(service: string): Promise<string>;
  /** The statuses `connections` new connections get (with RATELIMIT_WORKERS, from different decision units). */
  grpcHealthOnNewConnections(service: string, connections: number): Promise<string[]>;
  stop(): Promise<number | null>;
  output(): string;
}

/** A random hex name part, so that tests never share keys, domains or fleets. */
export const random = (): string => randomBytes(6).toString('hex');

/** A descriptor request with hits_addend 1, in the shape the gRPC client takes. */
export const descriptors = (...lists: Array<Record<string, string> | Array<[string, string]>>) =>
  lists.map((list) => ({
    entries: (Array.isArray(list) ? list : Object.entries(list)).map(([key, value]) => ({ key, value })),
  }));

/** What `calls` decisions in a row against a limit of `limit` answer: OK down to 0 remaining, then OVER_LIMIT. */
export const countdown = (limit: number, calls: number): Array<[string, number]> =>
  Array.from({ length: calls }, (_, i) => (i < limit ? ['OK', limit - 1 - i] : ['OVER_LIMIT', 0]));

/** Counts within one MINUTE window must not straddle two: waits out the window's last `marginMs`. */
export async function awayFromMinuteEdge(marginMs = 3_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await sleep(left + 50);
}

/**
 * Runs `body`, whose counts must all fall in one minute window, away from the minute's edge; when
 * it fails and the minute turned while it ran (a loaded machine can take longer than the margin),
 * its counts started again midway, so it runs again in the next minute (up to `attempts` times).
 * A failure within one minute is the body's own.
 */
/**
 * Runs `body`, which reads back a counter that lives one second; when it fails and the second it
 * began in is over (a loaded machine), the counter may simply have expired, so it runs again (up
 * to `attempts` times). A failure within one second is the body's own.
 */
export async function inOneSecond(body: () => Promise<void>, attempts = 5): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const second = Math.floor(Date.now() / 1000);
    try {
      return await body();
    } catch (error) {
      if (Math.floor(Date.now() / 1000) === second || attempt >= attempts) throw error;
    }
  }
}

export async function inOneMinute(body: () => Promise<void>, attempts = 3): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await awayFromMinuteEdge();
    const minute = Math.floor(Date.now() / 60_000);
    try {
      return await body();
    } catch (error) {
      if (Math.floor(Date.now() / 60_000) === minute || attempt >= attempts) throw error;
    }
  }
}

/** The version of the configuration in force (/rlconfig's first line). */
export const versionOf = async (server: RatelimitServer): Promise<string | undefined> =>
  /^# version: ([0-9a-f]+)$/m.exec(await server.debug('/rlconfig'))?.[1];

/** Every line of /stats as name → value. */
export const statsOf = async (server: RatelimitServer): Promise<Map<string, number>> =>
  new Map(
    (await server.debug('/stats'))
      .trim()
      .split('\n')
      .map((line) => {
        const at = line.lastIndexOf(': ');
        return [line.slice(0, at), Number(line.slice(at + 2))] as [string, number];
      }),
  );

/**
 * Calls on new connections until every decision unit of `server` has answered one (the kernel
 * spreads new connections over the units' listeners at random); `check` runs on each answer, and
 * an answer it refuses fails the wait with its assertion.
 */
export async function askEveryDecisionProcess(
  server: RatelimitServer,
  units: number,
  request: () => Partial<WireRequest>,
  check: (reply: WireResponse) => void,
): Promise<void> {
  await waitFor(
    `each of ${units} decision units to answer`,
    async () => {
      check(await server.shouldRateLimitOnNewConnection(request()));
      const served = (await server.debug('/stats'))
        .split('\n')
        .filter((line) => /^ratelimit\.worker\.\d+\.total_requests: [1-9]/.test(line));
      return served.length === units;
    },
    { timeoutMs: 20_000 },
  );
}

/** Starts the service expecting it not to start: why it did not, or 'started' (it is then stopped). */
export async function failedStart(
  settings: Record<string, string>,
  options: Parameters<typeof startRatelimitServer>[1] = {},
): Promise<string> {
  let server: RatelimitServer;
  try {
    server = await startRatelimitServer(settings, options);
  } catch (error) {
    return (error as Error).message;
  }
  await server.stop();
  return 'started';
}

export async function startRatelimitServer(
  settings: Record<string, string>,
  /** built: run the JavaScript `build()` wrote into this folder (what `npm start` runs) instead of the sources. */
  options: {
    readyTimeoutMs?: number;
    waitForHealthy?: boolean;
    built?: string;
    /** node options before the entry, such as --import of a test hook. */
    nodeOptions?: readonly string[];
    /** Stops waiting for the service once its output shows it will not start (rejects, naming this). */
    notStartingWhen?: { readonly what: string; readonly seen: (output: string) => boolean };
  } = {},
): Promise<RatelimitServer> {
  // PORT, GRPC_PORT and DEBUG_PORT when the test chose them (to probe them before the service is
  // ready); otherwise three distinct free ones (the kernel may hand out a port just closed again).
  const taken: number[] = [];
  const portOf = async (variable: string): Promise<number> => {
    let port = settings[variable] !== undefined ? Number(settings[variable]) : await freePort();
    while (settings[variable] === undefined && taken.includes(port)) port = await freePort();
    taken.push(port);
    return port;
  };
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
    // One process unless a test asks for more: 2 cores are shared by every test run.
    RATELIMIT_WORKERS: '1',
    REDIS_SOCKET_TYPE: 'tcp',
    REDIS_POOL_SIZE: '2',
    REDIS_STARTUP_INITIAL_INTERVAL: '100ms',
    CONFIG_KAFKA_PUBLISH: 'false',
    ...settings,
  };
  const service = spawnService(
    options.built ? join(options.built, 'services/ratelimit/main.js') : 'services/ratelimit/main.ts',
    env,
    options.nodeOptions,
  );

  const grpcAddress = `127.0.0.1:${grpcPort}`;
  const client = createRlsClient(grpcAddress);
  const health = createHealthClient(grpcAddress);

  const http = async (port: number, path: string, init?: RequestInit) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, init);
    return { status: res.status, body: await res.text(), contentType: res.headers.get('content-type') };
  };

  const server: RatelimitServer = {
    pid: service.child.pid!,
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
    shouldRateLimit: (request) => client.shouldRateLimit(request),
    async shouldRateLimitOnNewConnection(request) {
      const own = createRlsClient(grpcAddress, { ownConnection: true });
      try {
        return await own.shouldRateLimit(request);
      } finally {
        own.close();
      }
    },
    grpcHealth: (service) => health.check(service),
    grpcHealthOnNewConnections: (service, connections) =>
      Promise.all(
        Array.from({ length: connections }, async () => {
          const own = createHealthClient(grpcAddress, { ownConnection: true });
          try {
            return await own.check(service);
          } finally {
            own.close();
          }
        }),
      ),
    async stop() {
      client.close();
      health.close();
      return service.stop();
    },
    output: service.output,
  };

  try {
    const outcome = await waitFor(
      'the rate limit service to listen',
      async () => {
        if (service.exitCode() !== undefined) return 'exited';
        if (options.notStartingWhen?.seen(service.output())) return 'not starting';
        const res = await http(httpPort, '/healthcheck');
        return (options.waitForHealthy === false || res.status === 200) && 'listening';
      },
      { timeoutMs: options.readyTimeoutMs ?? 30_000, intervalMs: 100 },
    );
    if (outcome === 'exited') throw new Error(`the process exited with code ${service.exitCode()}`);
    if (outcome === 'not starting') throw new Error(`not starting: ${options.notStartingWhen!.what}`);
  } catch (error) {
    await server.stop();
    throw new Error(`rate limit service did not start: ${(error as Error).message}\n${service.output()}`);
  }
  return server;
}

/**
 * Waits until the service's output holds `text` (failing after 10 s): a log line comes through a pipe,
 * so a counter or a decision that followed it may be seen first.
 */
export const logged = (server: Pick<RatelimitServer, 'output'>, text: string): Promise<true> =>
  waitFor(`the service to log "${text}"`, () => server.output().includes(text), { timeoutMs: 10_000 });
