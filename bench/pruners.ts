// Pruner benchmark: our early-stopping algorithms (the code the service runs: the rules
// GetEarlyStoppingRules computes after every trial, the judge's tracker fed one report per step)
// against Optuna 5.0's matching pruners, on the same simulated learning curves (bench/pruners/
// simulator.ts) and seeds, with the same settings, trials one after another, and against no
// pruning. For each pruner: the steps all trials used (summed over the seeds) and the median over
// seeds of the final regret (the noiseless final loss of the trial that looked best, minus the
// best reachable). Also how many trials got the very same decision (stopped at the same step, or
// run to the end) from both. Optuna runs in a virtual environment under .bench-tools/.
import { int, readSettings } from '../shared/settings.ts';
import { ensureOptuna, type OptunaCase, runOptuna } from './pruners/optuna.ts';
import { type Run, runOurs } from './pruners/ours.ts';
import { optimum, type SimulatedTrial, STEPS, simulateExperiment } from './pruners/simulator.ts';

const settings = readSettings(
  {
    seeds: int('BENCH_SEEDS', 20, { min: 1, max: 100 }),
    trials: int('BENCH_TRIALS', 100, { min: 2, max: 1_000 }),
  },
  process.env,
);

interface Case {
  readonly label: string;
  readonly algorithm: string;
  readonly settings: readonly (readonly [string, string])[];
  /** Optuna's matching pruner with the same settings; none for Katib's medianstop. */
  readonly optuna?: Omit<OptunaCase, 'label'>;
}

const CASES: readonly Case[] = [
  {
    label: 'percentile',
    algorithm: 'percentile',
    settings: [
      ['percentile', '25'],
      ['n_warmup_steps', '10'],
    ],
    optuna: { class: 'PercentilePruner', kwargs: { percentile: 25, n_warmup_steps: 10 } },
  },
  {
    label: 'successivehalving (Optuna defaults)',
    algorithm: 'successivehalving',
    settings: [],
    optuna: { class: 'SuccessiveHalvingPruner', kwargs: {} },
  },
  {
    label: 'successivehalving',
    algorithm: 'successivehalving',
    settings: [
      ['min_resource', '10'],
      ['reduction_factor', '3'],
    ],
    optuna: { class: 'SuccessiveHalvingPruner', kwargs: { min_resource: 10, reduction_factor: 3 } },
  },
  {
    label: 'hyperband',
    algorithm: 'hyperband',
    settings: [
      ['min_resource', '10'],
      ['max_resource', String(STEPS)],
      ['reduction_factor', '3'],
    ],
    optuna: {
      class: 'HyperbandPruner',
      kwargs: { min_resource: 10, max_resource: STEPS, reduction_factor: 3 },
    },
  },
  {
    label: 'threshold',
    algorithm: 'threshold',
    settings: [
      ['upper', '2.5'],
      ['n_warmup_steps', '5'],
    ],
    optuna: { class: 'ThresholdPruner', kwargs: { upper: 2.5, n_warmup_steps: 5 } },
  },
  {
    label: 'patient',
    algorithm: 'patient',
    settings: [
      ['patience', '10'],
      ['min_delta', '0.05'],
    ],
    optuna: { class: 'PatientPruner', kwargs: { patience: 10, min_delta: 0.05 } },
  },
  {
    label: 'wilcoxon',
    algorithm: 'wilcoxon',
    settings: [],
    optuna: { class: 'WilcoxonPruner', kwargs: {} },
  },
  {
    label: 'medianstop (Katib)',
    algorithm: 'medianstop',
    settings: [],
  },
];

const log = (line: string) => process.stderr.write(`${line}\n`);
const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

const best = optimum();
const seeds = Array.from({ length: settings.seeds }, (_, seed) => ({
  study: `exp-seed${seed}`,
  trials: simulateExperiment(seed, settings.trials),
}));

/** The noiseless final loss of the completed trial with the best last value, minus the optimum. */
function regret(trials: readonly SimulatedTrial[], run: Run): number {
  let chosen: SimulatedTrial | undefined;
  trials.forEach((trial, i) => {
    if (!run.completed[i]) return;
    if (chosen === undefined || trial.values[STEPS - 1]! < chosen.values[STEPS - 1]!) chosen = trial;
  });
  return chosen === undefined ? Number.POSITIVE_INFINITY : chosen.trueFinal - best;
}

interface Figures {
  readonly steps: number;
  readonly regret: number;
  readonly seconds: number;
}

const figures = (runs: readonly (Run & { seconds: number })[]): Figures => ({
  steps: sum(runs.map((r) => sum(r.steps))),
  regret: median(runs.map((r, i) => regret(seeds[i]!.trials, r))),
  seconds: sum(runs.map((r) => r.seconds)),
});

await ensureOptuna(log);
/** How many trials both stopped at the same step, or both ran to the end. */
function agreement(mine: readonly Run[], theirs: readonly Run[]): string {
  let agree = 0;
  let total = 0;
  for (const [s, run] of mine.entries())
    for (const [i, steps] of run.steps.entries()) {
      total++;
      if (steps === theirs[s]!.steps[i] && run.completed[i] === theirs[s]!.completed[i]) agree++;
    }
  return `${agree}/${total}`;
}

const started = performance.now();
// Optuna runs in its own processes while ours runs here.
const withOptuna = CASES.filter((c) => c.optuna !== undefined);
const optunaRun = runOptuna(
  seeds.map((s) => ({ study: s.study, curves: s.trials.map((t) => t.values) })),
  withOptuna.map((c) => ({ label: c.label, ...c.optuna! })),
);
const ours = new Map<string, (Run & { seconds: number })[]>();
for (const c of CASES)
  ours.set(
    c.label,
    seeds.map((seed) => {
      const at = performance.now();
      const run = runOurs(
        c.algorithm,
        c.settings,
        seed.trials.map((t) => t.values),
        'exp',
        (i) => `${seed.study}_${i}`,
      );
      return { ...run, seconds: (performance.now() - at) / 1000 };
    }),
  );
log(`bench:pruners: ours done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
const optuna = await optunaRun;
log(`bench:pruners: Optuna ${optuna.version} done in ${((performance.now() - started) / 1000).toFixed(1)} s`);

const none = figures(
  seeds.map((s) => ({
    steps: s.trials.map(() => STEPS),
    completed: s.trials.map(() => true),
    seconds: 0,
  })),
);

const fmt = (x: number, digits = 4) => (Number.isFinite(x) ? x.toFixed(digits) : '—');
const lines = [
  `Pruners on simulated learning curves: ${settings.seeds} seeds × ${settings.trials} trials of random search × ${STEPS} steps, trials one after another; ours vs Optuna ${optuna.version} with the same settings.`,
  'Steps: all trials of all seeds. Regret: median over seeds of the noiseless final loss of the trial that looked best, minus the best reachable.',
  '',
  '| pruner | settings | steps ours | steps Optuna | regret ours | regret Optuna | same decisions | steps saved vs none | regret / none | seconds ours / Optuna | goal |',
  '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  `| no pruning | | ${none.steps} | ${none.steps} | ${fmt(none.regret)} | ${fmt(none.regret)} | | 1.0× | 1.00 | | |`,
];
const misses: string[] = [];
for (const c of CASES) {
  const our = figures(ours.get(c.label)!);
  const theirsRuns = optuna.results[c.label];
  const theirs = theirsRuns && figures(theirsRuns);
  const same = theirsRuns ? agreement(ours.get(c.label)!, theirsRuns) : '';
  const goals: string[] = [];
  if (theirs) {
    const met = our.steps <= theirs.steps && our.regret <= theirs.regret;
    goals.push(met ? 'vs Optuna: met' : 'vs Optuna: MISSED');
    if (!met) misses.push(`${c.label} vs Optuna`);
  }
  if (c.label === 'successivehalving') {
    const met = none.steps / our.steps >= 3 && our.regret <= 1.1 * none.regret;
    goals.push(met ? '≥3× fewer steps at ≤1.1× regret: met' : '≥3× fewer steps at ≤1.1× regret: MISSED');
    if (!met) misses.push('successivehalving vs no pruning');
  }
  const shown = c.settings.map(([n, v]) => `${n}=${v}`).join(', ') || 'defaults';
  lines.push(
    `| ${c.label} | ${shown} | ${our.steps} | ${theirs?.steps ?? '—'} | ${fmt(our.regret)} | ${theirs ? fmt(theirs.regret) : '—'} | ${same} | ${(none.steps / our.steps).toFixed(1)}× | ${(our.regret / none.regret).toFixed(2)} | ${fmt(our.seconds, 1)} / ${theirs ? fmt(theirs.seconds, 1) : '—'} | ${goals.join('; ')} |`,
  );
}
lines.push('');
lines.push(
  'Seconds: the whole simulated experiments (reports, pruning, and for ours the rules computed after every trial), on this machine.',
);
lines.push(misses.length === 0 ? 'Every goal met.' : `Missed: ${misses.join(', ')}.`);
process.stdout.write(`${lines.join('\n')}\n`);
