// Rate limit benchmark: decisions/s and latency p50/p99 over gRPC and over /json with 1, 10 and 100
// concurrent callers, against the real Redis, with the service in its own process (as deployed)
// and this process as the load generator. Also Redis round trips and commands per decision, and
// the same at 100 callers with implicit pipelining (REDIS_PIPELINE_WINDOW). Bounded: every cell
// runs BENCH_SECONDS after a short warm-up (6 cells + 2, about a minute with the defaults).
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { credentials } from '@grpc/grpc-js';
import { Redis } from 'ioredis';
import { RLS_PROTO, RLS_SERVICE } from '../services/ratelimit/adapters/grpc-handlers.ts';
import { loadPackageDefinition, lookupService } from '../shared/grpc.ts';
import { int, readSettings, str } from '../shared/settings.ts';
import {
  createRuntimeFolder,
  type RatelimitServer,
  startRatelimitServer,
} from '../test/helpers/ratelimit-server.ts';

const settings = readSettings(
  {
    redisUrl: str('REDIS_URL', '127.0.0.1:6379', 'host:port'),
    seconds: int('BENCH_SECONDS', 5, { min: 1, max: 30 }),
    warmupMs: int('BENCH_WARMUP_MS', 1_000, { min: 0, max: 10_000 }),
  },
  process.env,
);

const CONFIG = `domain: bench
descriptors:
  - key: user
    rate_limit:
      unit: minute
      requests_per_unit: 1000000000
`;

type Decide = (caller: number) => Promise<void>;

interface Cell {
  transport: string;
  callers: number;
  decisions: number;
  errors: number;
  seconds: number;
  p50: number;
  p99: number;
  roundTrips: number;
  commands: number;
  /** CPU time per decision, microseconds: the service's, and this load generator's. */
  serverCpuUs: number;
  clientCpuUs: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function roundTrips(server: RatelimitServer): Promise<number> {
  const match = /^ratelimit_redis_round_trips\{[^}]*\} (\d+)/m.exec(await server.debug('/metrics'));
  return Number(match?.[1] ?? 0);
}

async function serverCpuSeconds(server: RatelimitServer): Promise<number> {
  const match = /^process_cpu_seconds_total\{[^}]*\} ([\d.e+-]+)/m.exec(await server.debug('/metrics'));
  return Number(match?.[1] ?? 0);
}

async function redisCommands(redis: Redis): Promise<number> {
  const info = await redis.info('stats');
  return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? 0);
}

/** `callers` loops, each one decision at a time, for `ms`; latencies of every decision. */
async function drive(
  decide: Decide,
  callers: number,
  ms: number,
): Promise<{ latencies: Float64Array; errors: number }> {
  const latencies: number[] = [];
  let errors = 0;
  const until = performance.now() + ms;
  await Promise.all(
    Array.from({ length: callers }, async (_, caller) => {
      while (performance.now() < until) {
        const started = performance.now();
        try {
          await decide(caller);
          latencies.push(performance.now() - started);
        } catch {
          errors++;
        }
      }
    }),
  );
  return { latencies: Float64Array.from(latencies).sort(), errors };
}

function grpcDecider(server: RatelimitServer): { decide: Decide; close(): void } {
  const Service = lookupService(loadPackageDefinition([RLS_PROTO]), RLS_SERVICE);
  const client = new Service(server.grpcAddress, credentials.createInsecure()) as unknown as {
    ShouldRateLimit(r: unknown, cb: (e: Error | null, v: { overall_code: string }) => void): void;
    close(): void;
  };
  const requests = Array.from({ length: 100 }, (_, caller) => ({
    domain: 'bench',
    descriptors: [{ entries: [{ key: 'user', value: `caller-${caller}` }] }],
    hits_addend: 1,
  }));
  return {
    decide: (caller) =>
      new Promise((resolve, reject) =>
        client.ShouldRateLimit(requests[caller], (error, reply) =>
          error
            ? reject(error)
            : reply.overall_code === 'OK'
              ? resolve()
              : reject(new Error(reply.overall_code)),
        ),
      ),
    close: () => client.close(),
  };
}

function jsonDecider(server: RatelimitServer): { decide: Decide; close(): void } {
  const agent = new Agent({ keepAlive: true, maxSockets: 100 });
  const bodies = Array.from({ length: 100 }, (_, caller) =>
    JSON.stringify({
      domain: 'bench',
      descriptors: [{ entries: [{ key: 'user', value: `caller-${caller}` }] }],
    }),
  );
  return {
    decide: (caller) =>
      new Promise((resolve, reject) => {
        const req = request(
          {
            agent,
            host: '127.0.0.1',
            port: server.httpPort,
            path: '/json',
            method: 'POST',
            headers: { 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            res.on('end', () =>
              res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
            );
          },
        );
        req.on('error', reject);
        req.end(bodies[caller]);
      }),
    close: () => agent.destroy(),
  };
}

async function runCell(
  server: RatelimitServer,
  redis: Redis,
  transport: string,
  decider: { decide: Decide },
  callers: number,
): Promise<Cell> {
  await drive(decider.decide, callers, settings.warmupMs);
  const [tripsBefore, commandsBefore, cpuBefore] = [
    await roundTrips(server),
    await redisCommands(redis),
    await serverCpuSeconds(server),
  ];
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  const { latencies, errors } = await drive(decider.decide, callers, settings.seconds * 1000);
  const seconds = (performance.now() - started) / 1000;
  const client = process.cpuUsage(clientBefore);
  const [tripsAfter, commandsAfter, cpuAfter] = [
    await roundTrips(server),
    await redisCommands(redis),
    await serverCpuSeconds(server),
  ];
  return {
    transport,
    callers,
    decisions: latencies.length,
    errors,
    seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    // INFO itself and the /metrics scrape add a command or two: negligible over thousands.
    roundTrips: (tripsAfter - tripsBefore) / latencies.length,
    commands: (commandsAfter - commandsBefore) / latencies.length,
    serverCpuUs: ((cpuAfter - cpuBefore) * 1e6) / latencies.length,
    clientCpuUs: (client.user + client.system) / latencies.length,
  };
}

function print(cell: Cell): void {
  const rate = Math.round(cell.decisions / cell.seconds);
  process.stdout.write(
    `${cell.transport.padEnd(26)} ${String(cell.callers).padStart(7)} ${String(rate).padStart(12)} ` +
      `${cell.p50.toFixed(3).padStart(9)} ${cell.p99.toFixed(3).padStart(9)} ` +
      `${cell.roundTrips.toFixed(3).padStart(11)} ${cell.commands.toFixed(2).padStart(9)} ${cell.serverCpuUs.toFixed(0).padStart(10)} ${cell.clientCpuUs.toFixed(0).padStart(10)} ${String(cell.errors).padStart(6)}\n`,
  );
}

const runtime = await createRuntimeFolder({ 'bench.yaml': CONFIG });
const [host, port] = settings.redisUrl.split(':');
const redis = new Redis({ host, port: Number(port) });
const common = {
  REDIS_URL: settings.redisUrl,
  RUNTIME_ROOT: runtime.root,
  RUNTIME_SUBDIRECTORY: runtime.subdirectory,
  REDIS_POOL_SIZE: '4',
  CACHE_KEY_PREFIX: `bench-${process.pid}:`,
};
process.stdout.write(
  `rate limit benchmark: ${settings.seconds} s per cell after ${settings.warmupMs} ms warm-up; service and load generator on this machine\n\n`,
);
process.stdout.write(
  `${'transport'.padEnd(26)} ${'callers'.padStart(7)} ${'decisions/s'.padStart(12)} ${'p50 ms'.padStart(9)} ${'p99 ms'.padStart(9)} ${'round trips'.padStart(11)} ${'commands'.padStart(9)} ${'server µs'.padStart(10)} ${'client µs'.padStart(10)} ${'errors'.padStart(6)}\n`,
);
try {
  const server = await startRatelimitServer(common);
  try {
    for (const [transport, make] of [
      ['gRPC', grpcDecider],
      ['/json', jsonDecider],
    ] as const) {
      const decider = make(server);
      for (const callers of [1, 10, 100]) print(await runCell(server, redis, transport, decider, callers));
      decider.close();
    }
  } finally {
    await server.stop();
  }
  await sleep(200);
  const pipelined = await startRatelimitServer({ ...common, REDIS_PIPELINE_WINDOW: '500us' });
  try {
    for (const [transport, make] of [
      ['gRPC, pipeline window', grpcDecider],
      ['/json, pipeline window', jsonDecider],
    ] as const) {
      const decider = make(pipelined);
      print(await runCell(pipelined, redis, transport, decider, 100));
      decider.close();
    }
  } finally {
    await pipelined.stop();
  }
  process.stdout.write(
    '\nround trips: pipelines sent to Redis per decision (each pipeline is one INCRBY + EXPIRE per key);\ncommands: Redis commands processed per decision (INFO total_commands_processed);\nserver µs / client µs: CPU time per decision of the service and of this load generator (user + system).\n',
  );
} finally {
  redis.disconnect();
  await runtime.cleanup();
}
