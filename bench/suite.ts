// bench:suite: every sampler on the BBOB suite (bench/suite/bbob) against Optuna 5.0's matching
// sampler, in process, regret = best f − f_opt after the budget. Seed s runs instance 1 + s % 5 on
// both sides. Each run is cached under .bench-tools/suite-cache/, so a rerun resumes.
// Flags: --functions 1,2,… (add m for the mixed variant: 1m,10m,15m) --dims 2,5,10 --budgets 50,200
// --seeds N --samplers a,b --svg FILE (the ECDF picture; docs/sampler-suite-ecdf.svg for the note) --quick (f1,f8,f15,f21 in 2-D, budget 50, 3 seeds, random and tpe).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { runLoop } from './suggest/driver.ts';
import { inProcessTransport } from './suggest/transports.ts';
import { ecdfSvg } from './suite/ecdf.ts';
import { problemByName } from './suite/problems.ts';
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
    python: { type: 'string', default: '.bench-tools/suite-venv/bin/python' },
    svg: { type: 'string', default: '.bench-tools/suite-cache/ecdf.svg' },
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

const hasGp = (() => {
  try {
    execFileSync(flags.python, ['-c', 'import torch, scipy'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
/** Optuna 5.0's matching sampler; GPSampler only where torch and scipy are installed. */
const REFERENCE: Record<string, string> = {
  random: 'random',
  tpe: 'tpe',
  'multivariate-tpe': 'multivariate-tpe',
  cmaes: 'cmaes',
  bayesianoptimization: hasGp ? 'gp' : 'multivariate-tpe',
};

interface Job {
  readonly sampler: string;
  readonly problem: string;
  readonly cell: string;
  readonly budget: number;
  readonly seed: number;
}
const CACHE = '.bench-tools/suite-cache';
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
const everyTrial = (budget: number) => Array.from({ length: budget }, (_, i) => i + 1);
for (const job of jobs.filter((j) => !existsSync(oursPath(j)))) {
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
}
const missing = jobs.filter((j) => !existsSync(theirsPath(j)));
if (missing.length) {
  const listFile = join(CACHE, 'optuna-jobs.json');
  writeFileSync(
    listFile,
    JSON.stringify(
      missing.map((j) => ({
        sampler: REFERENCE[j.sampler],
        problem: j.problem,
        parameters: problemByName(j.problem).parameters,
        budget: j.budget,
        seed: j.seed,
        out: theirsPath(j),
      })),
    ),
  );
  execFileSync(flags.python, ['bench/suite/optuna5-suite.py', listFile], {
    stdio: ['ignore', 'inherit', 'ignore'],
  });
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
process.stdout.write(`${lines.join('\n')}\n`);
process.stdout.write(
  `\n${jobs.length} runs per side in ${((performance.now() - started) / 1000).toFixed(0)} s (cached runs are not rerun)\n`,
);
writeFileSync(join(CACHE, 'report.md'), `${lines.join('\n')}\n`);
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
writeFileSync(flags.svg, ecdfSvg(panels));
