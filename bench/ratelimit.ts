// Rate limit benchmark: decisions/s and latency p50/p99 over gRPC and over /json with 1, 10 and 100
// concurrent callers, against the real Redis, with the service in its own process (as deployed)
// and this process as the load generator. Also Redis round trips and commands per decision, CPU
// time per decision of the service, the generator and Redis (the figures that stay comparable on a
// shared machine), and the same at 100 callers with implicit pipelining (REDIS_PIPELINE_WINDOW).
// Last, the counter store's connection alone (lean RESP vs ioredis). Bounded: every cell runs
// BENCH_SECONDS after a short warm-up (8 cells and the store, about a minute).
import { availableParallelism, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { int, readSettings, str } from '../shared/settings.ts';
import { createRuntimeFolder } from '../test/helpers/ratelimit-runtime.ts';
import { type RatelimitServer, startRatelimitServer } from '../test/helpers/ratelimit-server.ts';
import { BENCH_CONFIG } from './ratelimit/bench-config.ts';
import {
  type Decide,
  grpcLoadClient,
  jsonLoadClient,
  type LoadClient,
  rawGrpcLoadClient,
} from './ratelimit/load-clients.ts';
import { measureStore } from './ratelimit/store-cells.ts';

const settings = readSettings(
  {
    redisUrl: str('REDIS_URL', '127.0.0.1:6379', 'host:port'),
    seconds: int('BENCH_SECONDS', 5, { min: 1, max: 30 }),
    warmupMs: int('BENCH_WARMUP_MS', 1_000, { min: 0, max: 10_000 }),
    only: str('BENCH_ONLY', '', 'grpc, json, or empty for both'),
    callers: str('BENCH_CALLERS', '1,10,100', 'comma-separated caller counts'),
    grpcChannels: int('BENCH_GRPC_CHANNELS', 4, { min: 1, max: 100 }),
    grpcClient: str(
      'BENCH_GRPC_CLIENT',
      'raw',
      'raw (minimal HTTP/2, as cheap as a C client) or http2 (node:http2)',
    ),
    cpuProfDir: str('BENCH_CPU_PROF_DIR', '', "a folder for the service's --cpu-prof profiles"),
    serverNodeOptions: str(
      'BENCH_SERVER_NODE_OPTIONS',
      '',
      'more node options for the service, e.g. V8 flags',
    ),
  },
  process.env,
);

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
  reads: number;
  /** CPU time per decision, microseconds: the service's, and this load generator's. */
  serverCpuUs: number;
  clientCpuUs: number;
  redisCpuUs: number;
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

/** Commands processed and CPU seconds used by Redis so far. */
async function redisCounters(redis: Redis): Promise<{ commands: number; reads: number; cpu: number }> {
  const info = await redis.info();
  const field = (name: string): number => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return {
    commands: field('total_commands_processed'),
    reads: field('total_reads_processed'),
    cpu: field('used_cpu_user') + field('used_cpu_sys'),
  };
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

async function runCell(
  server: RatelimitServer,
  redis: Redis,
  transport: string,
  decider: LoadClient,
  callers: number,
): Promise<Cell> {
  await drive(decider.decide, callers, settings.warmupMs);
  const [tripsBefore, redisBefore, cpuBefore] = [
    await roundTrips(server),
    await redisCounters(redis),
    await serverCpuSeconds(server),
  ];
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  const { latencies, errors } = await drive(decider.decide, callers, settings.seconds * 1000);
  const seconds = (performance.now() - started) / 1000;
  const client = process.cpuUsage(clientBefore);
  const [tripsAfter, redisAfter, cpuAfter] = [
    await roundTrips(server),
    await redisCounters(redis),
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
    commands: (redisAfter.commands - redisBefore.commands) / latencies.length,
    reads: (redisAfter.reads - redisBefore.reads) / latencies.length,
    redisCpuUs: ((redisAfter.cpu - redisBefore.cpu) * 1e6) / latencies.length,
    serverCpuUs: ((cpuAfter - cpuBefore) * 1e6) / latencies.length,
    clientCpuUs: (client.user + client.system) / latencies.length,
  };
}

const CORES = availableParallelism();
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

function print(cell: Cell): void {
  const rate = Math.round(cell.decisions / cell.seconds);
  // What the machine could do if the three processes had both cores to themselves.
  const ceiling = Math.round((CORES * 1e6) / (cell.serverCpuUs + cell.clientCpuUs + cell.redisCpuUs));
  const columns = [
    [cell.transport, -24],
    [cell.callers, 7],
    [rate, 11],
    [cell.p50.toFixed(3), 8],
    [cell.p99.toFixed(3), 8],
    [cell.roundTrips.toFixed(3), 11],
    [cell.commands.toFixed(2), 8],
    [cell.reads.toFixed(3), 8],
    [cell.serverCpuUs.toFixed(1), 9],
    [cell.clientCpuUs.toFixed(1), 9],
    [cell.redisCpuUs.toFixed(1), 8],
    [ceiling, 11],
    [cell.errors, 6],
    [load(), 15],
  ] as const;
  process.stdout.write(`${row(columns)}\n`);
}

function row(columns: ReadonlyArray<readonly [string | number, number]>): string {
  return columns
    .map(([value, width]) => (width < 0 ? String(value).padEnd(-width) : String(value).padStart(width)))
    .join(' ');
}

const runtime = await createRuntimeFolder({ 'bench.yaml': BENCH_CONFIG });
const [host, port] = settings.redisUrl.split(':');
const redis = new Redis({ host, port: Number(port) });
const common = {
  REDIS_URL: settings.redisUrl,
  RUNTIME_ROOT: runtime.root,
  RUNTIME_SUBDIRECTORY: runtime.subdirectory,
  REDIS_POOL_SIZE: '4',
  CACHE_KEY_PREFIX: `bench-${process.pid}:`,
  NODE_OPTIONS: [
    ...(settings.cpuProfDir === '' ? [] : ['--cpu-prof', `--cpu-prof-dir=${settings.cpuProfDir}`]),
    settings.serverNodeOptions,
  ].join(' '),
};
const callerCounts = settings.callers.split(',').map(Number);
type MakeClient = (server: RatelimitServer, callers: number) => LoadClient;
const grpc: MakeClient = (server, callers) =>
  settings.grpcClient === 'http2'
    ? grpcLoadClient(server.grpcAddress, callers, Math.min(callers, settings.grpcChannels))
    : rawGrpcLoadClient('127.0.0.1', server.grpcPort, callers, Math.min(callers, settings.grpcChannels));
const json: MakeClient = (server, callers) => jsonLoadClient('127.0.0.1', server.httpPort, callers);
const selected = (
  [
    ['gRPC', grpc],
    ['/json', json],
  ] as const
).filter(([name]) => settings.only === '' || name.toLowerCase().includes(settings.only));

async function runCells(
  server: RatelimitServer,
  cells: ReadonlyArray<readonly [string, MakeClient, number]>,
): Promise<void> {
  for (const [transport, make, callers] of cells) {
    const client = make(server, callers);
    try {
      print(await runCell(server, redis, transport, client, callers));
    } finally {
      client.close();
    }
  }
}

process.stdout.write(
  `rate limit benchmark: ${settings.seconds} s per cell after ${settings.warmupMs} ms warm-up; service, load generator and Redis on this machine (${CORES} cores); gRPC client: ${settings.grpcClient}\n\n`,
);
process.stdout.write(
  `${row([
    ['transport', -24],
    ['callers', 7],
    ['decisions/s', 11],
    ['p50 ms', 8],
    ['p99 ms', 8],
    ['round trips', 11],
    ['commands', 8],
    ['reads', 8],
    ['server µs', 9],
    ['client µs', 9],
    ['redis µs', 8],
    ['cpu ceiling', 11],
    ['errors', 6],
    ['load average', 15],
  ])}\n`,
);
try {
  const server = await startRatelimitServer(common);
  try {
    await runCells(
      server,
      selected.flatMap(([transport, make]) =>
        callerCounts.map((callers) => [transport, make, callers] as const),
      ),
    );
  } finally {
    await server.stop();
  }
  await sleep(200);
  const pipelined = await startRatelimitServer({ ...common, REDIS_PIPELINE_WINDOW: '500us' });
  try {
    await runCells(
      pipelined,
      selected.map(([transport, make]) => [`${transport}, pipeline window`, make, 100] as const),
    );
  } finally {
    await pipelined.stop();
  }
  process.stdout.write(
    `\ncounter store connection alone, in this process, 100 concurrent decisions of one INCRBY + EXPIRE pipeline each:\n`,
  );
  for (const cell of await measureStore(settings.redisUrl, common.CACHE_KEY_PREFIX, 2_000))
    process.stdout.write(
      `  ${cell.client.padEnd(10)} ${String(cell.decisionsPerSecond).padStart(8)} decisions/s ${cell.cpuUs.toFixed(1).padStart(6)} µs CPU per decision; load average ${load()}\n`,
    );
  process.stdout.write(
    [
      '',
      'round trips: pipelines sent to Redis per decision (each pipeline is one INCRBY + EXPIRE per key);',
      'commands: Redis commands processed per decision (INFO total_commands_processed);',
      'reads: socket reads Redis made per decision (INFO total_reads_processed): below 1 when the pipelines of several decisions share a write;',
      'server / client / redis µs: CPU time per decision of the service, of this load generator and of Redis (user + system);',
      `cpu ceiling: decisions/s the ${CORES} cores would give at those CPU costs if nothing else ran (the machine may be shared);`,
      'load average: 1/5/15 minutes at the end of the cell.',
      '',
    ].join('\n'),
  );
} finally {
  redis.disconnect();
  await runtime.cleanup();
}
