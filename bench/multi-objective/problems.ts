// The multi-objective test problems of bench:multi-objective, defined once: our samplers evaluate
// them here, and Optuna's side asks ./evaluate.ts for every value. Standard sizes: ZDT1 and ZDT2
// with 30 variables (Zitzler, Deb & Thiele 2000), DTLZ2 with three objectives and k = 10, so 12
// variables (Deb, Thiele, Laumanns & Zitzler 2002); every variable in [0, 1], every objective
// minimised. The reference point of each is fixed here and used for both sides' hypervolume.

import type { Assignment, ParameterSpec } from '../suggest/problems.ts';

export interface MultiObjectiveProblem {
  readonly name: string;
  readonly parameters: readonly ParameterSpec[];
  /** Metric names, the first being the experiment's objective. */
  readonly metrics: readonly string[];
  /** Beyond the worst value a sampler is likely to see in every objective, so early trials count too. */
  readonly reference: readonly number[];
  /** The hypervolume of the true front against `reference` (a ceiling, for scale). */
  readonly optimalHypervolume: number;
  evaluate(assignment: Assignment): number[];
}

const unitBox = (n: number, prefix: string): ParameterSpec[] =>
  Array.from({ length: n }, (_, i) => ({
    name: `${prefix}${i}`,
    parameterType: 'DOUBLE',
    feasibleSpace: { min: '0', max: '1' },
  }));

const values = (problem: { parameters: readonly ParameterSpec[] }, a: Assignment) =>
  problem.parameters.map((p) => Number(a[p.name]));

/** g of ZDT1 and ZDT2: 1 on the front (x1… all 0), up to 10. */
const zdtG = (x: readonly number[]) => 1 + (9 / (x.length - 1)) * x.slice(1).reduce((s, v) => s + v, 0);

function zdt(name: string, h: (f1: number, g: number) => number, optimalHypervolume: number) {
  const problem: MultiObjectiveProblem = {
    name,
    parameters: unitBox(30, 'x'),
    metrics: ['f1', 'f2'],
    reference: [1.1, 11],
    optimalHypervolume,
    evaluate(a) {
      const x = values(problem, a);
      const g = zdtG(x);
      return [x[0]!, g * h(x[0]!, g)];
    },
  };
  return problem;
}

// The true fronts' hypervolumes against (1.1, 11): the box beyond f1 = 1 (0.1 × 11) plus the area
// above each front over [0, 1] within f2 ≤ 11 (11 − ∫ front): ∫(1 − √f) = 1/3, ∫(1 − f²) = 2/3.
export const ZDT1 = zdt('zdt1', (f1, g) => 1 - Math.sqrt(f1 / g), 1.1 + (11 - 1 / 3));
export const ZDT2 = zdt('zdt2', (f1, g) => 1 - (f1 / g) ** 2, 1.1 + (11 - 2 / 3));

export const DTLZ2: MultiObjectiveProblem = {
  name: 'dtlz2',
  parameters: unitBox(12, 'y'),
  metrics: ['f1', 'f2', 'f3'],
  reference: [2.5, 2.5, 2.5],
  // The cube minus the sphere's octant: 2.5³ − π/6.
  optimalHypervolume: 2.5 ** 3 - Math.PI / 6,
  evaluate(a) {
    const x = values(DTLZ2, a);
    const g = x.slice(2).reduce((s, v) => s + (v - 0.5) ** 2, 0);
    const [u, v] = [(x[0]! * Math.PI) / 2, (x[1]! * Math.PI) / 2];
    return [(1 + g) * Math.cos(u) * Math.cos(v), (1 + g) * Math.cos(u) * Math.sin(v), (1 + g) * Math.sin(u)];
  },
};

export const MULTI_OBJECTIVE_PROBLEMS: readonly MultiObjectiveProblem[] = [ZDT1, ZDT2, DTLZ2];

export function multiObjectiveProblem(name: string): MultiObjectiveProblem {
  const problem = MULTI_OBJECTIVE_PROBLEMS.find((p) => p.name === name);
  if (problem === undefined) throw new Error(`unknown problem ${name}`);
  return problem;
}
