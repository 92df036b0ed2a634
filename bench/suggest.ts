// Suggestion benchmark: every algorithm on the anchor problems of hpo-anchors.md, 100 trials
// and 20 seeds each, through gRPC (two experiment servers, so both cores work), printing the
// median regret at 25/50/100 trials and the median GetSuggestions time at 100 completed trials
// beside Optuna 3.1's and Optuna 5.0's figures, with a verdict against each, at batch 1 and 5.
// The two untuned problems (no sampler change was tuned on them) are reported in a table apart.
// Flags: --algorithms a,b --problems p,q --batches 1,5 --seeds N --trials N --in-process (the use
// case called directly, for tuning) --servers N --loops N (per server).
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { kafkaSettings } from '../shared/bus/kafka-settings.ts';
import { readSettings, str } from '../shared/settings.ts';
import { type ExperimentServer, startExperimentServer } from '../test/helpers/experiment-server.ts';
import { anchorFor, RELEASES } from './suggest/anchors.ts';
import { type LoopResult, runLoop } from './suggest/driver.ts';
import { ALL_PROBLEMS, type Problem, UNTUNED_PROBLEMS } from './suggest/problems.ts';
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
/** The lines of the blocking check (runThroughGrpc), printed after the tables. */
const blocking: string[] = [];

interface Outcome {
  readonly job: Job;
  readonly regrets?: number[];
  readonly ms?: number;
  readonly error?: string;
}

// hyperband and pbt schedule their own rounds: batch 1 only.
const jobs: Job[] = batches.flatMap((batch) =>
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
    },
    process.env,
  );
  const scratch = mkdtempSync(join(tmpdir(), 'bench-suggest-'));
  const servers: ExperimentServer[] = [];
  const clients: ReturnType<typeof grpcTransport>[] = [];
  try {
    for (let i = 0; i < Number(flags.servers); i++) {
      const server = await startExperimentServer({
        KAFKA_BROKERS: settings.kafkaBrokers.join(','),
        EXPERIMENT_SERVICES: 'suggestion',
        PERSISTENCE_WORKER: 'false',
        EARLY_STOPPING_WORKER: 'false',
        OBSERVATION_STORE: 'sqlite',
        SQLITE_FILE: join(scratch, `observations-${i}.db`),
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

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

function progress(done: number, total: number): void {
  if (process.stderr.isTTY) process.stderr.write(`\r${done}/${total} loops`);
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

function fmt(v: number): string {
  if (!Number.isFinite(v)) return '-';
  return v !== 0 && (Math.abs(v) < 0.01 || Math.abs(v) >= 1e5) ? v.toExponential(1) : v.toPrecision(3);
}

function keyOf(job: Job): string {
  return `${job.algorithm}/${job.problem}/${job.batch}`;
}

function verdict(ours: number, theirs: number | undefined): string {
  if (theirs === undefined) return '-';
  return ours <= theirs ? 'ok' : `MISSED ×${(ours / theirs).toPrecision(2)}`;
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
  if (anchored.length) {
    print('\nAnchor problems (median regret@100; Optuna figures from ../shared/reference)');
    table(results, anchored);
  }
  if (untuned.length) {
    print(
      '\nUntuned problems (no change was tuned on them; Optuna 5.0 measured by bench/suggest/optuna-untuned.py)',
    );
    table(results, untuned);
  }
  if (blocking.length) print(`\nA model fit and other calls on the same server\n${blocking.join('\n')}`);
  const missed = lines.filter((l) => l.includes('MISSED')).length;
  print(`\n${missed} rows with a miss`);
}

function table(results: readonly Outcome[], shown: readonly Problem[]): void {
  const header = [
    'problem',
    'algorithm',
    'batch',
    'regret@25',
    'regret@50',
    'regret@100 [q25, q75]',
    'ms/sugg',
    ...RELEASES.flatMap((release) => [`${release}@100`, `${release} ms`, `vs ${release}`]),
  ];
  const rows: string[][] = [header];
  for (const batch of batches) {
    for (const problem of shown) {
      for (const algorithm of algorithms) {
        const mine = results.filter(
          (r) =>
            r.job.problem === problem.name &&
            r.job.algorithm === algorithm &&
            r.job.batch === batch &&
            r.regrets,
        );
        if (!mine.length) continue;
        const at = (k: number) => mine.map((r) => r.regrets![k]!);
        const times = mine.flatMap((r) => (r.ms === undefined ? [] : [r.ms]));
        const median100 = quantile(at(2), 0.5);
        rows.push([
          problem.name,
          algorithm,
          String(batch),
          fmt(quantile(at(0), 0.5)),
          fmt(quantile(at(1), 0.5)),
          `${fmt(median100)} [${fmt(quantile(at(2), 0.25))}, ${fmt(quantile(at(2), 0.75))}]`,
          times.length ? quantile(times, 0.5).toFixed(2) : '-',
          ...RELEASES.flatMap((release) => {
            const anchor = anchorFor(release, batch, algorithm, problem.name);
            return [
              anchor ? fmt(anchor.regret[2]) : '-',
              anchor ? anchor.msPerSuggestion.toFixed(2) : '-',
              verdict(median100, anchor?.regret[2]),
            ];
          }),
        ]);
      }
    }
  }
  const widths = header.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const row of rows) {
    const line = row.map((cell, c) => cell.padEnd(widths[c]!)).join('  ');
    lines.push(line);
    print(line);
  }
}
