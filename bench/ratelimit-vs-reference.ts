// Side by side with envoyproxy/ratelimit (Go, built from its source with `go install`): both on one
// dedicated redis-server, one configuration, the same neutral generators (ghz for gRPC, hey for
// /json), alternated cell by cell. Prints, for gRPC and /json at 1, 10 and 100 callers:
// decisions/s, p50/p99, server CPU µs per decision and RSS (ours per decision process: the largest,
// and the primary), each with the ratio ours/reference.
// Tools are built into the gitignored .bench-tools/ when missing (Go module proxy).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { BENCH_BUILD, build } from '../scripts/build.ts';
import { int, readSettings, str } from '../shared/settings.ts';
import { startRedis } from '../test/helpers/counter-topologies.ts';
import { freePort } from '../test/helpers/experiment-server.ts';
import { createRuntimeFolder } from '../test/helpers/ratelimit-runtime.ts';
import { waitFor } from '../test/helpers/wait-for.ts';
import { BENCH_CONFIG } from './ratelimit/bench-config.ts';
import { type Generator, ghzGenerator, heyGenerator, type LoadFigures } from './ratelimit/ghz-hey.ts';
import { CLK_TCK, cpuTicks, processTree, rssMb } from './ratelimit/process-stats.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
const TOOLS = join(ROOT, '.bench-tools');

const settings = readSettings(
  {
    seconds: int('BENCH_SECONDS', 3, { min: 1, max: 30 }),
    warmupSeconds: int('BENCH_WARMUP_SECONDS', 1, { min: 0, max: 10 }),
    callers: str('BENCH_CALLERS', '1,10,100', 'comma-separated caller counts'),
    only: str('BENCH_ONLY', '', 'grpc, json, or empty for both'),
    workers: int('BENCH_WORKERS', availableParallelism(), { min: 1, max: 64 }),
    maxConnections: int('BENCH_CONNECTIONS', 10, { min: 1, max: 100 }),
    cpuProfDir: str('BENCH_CPU_PROF_DIR', '', "a folder for our decision processes' --cpu-prof profiles"),
    workerNodeOptions: str('BENCH_WORKER_NODE_OPTIONS', '', 'RATELIMIT_WORKER_NODE_OPTIONS for ours'),
  },
  process.env,
);

async function ensureTool(binary: string, module: string): Promise<string> {
  const path = join(TOOLS, binary);
  if (existsSync(path)) return path;
  process.stderr.write(`building ${binary}: go install ${module} into ${TOOLS}\n`);
  await run('go', ['install', module], { env: { ...process.env, GOBIN: TOOLS }, maxBuffer: 1 << 24 });
  return path;
}

interface Service {
  readonly name: 'ours' | 'reference';
  readonly child: ChildProcess;
  readonly grpc: string;
  readonly http: number;
  stop(): Promise<void>;
}

async function startService(
  name: Service['name'],
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<Service> {
  const [http, grpc, debug] = [await freePort(), await freePort(), await freePort()];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      GRPC_HOST: '127.0.0.1',
      DEBUG_HOST: '127.0.0.1',
      PORT: String(http),
      GRPC_PORT: String(grpc),
      DEBUG_PORT: String(debug),
      USE_STATSD: 'false',
      LOG_LEVEL: 'warn',
      REDIS_SOCKET_TYPE: 'tcp',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-4000);
  });
  const reap = (): void => void child.kill('SIGKILL');
  process.once('exit', reap);
  await waitFor(`${name} to be healthy`, async () => {
    if (child.exitCode !== null) throw new Error(`${name} exited: ${stderr}`);
    const res = await fetch(`http://127.0.0.1:${http}/healthcheck`).catch(() => undefined);
    return res?.status === 200;
  });
  return {
    name,
    child,
    grpc: `127.0.0.1:${grpc}`,
    http,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      process.off('exit', reap);
    },
  };
}

interface Figures extends LoadFigures {
  cpuUsPerDecision: number;
  /** Largest process (a decision process for ours), and the whole tree. */
  rssMaxMb: number;
  rssTotalMb: number;
}

async function measure(service: Service, generate: Generator, callers: number): Promise<Figures> {
  if (settings.warmupSeconds > 0) await generate(service, callers, settings.warmupSeconds);
  const pids = await processTree(service.child.pid!);
  const before = await cpuTicks(pids);
  let rssMaxMb = 0;
  let rssTotalMb = 0;
  let sampling = true;
  const sampler = (async () => {
    await sleep(settings.seconds * 500);
    const deciders = pids.length > 1 ? pids.slice(1) : pids;
    while (sampling) {
      const each = await Promise.all(pids.map(rssMb));
      rssMaxMb = Math.max(rssMaxMb, ...(await Promise.all(deciders.map(rssMb))));
      rssTotalMb = Math.max(
        rssTotalMb,
        each.reduce((a, b) => a + b, 0),
      );
      await sleep(250);
    }
  })();
  const figures = await generate(service, callers, settings.seconds);
  sampling = false;
  await sampler;
  const cpuUs = ((await cpuTicks(pids)) - before) * (1e6 / CLK_TCK);
  return { ...figures, cpuUsPerDecision: cpuUs / Math.max(1, figures.decisions), rssMaxMb, rssTotalMb };
}

const fmt = (n: number, digits = 0): string => n.toFixed(digits);
const ratio = (a: number, b: number): string => (b > 0 ? `${(a / b).toFixed(2)}×` : '-');

async function main(): Promise<void> {
  const reference = await ensureTool('service_cmd', 'github.com/envoyproxy/ratelimit/src/service_cmd@latest');
  const ghz = await ensureTool('ghz', 'github.com/bojand/ghz/cmd/ghz@latest');
  const hey = await ensureTool('hey', 'github.com/rakyll/hey@latest');
  build(BENCH_BUILD);
  const redis = await startRedis();
  const runtime = await createRuntimeFolder({ 'bench.yaml': BENCH_CONFIG });
  const common = {
    REDIS_URL: `127.0.0.1:${redis.port}`,
    RUNTIME_ROOT: runtime.root,
    RUNTIME_SUBDIRECTORY: runtime.subdirectory,
    RUNTIME_APPDIRECTORY: 'config',
  };
  const services: Service[] = [];
  try {
    const ours = await startService(
      'ours',
      process.execPath,
      [
        ...(settings.cpuProfDir === '' ? [] : ['--cpu-prof', `--cpu-prof-dir=${settings.cpuProfDir}`]),
        // What `npm start` runs: the build.
        join(BENCH_BUILD, 'services/ratelimit/main.js'),
      ],
      {
        ...common,
        RATELIMIT_WORKERS: String(settings.workers),
        // Unset: the service's default options for its decision processes.
        ...(settings.workerNodeOptions === '' && settings.cpuProfDir === ''
          ? {}
          : {
              RATELIMIT_WORKER_NODE_OPTIONS: [
                settings.workerNodeOptions === ''
                  ? '--max-semi-space-size=8 --heap-growing-percent=20'
                  : settings.workerNodeOptions,
                settings.cpuProfDir === '' ? '' : `--cpu-prof --cpu-prof-dir=${settings.cpuProfDir}`,
              ].join(' '),
            }),
        BENCH_CONFIG_KAFKA_PUBLISH: 'false',
      },
    );
    services.push(ours);
    const ref = await startService('reference', reference, [], common);
    services.push(ref);
    await sleep(1_000);
    // Ours: the primary first, then the decision processes (the figure per process is the largest one's).
    const idle = async (s: Service) => {
      const each = await Promise.all((await processTree(s.child.pid!)).map(rssMb));
      const deciders = each.length > 1 ? each.slice(1) : each;
      return {
        max: Math.max(...deciders),
        primary: each[0]!,
        total: each.reduce((a, b) => a + b, 0),
        processes: each.length,
      };
    };
    const [oursIdle, refIdle] = [await idle(ours), await idle(ref)];
    const out = (line: string) => process.stdout.write(`${line}\n`);
    out(
      `ratelimit vs envoyproxy/ratelimit: ${availableParallelism()} cores, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(
          ' ',
        )}; ours ${settings.workers} decision processes; ${settings.seconds} s per cell after ${settings.warmupSeconds} s warm-up; ghz --connections min(callers, ${settings.maxConnections}); one dedicated redis-server`,
    );
    out(
      `RSS idle: ours ${fmt(oursIdle.max)} MB per decision process (largest of ${oursIdle.processes - 1}; primary ${fmt(oursIdle.primary)} MB; ${fmt(oursIdle.total)} MB all) | reference ${fmt(refIdle.max)} MB`,
    );
    out(
      '| transport | callers | decisions/s ours / ref (ratio) | p50 ms ours / ref | p99 ms ours / ref (ratio) | CPU µs/decision ours / ref (ratio) | RSS MB ours process (all) / ref | errors |',
    );
    out('|---|---|---|---|---|---|---|---|');
    const transports: Array<[string, Generator]> = [];
    if (settings.only !== 'json') transports.push(['gRPC', ghzGenerator(ghz, settings.maxConnections)]);
    if (settings.only !== 'grpc') transports.push(['/json', heyGenerator(hey)]);
    for (const [transport, generate] of transports) {
      for (const callers of settings.callers.split(',').map(Number)) {
        const a = await measure(ours, generate, callers);
        const b = await measure(ref, generate, callers);
        out(
          `| ${transport} | ${callers} | ${fmt(a.perSecond)} / ${fmt(b.perSecond)} (${ratio(a.perSecond, b.perSecond)}) | ${fmt(a.p50Ms, 2)} / ${fmt(b.p50Ms, 2)} | ${fmt(a.p99Ms, 2)} / ${fmt(b.p99Ms, 2)} (${ratio(a.p99Ms, b.p99Ms)}) | ${fmt(a.cpuUsPerDecision)} / ${fmt(b.cpuUsPerDecision)} (${ratio(a.cpuUsPerDecision, b.cpuUsPerDecision)}) | ${fmt(a.rssMaxMb)} (${fmt(a.rssTotalMb)}) / ${fmt(b.rssMaxMb)} | ${a.errors} / ${b.errors} |`,
        );
      }
    }
  } finally {
    for (const s of services) await s.stop();
    await redis.stop();
    await runtime.cleanup();
  }
}

await main();
