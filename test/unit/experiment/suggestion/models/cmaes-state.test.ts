import { describe, expect, it } from 'vitest';
import {
  covarianceRate,
  createEs,
  defaultPopulation,
} from '../../../../../services/experiment/suggestion/models/cmaes-state.ts';

const es = (n: number, lambda: number, active: boolean) =>
  createEs(n, lambda, new Float64Array(n), 0.3, active);
const hansen = (n: number, muEff: number) => (2 * (muEff - 2 + 1 / muEff)) / ((n + 2) ** 2 + muEff);

describe('cmaes rank-μ rate', () => {
  it('gives an active run of 3 to 9 axes below the default population the default’s rate per evaluation', () => {
    for (const n of [3, 5, 9]) {
      const standard = defaultPopulation(n);
      const own = es(n, 5, true).constants.cmu;
      const perGenerationOfDefault = es(n, standard, true).constants.cmu;
      expect(own).toBeCloseTo((perGenerationOfDefault * 5) / standard, 12);
      // Larger than the rate its own five would give, which the greedy run keeps.
      expect(own).toBeGreaterThan(es(n, 5, false).constants.cmu);
    }
    // The figure the change was judged with on BBOB (5-D: 0.0101 with its own five, 0.0239 now).
    expect(es(5, 5, true).constants.cmu).toBeCloseTo(0.0239, 4);
  });

  it('keeps Hansen’s rate in 2-D and from 10-D, for greedy runs and for populations at or above the default', () => {
    for (const [n, lambda, active] of [
      [2, 5, true],
      [10, 5, true],
      [20, 5, true],
      [5, 5, false],
      [5, 8, true],
      [5, 20, true],
      [10, 40, true],
    ] as const) {
      const { cmu, c1, muEff } = es(n, lambda, active).constants;
      expect(cmu).toBe(Math.min(1 - c1, hansen(n, muEff)));
    }
    expect(es(10, 5, true).constants.cmu).toBeCloseTo(0.0035, 4);
  });

  it('gives an active 2-D run the default’s rate per evaluation only once it has narrowed to a tenth of σ0', () => {
    const run = es(2, 5, true);
    const { cmu, cmuNarrowed } = run.constants;
    expect(cmuNarrowed).toBeCloseTo((es(2, defaultPopulation(2), true).constants.cmu * 5) / 6, 12);
    expect(cmuNarrowed).toBeGreaterThan(cmu);
    expect(covarianceRate(run)).toBe(cmu);
    run.sigma = 0.3 / 10.1;
    expect(covarianceRate(run)).toBe(cmuNarrowed);
    // The widest axis counts: a narrow σ with one long axis of C has not narrowed.
    run.scales = Float64Array.of(0.1, 2);
    expect(covarianceRate(run)).toBe(cmu);
    // Greedy 2-D runs and other dimensions never switch.
    for (const other of [es(2, 5, false), es(5, 5, true), es(10, 5, true)]) {
      other.sigma = 1e-6;
      expect(covarianceRate(other)).toBe(other.constants.cmu);
    }
  });
});
