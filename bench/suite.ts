// bench:suite: every sampler on the BBOB suite (bench/suite/bbob) against Optuna 5.0's matching
// sampler, in process, regret = best f − f_opt after the budget. Seed s runs instance 1 + s % 5 on
// both sides. Each run is cached under .bench-tools/suite-cache/, so a rerun resumes.
// The Optuna side's venv is made on first use (bench/suite/python-side.ts); runs already cached
// need no Python. Flags: --functions 1,2,… (add m for the mixed variant: 1m,10m,15m) --dims 2,5,10
// --budgets 50,200 --seeds N --samplers a,b --cache DIR --rerun a,b --workers N --svg FILE (the ECDF picture;
// docs/bbob-ecdf.svg for the note) --ours-only (our runs only, no report: to try a change while
// Optuna's side of the same grid is still running into the cache) --quick (f1,f8,f15,f21 in 2-D, budget 50, 3 seeds, random and tpe).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { runLoop } from './suggest/driver.ts';
import { inProcessTransport } from './suggest/transports.ts';
import { ecdfSvg } from './suite/ecdf.ts';
import { problemByName } from './suite/problems.ts';
import { ensurePythonSide, type PythonSide } from './suite/python-side.ts';
import { type Run, reportLines, summarize } from './suite/report.ts';

const ALL_FUNCTIONS = [...Array.from({ length: 24 }, (_, i) => String(i + 1)), '1m', '10m', '15m'];
const SAMPLERS = ['random', 'tpe', 'multivariate-tpe', 'cmaes', 'bayesianoptimization'];
const { values: flags } = parseArgs({
  options: {
    functions: { type: 'string', default: ALL_FUNCTIONS.join(',') },
    dims: { type: 'string', default: '2,5,10' },
    // Without --budgets: 50 and 200, and 500 too for cmaes.
    budgets: { type: 'string' },
    seeds: { type: 'string', default: '10' },
    samplers: { type: 'string', default: SAMPLERS.join(',') },
    quick: { type: 'boolean', default: false },
    cache: { type: 'string', default: '.bench-tools/suite-cache' },
    // Samplers whose own runs are redone though cached (after a change to them; Optuna's stay).
    rerun: { type: 'string', default: '' },
    // Python processes for Optuna's side; ours runs beside them in this process.
    workers: { type: 'string', default: '1' },
    svg: { type: 'string' },
    'ours-only': { type: 'boolean', default: false },
  },
});
const quick = flags.quick;
const list = (text: string) => text.split(',').filter(Boolean);
const functions = quick ? ['1', '8', '15', '21'] : list(flags.functions);
const dims = quick ? [2] : list(flags.dims).map(Number);
const budgets = quick ? [50] : list(flags.budgets ?? '50,200').map(Number);
const cmaesLonger = !quick && flags.budgets === undefined;
const seeds = quick ? 3 : Number(flags.seeds);
const samplers = quick ? ['random', 'tpe'] : list(flags.samplers);
if (samplers.some((s) => !SAMPLERS.includes(s)) || functions.some((f) => !ALL_FUNCTIONS.includes(f))) {
  console.error(`bad flags: samplers ${samplers.join(',')}, functions ${functions.join(',')}`);
  process.exit(2);
}

const CACHE = flags.cache;
const log = (line: string) => process.stderr.write(`${line}\n`);
let pythonSide: PythonSide | undefined;
const pythonReady = async () => {
  pythonSide ??= await ensurePythonSide(samplers.includes('bayesianoptimization'), log);
  return pythonSide;
};
// Which sampler bayesianoptimization meets depends on the venv, so only it asks for Python up front.
const gpMissing = samplers.includes('bayesianoptimization') ? (await pythonReady()).gpMissing : undefined;
/** Optuna 5.0's matching sampler; GPSampler only where torch and scipy are installed. */
const REFERENCE: Record<string, string> = {
  random: 'random',
  tpe: 'tpe',
  'multivariate-tpe': 'multivariate-tpe',
  cmaes: 'cmaes',
  bayesianoptimization: gpMissing ? 'multivariate-tpe' : 'gp',
};

interface Job {
  readonly sampler: string;
  readonly problem: string;
  readonly cell: string;
  readonly budget: number;
  readonly seed: number;
}
const oursPath = (j: Job) => join(CACHE, 'ours', j.sampler, `${j.problem}-b${j.budget}-s${j.seed}.json`);
const theirsPath = (j: Job) =>
  join(CACHE, 'optuna5', REFERENCE[j.sampler]!, `${j.problem}-b${j.budget}-s${j.seed}.json`);

const jobs: Job[] = samplers.flatMap((sampler) =>
  functions.flatMap((f) =>
    dims.flatMap((d) =>
      [...budgets, ...(sampler === 'cmaes' && cmaesLonger ? [500] : [])].flatMap((budget) =>
        Array.from({ length: seeds }, (_, seed) => ({
          sampler,
          problem: `f${f}-d${d}-i${1 + (seed % 5)}`,
          cell: `f${f}-d${d}-b${budget}`,
          budget,
          seed,
        })),
      ),
    ),
  ),
);

const started = performance.now();
const write = (path: string, regrets: number[]) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify({ regrets }));
};
// Optuna's side runs in its own process while ours runs here: two cores, both busy.
const oursOnly = flags['ours-only'];
const missing = oursOnly ? [] : jobs.filter((j) => !existsSync(theirsPath(j)));
const theirs = missing.length ? optunaSide(missing) : Promise.resolve();
const everyTrial = (budget: number) => Array.from({ length: budget }, (_, i) => i + 1);
const rerun = list(flags.rerun);
for (const job of jobs.filter((j) => rerun.includes(j.sampler) || !existsSync(oursPath(j)))) {
  const result = await runLoop(
    inProcessTransport,
    job.sampler,
    problemByName(job.problem),
    job.seed,
    job.budget,
    1,
    everyTrial(job.budget),
  );
  write(oursPath(job), result.regrets);
  // The loop's awaits are microtasks; this lets the event loop see the Optuna process between runs.
  await new Promise(setImmediate);
}
await theirs;
if (oursOnly) {
  log(
    `bench:suite: ${jobs.length} of our runs in ${((performance.now() - started) / 1000).toFixed(0)} s (--ours-only: no report)`,
  );
  process.exit(0);
}

/** Optuna's runs, dealt round-robin to `--workers` Python processes (each with its evaluator). */
async function optunaSide(list: readonly Job[]): Promise<void> {
  const { python } = await pythonReady();
  mkdirSync(CACHE, { recursive: true });
  const workers = Math.max(1, Math.min(Number(flags.workers), list.length));
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      // Named by pid: two benches may share the cache (each run writes only its own file).
      const listFile = join(CACHE, `optuna-jobs-${process.pid}-${w}.json`);
      const mine = list.filter((_, i) => i % workers === w);
      writeFileSync(
        listFile,
        JSON.stringify(
          mine.map((j) => ({
            sampler: REFERENCE[j.sampler],
            problem: j.problem,
            parameters: problemByName(j.problem).parameters,
            budget: j.budget,
            seed: j.seed,
            out: theirsPath(j),
          })),
        ),
      );
      const child = spawn(python, ['bench/suite/optuna5-suite.py', listFile], {
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      const [code] = (await once(child, 'exit')) as [number | null];
      rmSync(listFile, { force: true });
      if (code !== 0)
        throw new Error(`bench:suite: the Optuna side (bench/suite/optuna5-suite.py) exited with ${code}`);
    }),
  );
}

const trajectory = (path: string) =>
  (JSON.parse(readFileSync(path, 'utf8')) as { regrets: number[] }).regrets;
const finalRegret = (path: string) => trajectory(path).at(-1)!;
const runs: Run[] = jobs.map((j) => ({
  sampler: j.sampler,
  cell: j.cell,
  seed: j.seed,
  ours: finalRegret(oursPath(j)),
  theirs: finalRegret(theirsPath(j)),
}));
const lines = reportLines(summarize(runs), REFERENCE);
const ran = `${jobs.length} runs per side (${missing.length} of Optuna's not cached) in ${((performance.now() - started) / 1000).toFixed(0)} s, load average ${loadavg()[0]!.toFixed(1)} at the end`;
const gpNote = gpMissing ? [`bayesianoptimization meets TPESampler(multivariate=True): ${gpMissing}.`] : [];
process.stdout.write(`${[...lines, '', ...gpNote, ran].join('\n')}\n`);
writeFileSync(join(CACHE, 'report.md'), `${[...lines, '', ...gpNote].join('\n')}\n`);
// The ECDF of each sampler's runs at its largest budget (a run's prefix is not a smaller budget's run).
const panels = samplers.map((sampler) => {
  const mine = jobs.filter((j) => j.sampler === sampler);
  const largest = Math.max(...mine.map((j) => j.budget));
  const chosen = mine.filter((j) => j.budget === largest);
  const dimsOf = (j: Job) => Number(/-d(\d+)-/.exec(j.problem)![1]);
  return {
    sampler,
    ours: chosen.map((j) => ({ dims: dimsOf(j), regrets: trajectory(oursPath(j)) })),
    theirs: chosen.map((j) => ({ dims: dimsOf(j), regrets: trajectory(theirsPath(j)) })),
  };
});
writeFileSync(flags.svg ?? join(CACHE, 'ecdf.svg'), ecdfSvg(panels));
