// The limit algorithms side by side (issue 42): for fixed_window (the reference's limit),
// unit_multiplier, sliding_window, token_bucket and a descriptor with three limits (rate_limits),
// the CPU time of our whole instance per decision, the Redis commands per decision (sent by the
// service, and executed by Redis, scripts' own calls included) and Redis's CPU per decision, beside
// envoyproxy/ratelimit (Go, fixed windows only) on the same dedicated redis-server with the same
// neutral gRPC load generator (ghz). Every cell starts its service afresh on a configuration of
// that algorithm, with a limit no caller reaches (every decision counts and answers OK).
// BENCH_SECONDS per cell after BENCH_WARMUP_SECONDS; BENCH_ROUNDS rounds give medians. Then the
// decision path alone, in this process on the lean Redis connection (no transport, no other
// process): the CPU an algorithm adds, which a loaded machine blurs less than a whole instance's.
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { BENCH_BUILD, build } from '../scripts/build.ts';
import { int, readSettings, str } from '../shared/settings.ts';
import { startRedis } from '../test/helpers/counter-topologies.ts';
import { connectRedisStore, inProcessLimiter, redisSettings } from '../test/helpers/ratelimit-in-process.ts';
import { createRuntimeFolder, type RuntimeFolder } from '../test/helpers/ratelimit-runtime.ts';
import { ghzGenerator } from './ratelimit/ghz-hey.ts';
import { type CellFigures, ensureTool, measureCell, startService } from './ratelimit/side-by-side.ts';

const settings = readSettings(
  {
    seconds: int('BENCH_SECONDS', 3, { min: 1, max: 30 }),
    warmupSeconds: int('BENCH_WARMUP_SECONDS', 1, { min: 0, max: 10 }),
    rounds: int('BENCH_ROUNDS', 1, { min: 1, max: 9 }),
    callers: str('BENCH_CALLERS', '10,100', 'comma-separated caller counts'),
    workers: int('BENCH_WORKERS', availableParallelism(), { min: 1, max: 64 }),
    maxConnections: int('BENCH_CONNECTIONS', 10, { min: 1, max: 100 }),
  },
  process.env,
);

const HUGE = 1_000_000_000;
const limitOf = (rest: string) => `{unit: minute, requests_per_unit: ${HUGE}${rest}}`;

/** The variants: a name and the `user` descriptor's limit lines (ghz asks for user=u<worker>). */
const VARIANTS: ReadonlyArray<readonly [string, string]> = [
  ['fixed_window', `    rate_limit: ${limitOf('')}`],
  ['fixed_window ×5', `    rate_limit: ${limitOf(', unit_multiplier: 5')}`],
  ['sliding_window', `    rate_limit: ${limitOf(', algorithm: sliding_window')}`],
  ['token_bucket', `    rate_limit: ${limitOf(`, algorithm: token_bucket, burst: ${HUGE}`)}`],
  [
    'rate_limits (3)',
    [
      '    rate_limits:',
      `      - {unit: second, requests_per_unit: ${HUGE}}`,
      `      - ${limitOf(', unit_multiplier: 5, algorithm: sliding_window')}`,
      `      - {unit: hour, requests_per_unit: ${HUGE}, algorithm: token_bucket, burst: 1000000}`,
    ].join('\n'),
  ],
];

const configOf = (limit: string) => `domain: bench\ndescriptors:\n  - key: user\n${limit}\n`;

interface RedisFigures {
  /** Commands the service sent (INCRBY, EXPIRE, EVALSHA, EVAL). */
  readonly sent: number;
  /** Commands Redis executed, the scripts' own calls included. */
  readonly executed: number;
  /** Redis's user + system CPU seconds. */
  readonly cpu: number;
}

async function redisFigures(redis: Redis): Promise<RedisFigures> {
  const stats = await redis.info('commandstats');
  const calls = (name: string) =>
    Number(new RegExp(`^cmdstat_${name}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
  const info = await redis.info();
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return {
    sent: calls('incrby') + calls('expire') + calls('evalsha') + calls('eval'),
    // INFO, and this function's two calls, are not the service's.
    executed: field('total_commands_processed'),
    cpu: field('used_cpu_user') + field('used_cpu_sys'),
  };
}

interface Cell extends CellFigures {
  readonly sentPerDecision: number;
  readonly executedPerDecision: number;
  readonly redisCpuUs: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const out = (line: string): void => void process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const reference = await ensureTool('service_cmd', 'github.com/envoyproxy/ratelimit/src/service_cmd@latest');
  const ghz = await ensureTool('ghz', 'github.com/bojand/ghz/cmd/ghz@latest');
  build(BENCH_BUILD);
  const redisServer = await startRedis();
  const redis = new Redis({ host: '127.0.0.1', port: redisServer.port });
  const generate = ghzGenerator(ghz, settings.maxConnections);
  const cells = new Map<string, Cell[]>();
  const runtimes: RuntimeFolder[] = [];
  let alone = new Map<string, number[][]>();
  const runtimeOf = async (config: string): Promise<RuntimeFolder> => {
    const runtime = await createRuntimeFolder({ 'bench.yaml': config });
    runtimes.push(runtime);
    return runtime;
  };
  try {
    const sides: Array<[string, RuntimeFolder, 'ours' | 'reference']> = [
      ['envoyproxy/ratelimit fixed_window', await runtimeOf(configOf(VARIANTS[0]![1])), 'reference'],
    ];
    for (const [name, limit] of VARIANTS) sides.push([name, await runtimeOf(configOf(limit)), 'ours']);
    for (let round = 1; round <= settings.rounds; round++) {
      for (const callers of settings.callers.split(',').map(Number)) {
        for (const [name, runtime, side] of sides) {
          const env = {
            REDIS_URL: `127.0.0.1:${redisServer.port}`,
            RUNTIME_ROOT: runtime.root,
            RUNTIME_SUBDIRECTORY: runtime.subdirectory,
            RUNTIME_APPDIRECTORY: 'config',
            CACHE_KEY_PREFIX: `r${round}c${callers}:`,
          };
          const service =
            side === 'reference'
              ? await startService('reference', reference, [], env)
              : await startService(
                  'ours',
                  process.execPath,
                  [join(BENCH_BUILD, 'services/ratelimit/main.js')],
                  {
                    ...env,
                    RATELIMIT_WORKERS: String(settings.workers),
                    CONFIG_KAFKA_PUBLISH: 'false',
                  },
                );
          try {
            if (settings.warmupSeconds > 0) await generate(service, callers, settings.warmupSeconds);
            const before = await redisFigures(redis);
            const figures = await measureCell(service, generate, callers, { ...settings, warmupSeconds: 0 });
            const after = await redisFigures(redis);
            const decisions = Math.max(1, figures.decisions);
            const cell: Cell = {
              ...figures,
              sentPerDecision: (after.sent - before.sent) / decisions,
              executedPerDecision: (after.executed - before.executed - 2) / decisions,
              redisCpuUs: ((after.cpu - before.cpu) * 1e6) / decisions,
            };
            const key = `${name}|${callers}`;
            cells.set(key, [...(cells.get(key) ?? []), cell]);
            process.stderr.write(
              `round ${round}: ${name} at ${callers} callers: ${Math.round(figures.perSecond)}/s\n`,
            );
          } finally {
            await service.stop();
          }
        }
      }
    }
    alone = await decisionPathAlone(redisServer.port, redis);
  } finally {
    redis.disconnect();
    await redisServer.stop();
    for (const runtime of runtimes) await runtime.cleanup();
  }
  report(cells);
  reportAlone(alone);
}

/** Per variant: CPU µs per decision of this process and Redis commands per decision, 100 decisions in flight. */
async function decisionPathAlone(port: number, redis: Redis): Promise<Map<string, number[][]>> {
  const store = await connectRedisStore({ main: redisSettings({ url: `127.0.0.1:${port}`, poolSize: 4 }) });
  const figures = new Map<string, number[][]>();
  try {
    for (let round = 1; round <= settings.rounds; round++)
      for (const [name, limit] of VARIANTS) {
        const limiter = inProcessLimiter({ store, config: configOf(limit), prefix: `alone${round}:` });
        const drive = async (ms: number): Promise<number> => {
          let decisions = 0;
          const until = performance.now() + ms;
          await Promise.all(
            Array.from({ length: 100 }, async (_, caller) => {
              while (performance.now() < until) {
                await limiter.ask([[['user', `u${caller}`]]]);
                decisions++;
              }
            }),
          );
          return decisions;
        };
        await drive(settings.warmupSeconds * 1000);
        const before = await redisFigures(redis);
        const cpu = process.cpuUsage();
        const decisions = await drive(settings.seconds * 1000);
        const used = process.cpuUsage(cpu);
        const after = await redisFigures(redis);
        const row = [(used.user + used.system) / decisions, (after.sent - before.sent) / decisions];
        figures.set(name, [...(figures.get(name) ?? []), row]);
      }
  } finally {
    await store.close();
  }
  return figures;
}

function reportAlone(figures: Map<string, number[][]>): void {
  out('\ndecision path alone (this process, lean Redis connection, 100 decisions in flight, no transport):');
  out('| limit | CPU µs/decision | × fixed_window | Redis commands/decision sent |');
  out('|---|---|---|---|');
  const cpuOf = (name: string) => median((figures.get(name) ?? []).map((row) => row[0]!));
  for (const [name, rows] of figures) {
    const cpu = cpuOf(name);
    out(
      `| ${name} | ${cpu.toFixed(1)} | ${(cpu / cpuOf('fixed_window')).toFixed(2)}× | ${median(rows.map((row) => row[1]!)).toFixed(2)} |`,
    );
  }
}

function report(cells: Map<string, Cell[]>): void {
  out(
    `limit algorithms, gRPC (ghz, --connections min(callers, ${settings.maxConnections})): ${availableParallelism()} cores, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(
        ' ',
      )}; ours ${settings.workers} decision units; medians of ${settings.rounds} round(s), ${settings.seconds} s per cell after ${settings.warmupSeconds} s warm-up; one dedicated redis-server`,
  );
  out(
    '| limit | callers | decisions/s | p99 ms | CPU µs/decision, instance | × our fixed_window | × envoyproxy/ratelimit | Redis commands/decision sent / executed | Redis CPU µs/decision |',
  );
  out('|---|---|---|---|---|---|---|---|---|');
  const m = (list: Cell[], pick: (c: Cell) => number) => median(list.map(pick));
  for (const [key, list] of cells) {
    const [name, callers] = key.split('|') as [string, string];
    const cpu = m(list, (c) => c.cpuUsPerDecision);
    const ours = m(cells.get(`fixed_window|${callers}`) ?? list, (c) => c.cpuUsPerDecision);
    const ref = m(
      cells.get(`envoyproxy/ratelimit fixed_window|${callers}`) ?? list,
      (c) => c.cpuUsPerDecision,
    );
    out(
      `| ${name} | ${callers} | ${Math.round(m(list, (c) => c.perSecond))} | ${m(list, (c) => c.p99Ms).toFixed(2)} | ${cpu.toFixed(1)} | ${(cpu / ours).toFixed(2)}× | ${(cpu / ref).toFixed(2)}× | ${m(list, (c) => c.sentPerDecision).toFixed(2)} / ${m(list, (c) => c.executedPerDecision).toFixed(2)} | ${m(list, (c) => c.redisCpuUs).toFixed(1)} |`,
    );
  }
  out(
    'sent: INCRBY, EXPIRE, EVALSHA, EVAL per decision (INFO commandstats); executed: total_commands_processed, the commands scripts call included.',
  );
}

await main();
