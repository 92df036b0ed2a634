// Suggestion benchmark: every algorithm on the anchor problems of hpo-anchors.md, 100 trials
// and 20 seeds each, through gRPC (two experiment servers, so both cores work), printing the
// median regret at 25/50/100 trials and the median GetSuggestions time at 100 completed trials
// beside Optuna 3.1's and Optuna 5.0's figures, with a verdict against each, at batch 1 and 5.
// The two untuned problems (no sampler change was tuned on them) are reported in a table apart.
// Flags: --algorithms a,b --problems p,q --batches 1,5 --seeds N --trials N --in-process (the use
// case called directly, for tuning) --servers N --loops N (per server).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { kafkaSettings } from '../shared/bus/kafka-settings.ts';
import { readSettings, str } from '../shared/settings.ts';
import { type ExperimentServer, startExperimentServer } from '../test/helpers/experiment-server.ts';
import { suggestionOnlyEnv } from './server-env.ts';
import { type LoopResult, runLoop } from './suggest/driver.ts';
import { goptunaFrom, type Latencies, loopLatencies, oursAt } from './suggest/latency.ts';
import { ALL_PROBLEMS, UNTUNED_PROBLEMS } from './suggest/problems.ts';
import { latencyTable, type Outcome, qualityTable, quantile } from './suggest/report.ts';
import { grpcTransport } from './suggest/transports.ts';
import type { Job } from './suggest/worker.ts';

const ALL = [
  'random',
  'grid',
  'sobol',
  'tpe',
  'multivariate-tpe',
  'cmaes',
  'bayesianoptimization',
  'hyperband',
  'pbt',
];
const { values: flags } = parseArgs({
  options: {
    algorithms: { type: 'string', default: ALL.join(',') },
    problems: { type: 'string', default: ALL_PROBLEMS.map((p) => p.name).join(',') },
    batches: { type: 'string', default: '1,5' },
    seeds: { type: 'string', default: '20' },
    trials: { type: 'string', default: '100' },
    'in-process': { type: 'boolean', default: false },
    servers: { type: 'string', default: String(Math.max(1, Math.min(2, availableParallelism()))) },
    loops: { type: 'string', default: '2' },
    'timing-samples': { type: 'string', default: '5' },
    // The latency table (gRPC only): loops per algorithm, 0 for none; --latency-only skips the rest.
    'latency-loops': { type: 'string', default: '6' },
    'latency-only': { type: 'boolean', default: false },
    'latency-problem': { type: 'string', default: 'hartmann6' },
    'latency-algorithms': { type: 'string', default: 'random,tpe,cmaes,bayesianoptimization' },
  },
});
const algorithms = flags.algorithms.split(',').filter(Boolean);
const problems = ALL_PROBLEMS.filter((p) => flags.problems.split(',').includes(p.name));
const batches = flags.batches.split(',').filter(Boolean).map(Number);
const seeds = Number(flags.seeds);
const trials = Number(flags.trials);
const unknown = algorithms.filter((a) => !ALL.includes(a));
if (
  unknown.length ||
  !problems.length ||
  !(seeds > 0) ||
  !(trials >= 1) ||
  !batches.length ||
  !batches.every((b) => Number.isInteger(b) && b >= 1)
) {
  console.error(
    `bad flags: algorithms ${unknown.join(',') || 'ok'}, ${problems.length} problems, batches ${flags.batches}, ${seeds} seeds, ${trials} trials`,
  );
  process.exit(2);
}

/** The printed table rows, to count the misses. */
const lines: string[] = [];
/** What Katib's goptuna service answers. */
const GOPTUNA_ALGORITHMS = ['random', 'tpe', 'cmaes', 'sobol'];
/** The lines of the blocking check (runThroughGrpc), printed after the tables. */
const blocking: string[] = [];
/** The latency table (runThroughGrpc), printed last. */
let latency: string[] = [];
let latencyTitle = '';

// hyperband and pbt schedule their own rounds: batch 1 only.
const jobs: Job[] = flags['latency-only']
  ? []
  : batches.flatMap((batch) =>
      algorithms
        .filter((algorithm) => batch === 1 || !['hyperband', 'pbt'].includes(algorithm))
        .flatMap((algorithm) =>
          problems.flatMap((problem) =>
            Array.from({ length: seeds }, (_, seed) => ({
              algorithm,
              problem: problem.name,
              seed,
              trials,
              batch,
            })),
          ),
        ),
    );
const started = performance.now();
const outcomes = flags['in-process'] ? await runInProcess(jobs) : await runThroughGrpc(jobs);
report(outcomes);
print(
  `\n${jobs.length} loops in ${((performance.now() - started) / 1000).toFixed(0)} s (${flags['in-process'] ? 'in-process' : 'gRPC'})`,
);

async function runInProcess(all: Job[]): Promise<Outcome[]> {
  const workers = Math.max(1, Math.min(2, availableParallelism()));
  const queue = [...all];
  const results: Outcome[] = [];
  await Promise.all(
    Array.from({ length: workers }, async () => {
      const worker = new Worker(new URL('./suggest/worker.ts', import.meta.url));
      for (let job = queue.shift(); job; job = queue.shift()) {
        const current = job;
        results.push(
          await new Promise<Outcome>((resolve) => {
            worker.once('message', resolve);
            worker.postMessage(current);
          }),
        );
        progress(results.length, all.length);
      }
      await worker.terminate();
    }),
  );
  return results;
}

async function runThroughGrpc(all: Job[]): Promise<Outcome[]> {
  const settings = readSettings(
    {
      ...kafkaSettings,
      /** Node options of the servers, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile them. */
      serverNodeOptions: str('BENCH_SERVER_NODE_OPTIONS', ''),
      /** Katib's goptuna suggestion service, built from Katib's source (see latency.ts); none when absent. */
      goptunaBinary: str('BENCH_GOPTUNA', '.bench-tools/goptuna-suggestion'),
    },
    process.env,
  );
  const scratch = mkdtempSync(join(tmpdir(), 'bench-suggest-'));
  const servers: ExperimentServer[] = [];
  const clients: ReturnType<typeof grpcTransport>[] = [];
  try {
    for (let i = 0; i < Number(flags.servers); i++) {
      const server = await startExperimentServer({
        ...suggestionOnlyEnv(settings.kafkaBrokers, join(scratch, `observations-${i}.db`)),
        ...(settings.serverNodeOptions === '' ? {} : { NODE_OPTIONS: settings.serverNodeOptions }),
      });
      servers.push(server);
      clients.push(grpcTransport(server.address));
    }
    const queue = [...all];
    const results: Outcome[] = [];
    const finals = new Map<string, LoopResult['finalRequest'][]>();
    await Promise.all(
      clients.flatMap((client) =>
        Array.from({ length: Number(flags.loops) }, async () => {
          for (let job = queue.shift(); job; job = queue.shift()) {
            const problem = ALL_PROBLEMS.find((p) => p.name === job!.problem)!;
            try {
              const result = await runLoop(
                client.transport,
                job.algorithm,
                problem,
                job.seed,
                job.trials,
                job.batch,
              );
              const key = keyOf(job);
              finals.set(key, [...(finals.get(key) ?? []), result.finalRequest]);
              results.push({ job, regrets: result.regrets });
            } catch (error) {
              results.push({ job, error: (error as Error).message });
            }
            progress(results.length, all.length);
          }
        }),
      ),
    );
    // Timing on a quiet machine: one call at a time, each with `trials` completed trials.
    const timed = new Map<string, number[]>();
    for (const [key, requests] of finals) {
      const samples: number[] = [];
      for (const request of requests.slice(0, Number(flags['timing-samples']))) {
        const t0 = performance.now();
        // A grid of exactly `trials` points is exhausted by then: that call fails, by design.
        const answered = await clients[0]!.transport(request).then(
          () => true,
          () => false,
        );
        if (answered) samples.push((performance.now() - t0) / request.current_request_number);
      }
      timed.set(key, samples);
    }
    await blockingCheck(clients[0]!.transport, finals);
    await latencyCheck(servers[0]!.address, settings.goptunaBinary).catch((error: Error) => {
      throw new Error(`latency: ${error.message}\nserver output:\n${servers[0]!.output()}`);
    });
    return results.map((outcome) => {
      const samples = timed.get(keyOf(outcome.job)) ?? [];
      return { ...outcome, ms: samples[outcome.job.seed] };
    });
  } finally {
    for (const client of clients) client.close();
    await Promise.all(servers.map((server) => server.stop()));
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Whether a model fit holds other calls: the latency of small calls (random, 100 trials) sent one
 * after another on the same server, alone and while bayesianoptimization calls at 100 trials
 * run back to back. Printed after the tables.
 */
async function blockingCheck(
  transport: ReturnType<typeof grpcTransport>['transport'],
  finals: ReadonlyMap<string, LoopResult['finalRequest'][]>,
): Promise<void> {
  const fit = [...finals].find(([key]) => key.startsWith('bayesianoptimization/'))?.[1][0];
  const small = [...finals].find(([key]) => !key.startsWith('bayesianoptimization/'))?.[1][0];
  if (!fit || !small) return;
  const other = {
    ...small,
    experiment: {
      ...small.experiment!,
      name: `${small.experiment!.name}-other`,
      spec: { ...small.experiment!.spec!, algorithm: { algorithm_name: 'random', algorithm_settings: [] } },
    },
  };
  const latencies = async (until: () => boolean, minimum: number) => {
    const out: number[] = [];
    while (out.length < minimum || !until()) {
      const t0 = performance.now();
      await transport(other);
      out.push(performance.now() - t0);
    }
    return out;
  };
  const alone = await latencies(() => true, 20);
  let fitting = true;
  const fits: number[] = [];
  const fitter = (async () => {
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      await transport(fit);
      fits.push(performance.now() - t0);
    }
    fitting = false;
  })();
  const during = await latencies(() => !fitting, 1);
  await fitter;
  const line = (label: string, v: number[]) =>
    `${label}: p50 ${quantile(v, 0.5).toFixed(2)} ms, max ${Math.max(...v).toFixed(2)} ms (${v.length} calls)`;
  blocking.push(
    line('other calls alone', alone),
    line('other calls during bayesianoptimization fits', during),
    line('the bayesianoptimization calls meanwhile', fits),
  );
}

/** GetSuggestions p50 by completed trials, ours on the first server and goptuna's when built. */
async function latencyCheck(address: string, goptunaBinary: string): Promise<void> {
  const loops = Number(flags['latency-loops']);
  const problem = ALL_PROBLEMS.find((p) => p.name === flags['latency-problem']);
  if (!(loops > 0) || !problem) return;
  const ours = new Map<string, Latencies>();
  const goptuna = new Map<string, Latencies>();
  const goptunaBuilt = existsSync(goptunaBinary);
  for (const algorithm of flags['latency-algorithms'].split(',').filter(Boolean)) {
    const services = new Map([['ours', oursAt(address)]]);
    if (goptunaBuilt && GOPTUNA_ALGORITHMS.includes(algorithm))
      services.set('goptuna', goptunaFrom(goptunaBinary));
    const found = await loopLatencies(services, algorithm, problem, loops);
    ours.set(algorithm, found.get('ours')!);
    if (found.has('goptuna')) goptuna.set(algorithm, found.get('goptuna')!);
  }
  latencyTitle = `GetSuggestions p50 (ms) through gRPC by completed trials, batch 1, ${problem.name}, ${loops} loops (${
    goptunaBuilt ? `goptuna: ${goptunaBinary}` : `goptuna not built: no ${goptunaBinary}`
  })`;
  latency = latencyTable(ours, goptuna);
}

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

function progress(done: number, total: number): void {
  if (process.stderr.isTTY) process.stderr.write(`\r${done}/${total} loops`);
}

function keyOf(job: Job): string {
  return `${job.algorithm}/${job.problem}/${job.batch}`;
}

function report(results: readonly Outcome[]): void {
  if (process.stderr.isTTY) process.stderr.write('\n');
  for (const failure of results.filter((r) => r.error).slice(0, 20)) {
    print(
      `FAILED ${failure.job.algorithm} ${failure.job.problem} b${failure.job.batch} seed ${failure.job.seed}: ${failure.error}`,
    );
  }
  const untuned = problems.filter((p) => UNTUNED_PROBLEMS.includes(p));
  const anchored = problems.filter((p) => !UNTUNED_PROBLEMS.includes(p));
  const show = (title: string, table: string[]) => {
    print(`\n${title}`);
    for (const line of table) print(line);
    lines.push(...table);
  };
  if (anchored.length && results.length)
    show(
      'Anchor problems (median regret@100; Optuna figures from ../shared/reference)',
      qualityTable(results, anchored, algorithms, batches),
    );
  if (untuned.length && results.length)
    show(
      'Untuned problems (no change was tuned on them; Optuna 5.0 measured by bench/suggest/optuna5.py)',
      qualityTable(results, untuned, algorithms, batches),
    );
  if (blocking.length) print(`\nA model fit and other calls on the same server\n${blocking.join('\n')}`);
  if (latency.length) show(latencyTitle, latency);
  const missed = lines.filter((l) => l.includes('MISSED')).length;
  print(`\n${missed} rows with a miss`);
}
