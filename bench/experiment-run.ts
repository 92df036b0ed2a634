// Issue 43's measured line: what running a Katib Experiment without Kubernetes costs per trial, side
// by side with Optuna 5.0's local study running the same script as a subprocess.
// 1. Overhead: --trials instant trials (bench/experiment-run/instant-trial.mjs prints its own start t0
//    and its metric at once) one at a time. Per trial: t0 → the first metric stored (ours: the Kafka
//    timestamp of its first ObservationLogReported; Optuna: trial.report returned), the process's end
//    → the next trial's t0 (ours: TrialRunChanged EXITED; Optuna: the exit seen by Python), t0 → next t0.
// 2. examples/random.yaml (train.mjs, 8 epochs of 0.25 s) with --example-trials trials, --parallel at
//    once: ours with one runner (its RUNNER_SLOTS, 4 by default, run them together), Optuna n_jobs.
// For both: wall time, and CPU seconds and peak RSS of every process of ours (the built service, the
// CLI, its runners) or Python's, never the trial scripts'; the Kafka broker's apart. The service runs
// with its defaults (the trial controller on, SQLite in a scratch folder) as `npm start` runs it.
// Run on the bench profile's Kafka: `nice -n 10 npm run bench:experiment-run` (~2–4 min).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_BUILD, build } from '../scripts/build.ts';
import { kafkaSettings } from '../shared/bus/kafka-settings.ts';
import { readSettings, str } from '../shared/settings.ts';
import { startExperimentServer } from '../test/helpers/experiment-server.ts';
import { openTestBus, uniqueName } from '../test/helpers/kafka.ts';
import {
  type CliRun,
  exampleExperiment,
  INSTANT_TRIAL,
  overheadExperiment,
  runExperiment,
  trialTimes,
} from './experiment-run/ours.ts';
import { type Root, type Usage, watchUsage } from './experiment-run/process-usage.ts';
import { ensureOptuna, OPTUNA_PYTHON } from './pruners/optuna.ts';
import { percentile } from './stats.ts';

const ROOT = join(import.meta.dirname, '..');
const { values: flags } = parseArgs({
  options: {
    trials: { type: 'string', default: '30' },
    'example-trials': { type: 'string', default: '12' },
    parallel: { type: 'string', default: '4' },
  },
});
const trials = Number(flags.trials);
const exampleTrials = Number(flags['example-trials']);
const parallel = Number(flags.parallel);
if (![trials, exampleTrials, parallel].every((n) => Number.isInteger(n) && n >= 2 && n <= 500)) {
  console.error('bad flags: --trials, --example-trials and --parallel are whole numbers from 2 to 500');
  process.exit(2);
}
const settings = readSettings({ ...kafkaSettings, path: str('PATH', '/usr/bin:/bin') }, process.env);
const brokers = settings.kafkaBrokers.join(',');
/** One node binary for every trial of both sides. */
const NODE = process.execPath;
const log = (line: string) => process.stderr.write(`${line}\n`);

interface Side {
  readonly wallMs: number;
  readonly usage: Usage;
  readonly kafka?: Usage;
  /** Per trial, in start order (ms since the epoch). */
  readonly trials: {
    assigned?: number;
    start: number;
    t0?: number;
    firstMetric?: number;
    end: number;
    succeeded?: number;
  }[];
}

/** The bench profile's Kafka broker (a JVM: its whole tree), when infra.sh started it. */
function kafkaRoot(): Root | undefined {
  try {
    const out = execFileSync('bash', ['-c', 'INFRA_PROFILE=bench bash scripts/infra.sh pid kafka'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return { pid: Number(out.toString().trim()), depth: Number.POSITIVE_INFINITY };
  } catch {
    return undefined;
  }
}

async function measured<T>(roots: readonly Root[], work: (add: (root: Root) => void) => Promise<T>) {
  const kafka = kafkaRoot();
  const watch = await watchUsage(roots);
  const broker = kafka ? await watchUsage([kafka]) : undefined;
  const started = performance.now();
  const result = await work((root) => watch.add(root));
  const wallMs = performance.now() - started;
  const usage = await watch.stop();
  const kafkaUsage = await broker?.stop();
  return { result, wallMs, usage, ...(kafkaUsage ? { kafka: kafkaUsage } : {}) };
}

/** The Python side: optuna_local.py, its process counted alone (its children are the trials). */
async function optunaSide(jobs: number, count: number, script: readonly string[]): Promise<Side> {
  const { result, wallMs, usage } = await measured([], (add) => {
    const child = spawn(
      OPTUNA_PYTHON,
      [
        join(import.meta.dirname, 'experiment-run', 'optuna_local.py'),
        '--node',
        NODE,
        '--trials',
        String(count),
        '--jobs',
        String(jobs),
        '--',
        ...script,
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    add({ pid: child.pid ?? 0, depth: 0 });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    return new Promise<string>((resolve, reject) =>
      child.once('exit', (code) => {
        clearTimeout(timer);
        if (code === 0) resolve(stdout);
        else reject(new Error(`optuna_local.py exited with ${code}`));
      }),
    );
  });
  const out = JSON.parse(result) as {
    version: string;
    trials: { spawned_at: number; t0: number | null; first_metric_at: number | null; exited_at: number }[];
  };
  optunaVersion = out.version;
  return {
    wallMs,
    usage,
    trials: out.trials
      .map((t) => ({
        start: t.spawned_at,
        end: t.exited_at,
        ...(t.t0 === null ? {} : { t0: t.t0 }),
        ...(t.first_metric_at === null ? {} : { firstMetric: t.first_metric_at }),
      }))
      .sort((a, b) => a.start - b.start),
  };
}
let optunaVersion = '?';

const loadAtStart = loadavg();
log('building the service (dist for the bench) and checking Optuna 5.0');
build(BENCH_BUILD);
await ensureOptuna(log);
const scratch = mkdtempSync(join(tmpdir(), 'bench-experiment-run-'));
const server = await startExperimentServer(
  {
    KAFKA_BROKERS: brokers,
    OBSERVATION_STORE: 'sqlite',
    SQLITE_FILE: join(scratch, 'observations.db'),
    PERSISTENCE_GROUP: uniqueName('bench-run-persistence'),
    EARLY_STOPPING_GROUP: uniqueName('bench-run-judge'),
    TRIAL_CONTROLLER: 'true',
  },
  { built: BENCH_BUILD },
);
const bus = openTestBus(brokers);

/** Our side: `experiment run` with one runner, the service's tree and the CLI's counted. */
async function oursSide(yaml: string, name: string): Promise<Side & { run: CliRun }> {
  const env = {
    PATH: `${dirname(NODE)}:${settings.path}`,
    KAFKA_BROKERS: brokers,
    RUNNER_GROUP: uniqueName('bench-runners'),
    RUNNER_DB_MANAGER_ADDRESS: server.address,
  };
  const { result, wallMs, usage, kafka } = await measured(
    [{ pid: server.pid, depth: Number.POSITIVE_INFINITY }],
    (add) =>
      runExperiment({
        yaml,
        dir: scratch,
        url: `http://127.0.0.1:${server.httpPort}`,
        runners: 1,
        env,
        onSpawn: (pid) => add({ pid, depth: 1 }), // the CLI and its runners, not their trials
        timeoutMs: 180_000,
      }),
  );
  if (result.code !== 0)
    throw new Error(`experiment run exited with ${result.code}:\n${result.stderr}\n${server.output()}`);
  const times = await trialTimes(bus, name);
  return {
    run: result,
    wallMs,
    usage,
    ...(kafka ? { kafka } : {}),
    trials: times.map((t) => ({
      ...(t.assignedAt === undefined ? {} : { assigned: t.assignedAt }),
      ...(t.succeededAt === undefined ? {} : { succeeded: t.succeededAt }),
      start: t.startedAt,
      end: t.exitedAt,
      ...(t.t0 === undefined ? {} : { t0: t.t0 }),
      ...(t.firstStoredAt === undefined ? {} : { firstMetric: t.firstStoredAt }),
    })),
  };
}

/** The per-trial series of the overhead run, in ms (ours' hops only where their events were read). */
function overheads(side: Side) {
  const byT0 = side.trials.filter((t) => t.t0 !== undefined).sort((a, b) => a.t0! - b.t0!);
  const next = byT0.slice(1).map((t, i) => ({ t, previous: byT0[i]! }));
  return {
    count: byT0.length,
    latency: byT0.filter((t) => t.firstMetric !== undefined).map((t) => t.firstMetric! - t.t0!),
    gap: next.map(({ t, previous }) => t.t0! - previous.end),
    toSpawn: next.map(({ t, previous }) => t.start - previous.end),
    // Where ours spends it: the controller's verdict, the next trial handed out, the runner taking it.
    verdict: next
      .filter(({ previous: p }) => p.succeeded !== undefined)
      .map(({ previous: p }) => p.succeeded! - p.end),
    handOut: next
      .filter(({ t, previous: p }) => t.assigned !== undefined && p.succeeded !== undefined)
      .map(({ t, previous: p }) => t.assigned! - p.succeeded!),
    pickUp: next.filter(({ t }) => t.assigned !== undefined).map(({ t }) => t.start - t.assigned!),
    nodeStart: byT0.map((t) => t.t0! - t.start),
    cycle: next.map(({ t, previous }) => t.t0! - previous.t0!),
  };
}

/** The most trial processes that ran at one time (from their start and end times). */
function mostAtOnce(side: Side): number {
  const edges = side.trials.flatMap((t) => [
    [t.start, 1],
    [t.end, -1],
  ]);
  edges.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let running = 0;
  let most = 0;
  for (const [, step] of edges) {
    running += step!;
    most = Math.max(most, running);
  }
  return most;
}

const spanMs = (side: Side) =>
  Math.max(...side.trials.map((t) => t.end)) - Math.min(...side.trials.map((t) => t.start));

try {
  log(`overhead: ${trials} instant trials one at a time, ours`);
  const overheadName = uniqueName('bench-overhead');
  const oursOverhead = await oursSide(overheadExperiment(overheadName, trials, NODE), overheadName);
  log('overhead: Optuna');
  const optunaOverhead = await optunaSide(1, trials, [INSTANT_TRIAL, 'x=x']);
  const exampleName = uniqueName('bench-random');
  log(`example: random.yaml, ${exampleTrials} trials, ${parallel} at once, ours`);
  const oursExample = await oursSide(exampleExperiment(exampleName, exampleTrials, parallel), exampleName);
  log('example: Optuna');
  const optunaExample = await optunaSide(parallel, exampleTrials, [
    join(ROOT, 'examples', 'train.mjs'),
    'lr=lr',
    'momentum=momentum',
    'optimizer=optimizer',
  ]);
  report(oursOverhead, optunaOverhead, oursExample, optunaExample);
} finally {
  await bus.close();
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
}

function report(oursOverhead: Side, optunaOverhead: Side, oursExample: Side, optunaExample: Side): void {
  const o = overheads(oursOverhead);
  const p = overheads(optunaOverhead);
  const ms = (v: readonly number[]) => `${percentile(v, 50).toFixed(0)} / ${percentile(v, 90).toFixed(0)}`;
  const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}×`;
  // A part ("of which") gets no ratio: a few ms against 1 says nothing a reader needs.
  const row = (label: string, a: readonly number[], b: readonly number[]) =>
    `| ${label} | ${ms(a)} | ${b.length === 0 ? '—' : ms(b)} | ${
      label.includes('of which') ? '' : ratio(percentile(a, 50), percentile(b, 50))
    } |`;
  const usageRows = (a: Side, b: Side, perTrial: number) => [
    `| command's wall time (s) | ${(a.wallMs / 1000).toFixed(1)} | ${(b.wallMs / 1000).toFixed(1)} | ${ratio(a.wallMs, b.wallMs)} |`,
    `| CPU s, without the trials (per trial, ms) | ${a.usage.cpuSeconds.toFixed(2)} (${((a.usage.cpuSeconds * 1000) / perTrial).toFixed(0)}) | ${b.usage.cpuSeconds.toFixed(2)} (${((b.usage.cpuSeconds * 1000) / perTrial).toFixed(0)}) | ${ratio(a.usage.cpuSeconds, b.usage.cpuSeconds)} |`,
    `| of which the service; the CLI and its runner | ${a.usage.cpuSecondsByRoot.map((c) => c.toFixed(2)).join('; ')} | | |`,
    `| peak RSS (MiB), without the trials | ${a.usage.peakRssMb.toFixed(0)} | ${b.usage.peakRssMb.toFixed(0)} | ${ratio(a.usage.peakRssMb, b.usage.peakRssMb)} |`,
    `| the Kafka broker meanwhile: CPU s, peak RSS (MiB) | ${a.kafka ? `${a.kafka.cpuSeconds.toFixed(2)}, ${a.kafka.peakRssMb.toFixed(0)}` : 'not started by infra.sh'} | none | |`,
  ];
  const lines = [
    `Overhead per trial: ${trials} instant trials one at a time (${o.count} and ${p.count} read), ms, median / p90`,
    '',
    `| | ours (1 runner) | Optuna ${optunaVersion} | ours / Optuna (medians) |`,
    '|---|---:|---:|---:|',
    row("script's start (t0) → first metric stored", o.latency, p.latency),
    row("process's end → next script's start", o.gap, p.gap),
    row('  of which: end → next process spawned', o.toSpawn, p.toSpawn),
    row('    of which: end → its trial SUCCEEDED (TrialStatusChanged)', o.verdict, []),
    row('    of which: SUCCEEDED → next trial handed out (TrialAssigned)', o.handOut, []),
    row('    of which: handed out → spawned (the runner)', o.pickUp, []),
    row("  of which: spawned → script's start (node starting it)", o.nodeStart, p.nodeStart),
    row("script's start → next script's start", o.cycle, p.cycle),
    ...usageRows(oursOverhead, optunaOverhead, trials),
    '',
    `Example: examples/random.yaml, ${exampleTrials} trials, ${parallel} at once (train.mjs: 8 epochs of 0.25 s)`,
    '',
    `| | ours (1 runner, ${parallel} slots) | Optuna ${optunaVersion} (n_jobs=${parallel}) | ours / Optuna |`,
    '|---|---:|---:|---:|',
    `| first trial's start → last trial's end (s) | ${(spanMs(oursExample) / 1000).toFixed(1)} | ${(spanMs(optunaExample) / 1000).toFixed(1)} | ${ratio(spanMs(oursExample), spanMs(optunaExample))} |`,
    `| most trials running at once | ${mostAtOnce(oursExample)} | ${mostAtOnce(optunaExample)} | |`,
    ...usageRows(oursExample, optunaExample, exampleTrials),
    '',
    `load average (1/5/15 min) at the start ${loadAtStart.map((l) => l.toFixed(1)).join('/')}, at the end ${loadavg()
      .map((l) => l.toFixed(1))
      .join('/')}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
