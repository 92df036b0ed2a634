// The importance part of bench:multi-objective: problems where some parameters do nothing, the
// same trials (drawn at random in the search space, seeded) given to our fANOVA
// (services/experiment/suggestion/importance/) and to Optuna 5.0's get_param_importances with
// FanovaImportanceEvaluator(seed=0); the rank correlation of the two rankings, whether the inert
// parameters rank last on our side, and the time of one computation on each side.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ParameterSpec__Output } from '../../proto/gen/api/v1/beta1/ParameterSpec.ts';
import { fanovaImportances } from '../../services/experiment/suggestion/importance/fanova.ts';
import { formatValue, toDimensions } from '../../services/experiment/suggestion/katib-space.ts';
import { createRng } from '../../services/experiment/suggestion/rng.ts';
import type { Dimension, Point } from '../../services/experiment/suggestion/space.ts';
import { fromUnit } from '../../services/experiment/suggestion/values.ts';
import type { ParameterSpec } from '../suggest/problems.ts';
import { fmt } from '../suggest/report.ts';

interface ImportanceProblem {
  readonly name: string;
  readonly parameters: readonly ParameterSpec[];
  readonly inert: readonly string[];
  evaluate(p: Readonly<Record<string, number | string>>): number;
}

const double = (name: string, min: number, max: number, log = false): ParameterSpec => ({
  name,
  parameterType: 'DOUBLE',
  feasibleSpace: { min: String(min), max: String(max), ...(log ? { distribution: 'LOG_UNIFORM' } : {}) },
});
const n = (v: number | string | undefined) => Number(v);

const OPTIMIZER_PENALTY: Readonly<Record<string, number>> = { adam: 0, rmsprop: 0.4, sgd: 1.2 };

export const IMPORTANCE_PROBLEMS: readonly ImportanceProblem[] = [
  {
    // Additive effects of falling size on x1..x4; x5 and x6 do nothing.
    name: 'graded6',
    parameters: ['x1', 'x2', 'x3', 'x4', 'x5', 'x6'].map((name) => double(name, 0, 1)),
    inert: ['x5', 'x6'],
    evaluate: (p) =>
      8 * (n(p.x1) - 0.3) ** 2 + 2 * Math.sin(3 * n(p.x2)) + 0.8 * n(p.x3) + 0.3 * n(p.x4) ** 2,
  },
  {
    // A training-run shape: log learning rate, integer depth, a categorical optimizer, and an
    // interaction of depth with dropout; momentum and warmup do nothing.
    name: 'mixed6',
    parameters: [
      double('lr', 1e-5, 1, true),
      { name: 'layers', parameterType: 'INT', feasibleSpace: { min: '1', max: '8' } },
      {
        name: 'optimizer',
        parameterType: 'CATEGORICAL',
        feasibleSpace: { list: ['sgd', 'adam', 'rmsprop'] },
      },
      double('dropout', 0, 0.8),
      double('momentum', 0, 0.99),
      { name: 'warmup', parameterType: 'INT', feasibleSpace: { min: '0', max: '10' } },
    ],
    inert: ['momentum', 'warmup'],
    evaluate: (p) =>
      (Math.log10(n(p.lr)) + 3) ** 2 / 4 +
      OPTIMIZER_PENALTY[String(p.optimizer)]! +
      0.5 * ((n(p.layers) - 4) / 4) ** 2 +
      0.3 * n(p.dropout) * (n(p.layers) / 8),
  },
];

const toProto = (spec: ParameterSpec): ParameterSpec__Output => ({
  name: spec.name,
  parameter_type: spec.parameterType,
  feasible_space: {
    min: spec.feasibleSpace.min ?? '',
    max: spec.feasibleSpace.max ?? '',
    list: [...(spec.feasibleSpace.list ?? [])],
    step: '',
    distribution: spec.feasibleSpace.distribution ?? 'DISTRIBUTION_UNSPECIFIED',
  },
});

/** `count` points drawn uniformly on the samplers' scale (log for LOG_UNIFORM), seeded. */
function randomTrials(
  dimensions: readonly Dimension[],
  problem: ImportanceProblem,
  count: number,
  seed: number,
) {
  const rng = createRng(seed);
  return Array.from({ length: count }, () => {
    const point: Point = dimensions.map((d) => fromUnit(d, rng.next()));
    // What Optuna's trial holds: numbers as numbers (INT whole), choices as strings.
    const params = Object.fromEntries(
      dimensions.map((d, i) => [
        d.name,
        d.kind === 'categorical' ? String(point[i]) : Number(formatValue(d, point[i]!)),
      ]),
    );
    return { point, params, value: problem.evaluate(params) };
  });
}

/** Spearman's rank correlation (average ranks for ties). */
export function spearman(a: readonly number[], b: readonly number[]): number {
  const ranks = (v: readonly number[]) => {
    const order = [...v.keys()].sort((i, j) => v[i]! - v[j]!);
    const r = new Array<number>(v.length);
    for (let s = 0; s < order.length; ) {
      let e = s;
      while (e + 1 < order.length && v[order[e + 1]!] === v[order[s]!]) e++;
      for (let k = s; k <= e; k++) r[order[k]!] = (s + e) / 2;
      s = e + 1;
    }
    return r;
  };
  const [ra, rb] = [ranks(a), ranks(b)];
  const mean = (v: number[]) => v.reduce((x, y) => x + y, 0) / v.length;
  const [ma, mb] = [mean(ra), mean(rb)];
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < a.length; i++) {
    num += (ra[i]! - ma) * (rb[i]! - mb);
    da += (ra[i]! - ma) ** 2;
    db += (rb[i]! - mb) ** 2;
  }
  return num / Math.sqrt(da * db);
}

/** Trial counts compared with Optuna, and the seeds of each (fewer where Optuna takes minutes). */
const COMPARED: readonly (readonly [number, readonly number[]])[] = [
  [200, [0, 1, 2]],
  [1_000, [0, 1]],
];
/**
 * Timed on our side only: Optuna's fANOVA took minutes per computation at 1,000 trials here (its
 * trees' marginals are computed in Python), so 10,000 would take most of an hour per case.
 */
const OURS_ONLY = 10_000;

/** The report's lines; `runOptuna` runs the jobs (each writes its `out`). */
export async function importanceReport(
  runOptuna: (jobs: readonly { out: string }[]) => Promise<void>,
  cache: string,
  log: (line: string) => void,
): Promise<string[]> {
  const cases = IMPORTANCE_PROBLEMS.flatMap((problem) => [
    ...COMPARED.flatMap(([size, seeds]) => seeds.map((seed) => ({ problem, size, seed, optuna: true }))),
    { problem, size: OURS_ONLY, seed: 0, optuna: false },
  ]);
  const prepared = cases.map((c) => {
    const dimensions = toDimensions(c.problem.parameters.map(toProto));
    const trials = randomTrials(dimensions, c.problem, c.size, 1000 + c.seed);
    return {
      ...c,
      dimensions,
      trials,
      out: join(cache, 'importance', `${c.problem.name}-n${c.size}-s${c.seed}.json`),
    };
  });
  // Optuna's results are cached like its runs: the trials are the same on every run.
  const optuna = runOptuna(
    prepared
      .filter((c) => !existsSync(c.out))
      .map((c) => ({
        kind: 'importance',
        parameters: c.problem.parameters,
        trials: c.trials.map((t) => ({ params: t.params, value: t.value })),
        out: c.out,
      })),
  );
  const ours = prepared.map((c) => {
    const started = performance.now();
    const importances = fanovaImportances(c.dimensions, c.trials);
    return { importances, seconds: (performance.now() - started) / 1000 };
  });
  await optuna;
  log('importance: both sides done');
  const lines = [
    "Importance: our fANOVA against Optuna 5.0's FanovaImportanceEvaluator(seed=0), the same random trials",
    '',
    '| problem | trials | seed | Spearman | inert last (ours / Optuna) | our inert share | ours s | Optuna s (wall) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  prepared.forEach((c, i) => {
    const mine = ours[i]!.importances;
    const names = mine.map((m) => m.name);
    const theirs = c.optuna
      ? (JSON.parse(readFileSync(c.out, 'utf8')) as { importances: Record<string, number>; seconds: number })
      : undefined;
    const rho = theirs
      ? spearman(
          mine.map((m) => m.importance),
          names.map((name) => theirs.importances[name]!),
        ).toFixed(3)
      : '-';
    const inertLast = (value: (name: string) => number) => {
      const active = names.filter((name) => !c.problem.inert.includes(name));
      return Math.max(...c.problem.inert.map(value)) < Math.min(...active.map(value));
    };
    const ourValue = (name: string) => mine.find((m) => m.name === name)!.importance;
    const inertShare = c.problem.inert.reduce((sum, name) => sum + ourValue(name), 0);
    lines.push(
      `| ${c.problem.name} | ${c.size} | ${c.seed} | ${rho} | ${inertLast(ourValue) ? 'yes' : '**no**'} / ${theirs ? (inertLast((name) => theirs.importances[name]!) ? 'yes' : 'no') : '-'} | ${fmt(inertShare)} | ${ours[i]!.seconds.toFixed(2)} | ${theirs ? theirs.seconds.toFixed(1) : 'not run'} |`,
    );
  });
  return lines;
}
