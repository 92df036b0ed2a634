// Side by side with envoyproxy/ratelimit (Go, built from its source with `go install`): both on one
// dedicated redis-server, one configuration, the same neutral generators (ghz for gRPC, hey for
// /json), in BENCH_ROUNDS rounds (both services started afresh each round, the order of the two
// alternating cell by cell and round by round). Prints the medians: for gRPC and /json at 1, 10 and
// 100 callers, decisions/s, p50/p99, CPU µs per decision and the largest RSS, the last two over the
// whole process tree; the idle RSS of each instance; each figure beside its goal (issue 25).
// BENCH_BASELINE names another build folder of ours (e.g. the tree before a change, built with
// scripts/build.ts): it runs as a third service in the same rounds, and a second table sets it beside ours.
// Tools are built into the gitignored .bench-tools/ when missing (Go module proxy).
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BENCH_BUILD, build } from '../scripts/build.ts';
import { int, readSettings, str } from '../shared/settings.ts';
import { startRedis } from '../test/helpers/counter-topologies.ts';
import { createRuntimeFolder } from '../test/helpers/ratelimit-runtime.ts';
import { BENCH_CONFIG } from './ratelimit/bench-config.ts';
import { type Generator, ghzGenerator, heyGenerator } from './ratelimit/ghz-hey.ts';
import {
  type CellFigures,
  ensureTool,
  measureCell,
  type Service,
  startService,
  treeRssMb,
} from './ratelimit/side-by-side.ts';

const settings = readSettings(
  {
    seconds: int('BENCH_SECONDS', 3, { min: 1, max: 30 }),
    warmupSeconds: int('BENCH_WARMUP_SECONDS', 1, { min: 0, max: 10 }),
    rounds: int('BENCH_ROUNDS', 3, { min: 1, max: 9 }),
    callers: str('BENCH_CALLERS', '1,10,100', 'comma-separated caller counts'),
    only: str('BENCH_ONLY', '', 'grpc, json, or empty for both'),
    workers: int('BENCH_WORKERS', availableParallelism(), { min: 1, max: 64 }),
    maxConnections: int('BENCH_CONNECTIONS', 10, { min: 1, max: 100 }),
    cpuProfDir: str('BENCH_CPU_PROF_DIR', '', 'a folder for --cpu-prof profiles of ours (every thread)'),
    nodeOptions: str('BENCH_NODE_OPTIONS', '', 'more node options for ours, e.g. V8 flags'),
    baseline: str('BENCH_BASELINE', '', 'another build folder of ours, measured in the same rounds'),
  },
  process.env,
);

/** The goals of issue 25, each against the reference's figure of the same cell. */
const GOALS = {
  throughputAt100: 1.5,
  cpuRatio: 0.7,
  p99Ratio: 0.8,
  idleRssMb: 96,
  loadedRssMb: 128,
} as const;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const fmt = (n: number, digits = 0): string => n.toFixed(digits);
const verdict = (met: boolean): string => (met ? 'met' : 'MISSED');
const out = (line: string): void => void process.stdout.write(`${line}\n`);

type Side = Service['name'];
type Cells = Map<string, Record<Side, CellFigures[]>>;

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
  const profiling = settings.cpuProfDir === '' ? [] : ['--cpu-prof', `--cpu-prof-dir=${settings.cpuProfDir}`];
  const startOurs = (name: 'ours' | 'baseline' = 'ours', folder = BENCH_BUILD) =>
    startService(
      name,
      process.execPath,
      [
        ...settings.nodeOptions.split(/\s+/).filter((o) => o !== ''),
        ...profiling,
        // What `npm start` runs: the build.
        join(folder, 'services/ratelimit/main.js'),
      ],
      { ...common, RATELIMIT_WORKERS: String(settings.workers), CONFIG_KAFKA_PUBLISH: 'false' },
    );
  const startReference = () => startService('reference', reference, [], common);

  const transports: Array<[string, Generator]> = [];
  if (settings.only !== 'json') transports.push(['gRPC', ghzGenerator(ghz, settings.maxConnections)]);
  if (settings.only !== 'grpc') transports.push(['/json', heyGenerator(hey)]);
  const callers = settings.callers.split(',').map(Number);
  const cells: Cells = new Map();
  const idle: Record<Side, number[]> = { ours: [], reference: [], baseline: [] };
  const running: Service[] = [];
  try {
    for (let round = 1; round <= settings.rounds; round++) {
      const services = [await startOurs(), await startReference()];
      if (settings.baseline !== '') services.push(await startOurs('baseline', settings.baseline));
      running.push(...services);
      await sleep(1_500);
      for (const service of services) idle[service.name].push(await treeRssMb(service));
      let turn = round;
      for (const [transport, generate] of transports) {
        for (const n of callers) {
          const cell = cells.get(`${transport} ${n}`) ?? { ours: [], reference: [], baseline: [] };
          cells.set(`${transport} ${n}`, cell);
          // Each cell starts with another service, so none always runs first (or last).
          const shift = turn++ % services.length;
          for (const service of [...services.slice(shift), ...services.slice(0, shift)])
            cell[service.name].push(await measureCell(service, generate, n, settings));
          process.stderr.write(`round ${round}: ${transport} ${n} callers done\n`);
        }
      }
      for (const service of running.splice(0)) await service.stop();
    }
  } finally {
    for (const service of running) await service.stop();
    await redis.stop();
    await runtime.cleanup();
  }
  report(cells, idle);
  if (settings.baseline !== '') reportBaseline(cells);
}

/** Ours beside the baseline build (and the reference), medians of the same rounds. */
function reportBaseline(cells: Cells): void {
  out(`\nours beside the baseline build (${settings.baseline}), same rounds:`);
  out(
    '| transport | callers | decisions/s ours / baseline / ref | p99 ms ours / baseline / ref | CPU µs/decision ours / baseline / ref | CPU ours ÷ baseline | CPU ours ÷ ref, baseline ÷ ref |',
  );
  out('|---|---|---|---|---|---|---|');
  for (const [name, cell] of cells) {
    const [transport, n] = name.split(' ') as [string, string];
    const three = (pick: (f: CellFigures) => number) =>
      (['ours', 'baseline', 'reference'] as const).map((side) => median(cell[side].map(pick)));
    const rps = three((f) => f.perSecond);
    const p99 = three((f) => f.p99Ms);
    const cpu = three((f) => f.cpuUsPerDecision);
    out(
      `| ${transport} | ${n} | ${rps.map((v) => fmt(v)).join(' / ')} | ${p99.map((v) => fmt(v, 2)).join(' / ')} | ${cpu.map((v) => fmt(v)).join(' / ')} | ${fmt(cpu[0]! / cpu[1]!, 2)}× | ${fmt(cpu[0]! / cpu[2]!, 2)}×, ${fmt(cpu[1]! / cpu[2]!, 2)}× |`,
    );
  }
}

function report(cells: Cells, idle: Record<Side, number[]>): void {
  out(
    `ratelimit vs envoyproxy/ratelimit: ${availableParallelism()} cores, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(
        ' ',
      )}; ours ${settings.workers} decision units (one process); medians of ${settings.rounds} rounds, ${settings.seconds} s per cell after ${settings.warmupSeconds} s warm-up; ghz --connections min(callers, ${settings.maxConnections}); one dedicated redis-server; CPU and RSS over each service's whole process tree`,
  );
  const idleOurs = median(idle.ours);
  out(
    `RSS idle, whole instance: ours ${fmt(idleOurs)} MB | reference ${fmt(median(idle.reference))} MB | goal ours ≤ ${GOALS.idleRssMb} MB: ${verdict(idleOurs <= GOALS.idleRssMb)}`,
  );
  out(
    '| transport | callers | decisions/s ours / ref (ratio) | p50 ms ours / ref | p99 ms ours / ref (ratio) | CPU µs/decision ours / ref (ratio) | RSS MB under load ours / ref | errors ours / ref |',
  );
  out('|---|---|---|---|---|---|---|---|');
  const verdicts: string[] = [];
  let loadedOurs = 0;
  for (const [name, cell] of cells) {
    const [transport, n] = name.split(' ') as [string, string];
    const m = (side: 'ours' | 'reference', pick: (f: CellFigures) => number) => median(cell[side].map(pick));
    const rps = [m('ours', (f) => f.perSecond), m('reference', (f) => f.perSecond)];
    const p50 = [m('ours', (f) => f.p50Ms), m('reference', (f) => f.p50Ms)];
    const p99 = [m('ours', (f) => f.p99Ms), m('reference', (f) => f.p99Ms)];
    const cpu = [m('ours', (f) => f.cpuUsPerDecision), m('reference', (f) => f.cpuUsPerDecision)];
    const rss = [m('ours', (f) => f.rssMb), m('reference', (f) => f.rssMb)];
    const errors = [m('ours', (f) => f.errors), m('reference', (f) => f.errors)];
    const ratio = (pair: number[]) => pair[0]! / Math.max(1e-9, pair[1]!);
    const grpc = transport === 'gRPC';
    const goal = (text: string, met: boolean) => (grpc ? `; goal ${text}: ${verdict(met)}` : '');
    const goals = {
      rps: n === '100' ? goal(`≥ ${GOALS.throughputAt100}×`, ratio(rps) >= GOALS.throughputAt100) : '',
      p99: goal(`≤ ${GOALS.p99Ratio}×`, ratio(p99) <= GOALS.p99Ratio),
      cpu: goal(`≤ ${GOALS.cpuRatio}×`, ratio(cpu) <= GOALS.cpuRatio),
      rss: goal(`≤ ${GOALS.loadedRssMb} MB`, rss[0]! <= GOALS.loadedRssMb),
    };
    loadedOurs = Math.max(loadedOurs, rss[0]!);
    if (grpc)
      verdicts.push(
        ...Object.entries(goals)
          .filter(([, text]) => text.endsWith('MISSED'))
          .map(([k]) => `${k} at ${n}`),
      );
    out(
      `| ${transport} | ${n} | ${fmt(rps[0]!)} / ${fmt(rps[1]!)} (${fmt(ratio(rps), 2)}×${goals.rps}) | ${fmt(p50[0]!, 2)} / ${fmt(p50[1]!, 2)} | ${fmt(p99[0]!, 2)} / ${fmt(p99[1]!, 2)} (${fmt(ratio(p99), 2)}×${goals.p99}) | ${fmt(cpu[0]!)} / ${fmt(cpu[1]!)} (${fmt(ratio(cpu), 2)}×${goals.cpu}) | ${fmt(rss[0]!)} / ${fmt(rss[1]!)}${goals.rss} | ${fmt(errors[0]!)} / ${fmt(errors[1]!)} |`,
    );
  }
  out(
    `RSS under load, whole instance (largest cell): ours ${fmt(loadedOurs)} MB | goal ≤ ${GOALS.loadedRssMb} MB: ${verdict(loadedOurs <= GOALS.loadedRssMb)}`,
  );
  out(verdicts.length === 0 ? 'every gRPC goal met' : `gRPC goals missed: ${verdicts.join(', ')}`);
}

await main();
