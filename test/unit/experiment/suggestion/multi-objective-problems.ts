// ZDT1 and DTLZ2 experiments run as Katib's controller would run them, for the nsga2 tests.
import type { Experiment__Output } from '../../../../proto/gen/api/v1/beta1/Experiment.ts';
import type { Trial__Output } from '../../../../proto/gen/api/v1/beta1/Trial.ts';
import { ALGORITHMS } from '../../../../services/experiment/suggestion/registry.ts';
import { suggest } from '../../../../services/experiment/suggestion/suggest.ts';
import { assignmentsOf, double, experiment, request, trial } from './fixtures.ts';

const ZDT_VARIABLES = 10;
export const ZDT_SPACE = Array.from({ length: ZDT_VARIABLES }, (_, i) => double(`x${i}`, '0', '1'));

/** ZDT1 (Zitzler, Deb & Thiele 2000): a convex front f2 = 1 − √f1 where x1..x9 are 0. */
export function zdt1(x: readonly number[]): [number, number] {
  const f1 = x[0]!;
  const g = 1 + (9 / (x.length - 1)) * x.slice(1).reduce((sum, v) => sum + v, 0);
  return [f1, g * (1 - Math.sqrt(f1 / g))];
}

export function twoObjectiveExperiment(
  algorithm: string,
  settings: Record<string, string>,
): Experiment__Output {
  const exp = experiment({ algorithm, settings, parameters: ZDT_SPACE, type: 'MINIMIZE', metric: 'f1' });
  exp.spec!.objective!.additional_metric_names = ['f2'];
  return exp;
}

/** Runs an experiment as Katib's controller would: batches of `batch`, each trial reporting f1 and f2. */
export function runZdt1(exp: Experiment__Output, trialCount: number, batch: number): number[][] {
  const trials: Trial__Output[] = [];
  const losses: number[][] = [];
  while (trials.length < trialCount) {
    const { reply } = suggest(request(exp, trials, batch), ALGORITHMS);
    for (const set of assignmentsOf(reply)) {
      const [f1, f2] = zdt1(ZDT_SPACE.map((p) => Number(set[p.name])));
      losses.push([f1, f2]);
      trials.push(trial(`t${trials.length}`, set, 'SUCCEEDED', { f1: String(f1), f2: String(f2) }));
    }
  }
  return losses;
}

const DTLZ_VARIABLES = 7;
export const DTLZ_SPACE = Array.from({ length: DTLZ_VARIABLES }, (_, i) => double(`y${i}`, '0', '1'));

/** DTLZ2 (Deb, Thiele, Laumanns & Zitzler 2002), three objectives: the front is the unit sphere's octant. */
export function dtlz2(x: readonly number[]): [number, number, number] {
  const g = x.slice(2).reduce((sum, v) => sum + (v - 0.5) ** 2, 0);
  const [a, b] = [(x[0]! * Math.PI) / 2, (x[1]! * Math.PI) / 2];
  return [(1 + g) * Math.cos(a) * Math.cos(b), (1 + g) * Math.cos(a) * Math.sin(b), (1 + g) * Math.sin(a)];
}

/** A DTLZ2 experiment of three minimised objectives, run in batches; the objective vectors seen. */
export function runDtlz2(
  algorithm: string,
  settings: Record<string, string>,
  trialCount: number,
  batch: number,
) {
  const exp = experiment({ algorithm, settings, parameters: DTLZ_SPACE, type: 'MINIMIZE', metric: 'f1' });
  exp.spec!.objective!.additional_metric_names = ['f2', 'f3'];
  const trials: Trial__Output[] = [];
  const losses: number[][] = [];
  while (trials.length < trialCount) {
    const { reply } = suggest(request(exp, trials, batch), ALGORITHMS);
    for (const set of assignmentsOf(reply)) {
      const f = dtlz2(DTLZ_SPACE.map((p) => Number(set[p.name])));
      losses.push(f);
      const metrics = { f1: String(f[0]), f2: String(f[1]), f3: String(f[2]) };
      trials.push(trial(`t${trials.length}`, set, 'SUCCEEDED', metrics));
    }
  }
  return losses;
}
