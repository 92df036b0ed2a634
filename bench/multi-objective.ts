// bench:multi-objective: our tpe (with `objectives`) and nsga2 against Optuna 5.0's TPESampler and
// NSGAIISampler on ZDT1, ZDT2 (two objectives) and DTLZ2 (three), in process, one trial at a time;
// and our fANOVA importance against Optuna's FanovaImportanceEvaluator on the same trials.
// Hypervolume: both sides' loss vectors measured by our hypervolume.ts against each problem's fixed
// reference point (./multi-objective/problems.ts), after each checkpoint's number of trials of one
// run (neither sampler knows the budget, so a run's first 100 trials are a 100-trial run). Seed s
// is random_state s on our side, seed=s on Optuna's. Optuna's runs are cached under
// .bench-tools/multi-objective-cache/ (ours are cheap and always rerun, so a code change shows).
// Flags: --seeds N --checkpoints 100,300 --problems zdt1,zdt2,dtlz2 --samplers tpe,nsga2
// --only hypervolume|importance --workers N (Optuna processes).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { hypervolume } from '../services/experiment/suggestion/multi-objective/hypervolume.ts';
import { importanceReport } from './multi-objective/importance.ts';
import { runOurs } from './multi-objective/loop.ts';
import { MULTI_OBJECTIVE_PROBLEMS, multiObjectiveProblem } from './multi-objective/problems.ts';
import { ensureVenv } from './python-venv.ts';
import { quantile } from './suggest/report.ts';

const { values: flags } = parseArgs({
  options: {
    seeds: { type: 'string', default: '20' },
    checkpoints: { type: 'string', default: '100,300' },
    problems: { type: 'string', default: MULTI_OBJECTIVE_PROBLEMS.map((p) => p.name).join(',') },
    samplers: { type: 'string', default: 'tpe,nsga2' },
    only: { type: 'string' },
    workers: { type: 'string', default: '2' },
  },
});
const list = (text: string) => text.split(',').filter(Boolean);
const seeds = Number(flags.seeds);
const checkpoints = list(flags.checkpoints).map(Number);
const budget = Math.max(...checkpoints);
const problems = list(flags.problems).map(multiObjectiveProblem);
const samplers = list(flags.samplers);
if (samplers.some((s) => !['tpe', 'nsga2'].includes(s)) || !(seeds > 0) || !(budget > 0)) {
  console.error(`bad flags: samplers ${samplers.join(',')}, ${seeds} seeds, checkpoints ${checkpoints}`);
  process.exit(2);
}
const log = (line: string) => process.stderr.write(`${line}\n`);
const python = await ensureVenv(
  {
    bench: 'bench:multi-objective',
    name: 'optuna-mo-venv',
    // scikit-learn: Optuna's fANOVA grows its forest with it.
    requirements: ['optuna==5.0.*', 'scikit-learn==1.*'],
    check: "import optuna, sklearn, sys; sys.exit(0 if optuna.__version__.startswith('5.0.') else 1)",
  },
  log,
);
const CACHE = '.bench-tools/multi-objective-cache';

/**
 * Runs Optuna's jobs in `workers` processes; each job writes its own file. Each sampler's jobs are
 * dealt out in turn on their own: dealt as one list, where tpe and nsga2 alternate, two workers got
 * every TPESampler run (a minute each, NSGAIISampler's a second or two), doubling the wall time.
 */
async function runOptunaJobs(
  jobs: readonly { out: string; sampler?: string }[],
  name: string,
): Promise<void> {
  if (jobs.length === 0) return;
  const workers = Math.max(1, Math.min(Number(flags.workers), jobs.length));
  const dealt = new Map<string, number>();
  const workerOf = jobs.map((job) => {
    const turn = dealt.get(job.sampler ?? '') ?? 0;
    dealt.set(job.sampler ?? '', turn + 1);
    return turn % workers;
  });
  mkdirSync(CACHE, { recursive: true });
  await Promise.all(
    Array.from({ length: workers }, (_, w) => {
      const file = join(CACHE, `${name}-jobs-${w}.json`);
      writeFileSync(file, JSON.stringify(jobs.filter((_, i) => workerOf[i] === w)));
      return promisify(execFile)(python, ['bench/multi-objective/optuna5_multi_objective.py', file], {
        maxBuffer: 64 * 1024 * 1024,
      });
    }),
  );
}

const lines: string[] = [];
const print = (line: string) => {
  lines.push(line);
  process.stdout.write(`${line}\n`);
};
const started = performance.now();

if (flags.only !== 'importance') {
  // Seed by seed, so that a run cut short has cached whole seeds of every cell.
  const runs = Array.from({ length: seeds }, (_, seed) =>
    problems.flatMap((problem) => samplers.map((sampler) => ({ problem, sampler, seed }))),
  ).flat();
  const theirsPath = (r: (typeof runs)[number]) =>
    join(CACHE, 'optuna5', r.sampler, `${r.problem.name}-t${budget}-s${r.seed}.json`);
  const missing = runs.filter((r) => !existsSync(theirsPath(r)));
  const optuna = runOptunaJobs(
    missing.map((r) => ({
      kind: 'run',
      sampler: r.sampler,
      problem: r.problem.name,
      parameters: r.problem.parameters,
      objectives: r.problem.metrics.length,
      budget,
      seed: r.seed,
      out: theirsPath(r),
    })),
    'hypervolume',
  );
  // Our runs, random among them for scale, while Optuna's run in their own processes.
  const ours = new Map<string, number[][]>();
  const key = (sampler: string, problem: string, seed: number) => `${sampler}/${problem}/${seed}`;
  const oursStarted = performance.now();
  for (const problem of problems)
    for (const sampler of ['random', ...samplers])
      for (let seed = 0; seed < seeds; seed++)
        ours.set(key(sampler, problem.name, seed), runOurs(sampler, problem, seed, budget));
  log(`our runs: ${((performance.now() - oursStarted) / 1000).toFixed(0)} s`);
  await optuna;
  const theirs = (r: (typeof runs)[number]) =>
    (JSON.parse(readFileSync(theirsPath(r), 'utf8')) as { losses: number[][] }).losses;

  print(
    `Hypervolume (our hypervolume.ts for both sides), median [q25, q75] of ${seeds} seeds, one trial at a time`,
  );
  print('');
  print('| problem | reference | trials | sampler | ours | Optuna 5.0 | ours ≥ Optuna | our random |');
  print('|---|---|---|---|---|---|---|---|');
  for (const problem of problems) {
    const hv = (losses: number[][], n: number) => hypervolume(losses.slice(0, n), problem.reference);
    // Two decimals: medians of different samplers differ in the second.
    const two = (v: number) => v.toFixed(2);
    const summary = (values: number[]) =>
      `${two(quantile(values, 0.5))} [${two(quantile(values, 0.25))}, ${two(quantile(values, 0.75))}]`;
    for (const n of checkpoints) {
      const seedList = Array.from({ length: seeds }, (_, s) => s);
      const random = seedList.map((s) => hv(ours.get(key('random', problem.name, s))!, n));
      for (const sampler of samplers) {
        const mine = seedList.map((s) => hv(ours.get(key(sampler, problem.name, s))!, n));
        const optunas = seedList.map((seed) => hv(theirs({ problem, sampler, seed }), n));
        const verdict = quantile(mine, 0.5) >= quantile(optunas, 0.5) ? 'yes' : '**no**';
        print(
          `| ${problem.name} | (${problem.reference.join(', ')}) | ${n} | ${sampler} | ${summary(mine)} | ${summary(optunas)} | ${verdict} | ${summary(random)} |`,
        );
      }
    }
  }
  print('');
  print(
    `True fronts' hypervolumes: ${problems.map((p) => `${p.name} ${p.optimalHypervolume.toFixed(2)}`).join(', ')}`,
  );
}

if (flags.only !== 'hypervolume') {
  print('');
  for (const line of await importanceReport((jobs) => runOptunaJobs(jobs, 'importance'), CACHE, log))
    print(line);
}

print('');
print(`${((performance.now() - started) / 1000).toFixed(0)} s in all (Optuna's cached runs not rerun)`);
mkdirSync(CACHE, { recursive: true });
writeFileSync(join(CACHE, 'report.md'), `${lines.join('\n')}\n`);
