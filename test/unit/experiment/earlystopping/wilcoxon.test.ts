import { describe, expect, it } from 'vitest';
import {
  readWilcoxonSettings,
  wilcoxonStep,
} from '../../../../services/experiment/earlystopping/pruners/wilcoxon.ts';
import {
  normalCdf,
  wilcoxonSignedRankP,
} from '../../../../services/experiment/earlystopping/pruners/wilcoxon-test.ts';
import { stepInput } from './step-input.ts';

describe('the Wilcoxon signed-rank test (SciPy 1.17 wilcoxon, zero_method="zsplit")', () => {
  it.each([
    // No ties or zeros, n <= 50: the exact distribution.
    [[0.5, 0.4, 0.3, 0.2, 0.6, 0.7], 'greater', 0.015625],
    [[0.5, 0.4, 0.3, 0.2, 0.6, 0.7], 'less', 1],
    // Ties and a zero, n <= 13: every sign flip.
    [[1, 1, 2, -1, 0, 3], 'greater', 0.125],
    // Ties, n > 13: the normal approximation with the tie correction.
    [[...Array(14).fill(0.1), -0.05, -0.05], 'greater', 0.00013073084707131523],
    // n > 50: the normal approximation.
    [Array.from({ length: 60 }, (_, i) => -0.2 + (1.2 * i) / 59), 'greater', 1.5511590853145646e-9],
  ] as const)('%j %s: p = %d', (diffs, alternative, p) => {
    expect(wilcoxonSignedRankP(diffs, alternative)).toBeCloseTo(p, 14);
  });

  it('has an accurate normal distribution', () => {
    expect(normalCdf(0)).toBe(0.5);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 14);
    expect(normalCdf(-6)).toBeCloseTo(9.865876450376946e-10, 20);
  });
});

describe('wilcoxon: a running trial against the best succeeded trial', () => {
  const best = [1, 0.8, 0.6, 0.5, 0.45, 0.4, 0.38, 0.36];
  const reference = {
    succeededTrials: 3,
    succeededMaxSteps: best.length,
    steps: best.map((value, i) => ({ step: i + 1, value })),
  };
  const settings = (given: Record<string, string> = {}) =>
    readWilcoxonSettings(Object.entries(given).map(([name, value]) => ({ name, value })));
  const worse = best.map((v) => v + 0.1);

  it('stops a trial consistently worse, once the test is sure enough (p < p_threshold)', () => {
    // Five steps all worse: exact one-sided p = 1/32 = 0.03125.
    const verdict = wilcoxonStep(settings(), stepInput(worse.slice(0, 5), { reference }));
    expect(verdict.stop).toBe(true);
    expect(verdict.evidence).toMatch(
      /^values of steps 1 to 5 are worse than the best succeeded trial's at the same steps: Wilcoxon signed-rank p 0.03125 < p_threshold 0.1/,
    );
    // Three steps: p = 1/8, not below 0.1.
    expect(wilcoxonStep(settings(), stepInput(worse.slice(0, 3), { reference })).stop).toBe(false);
    expect(
      wilcoxonStep(settings({ p_threshold: '0.2' }), stepInput(worse.slice(0, 3), { reference })).stop,
    ).toBe(true);
  });

  it('waits for n_startup_steps paired steps (at least 2), and never stops without a succeeded trial', () => {
    expect(
      wilcoxonStep(
        settings({ n_startup_steps: '6', p_threshold: '1' }),
        stepInput(worse.slice(0, 5), { reference }),
      ).stop,
    ).toBe(false);
    expect(
      wilcoxonStep(settings({ n_startup_steps: '0', p_threshold: '1' }), stepInput([9], { reference })).stop,
    ).toBe(false);
    const none = { succeededTrials: 0, succeededMaxSteps: 0, steps: [] };
    expect(wilcoxonStep(settings({ p_threshold: '1' }), stepInput(worse, { reference: none })).stop).toBe(
      false,
    );
  });

  it('keeps a trial whose average is as good as the best trial’s (Optuna’s safeguard), and MAXIMIZE mirrors', () => {
    // Worse at each of the five first steps, but the best trial's whole-curve mean is worse still.
    const early = [0.3, 0.3, 0.3, 0.3, 0.3];
    const flat = {
      ...reference,
      steps: [0.2, 0.2, 0.2, 0.2, 0.2, 9, 9, 9].map((value, i) => ({ step: i + 1, value })),
    };
    expect(wilcoxonStep(settings(), stepInput(early, { reference: flat })).stop).toBe(false);
    const up = { ...reference, steps: [1, 2, 3, 4, 5].map((value, i) => ({ step: i + 1, value })) };
    expect(
      wilcoxonStep(settings(), stepInput([0.5, 1.5, 2.5, 3.5, 4.5], { reference: up, direction: 'MAXIMIZE' }))
        .stop,
    ).toBe(true);
    expect(
      wilcoxonStep(settings(), stepInput([1.5, 2.5, 3.5, 4.5, 5.5], { reference: up, direction: 'MAXIMIZE' }))
        .stop,
    ).toBe(false);
  });
});
