import { describe, expect, it } from 'vitest';
import {
  linearPercentile,
  percentileStep,
  percentileThresholds,
  readPercentileSettings,
} from '../../../../services/experiment/earlystopping/pruners/percentile.ts';
import { stepInput } from './step-input.ts';

const settings = (given: Record<string, string>) =>
  readPercentileSettings(
    Object.entries({ percentile: '25', ...given }).map(([name, value]) => ({ name, value })),
  );

describe('percentile: the thresholds from the succeeded curves', () => {
  it('interpolates as numpy.percentile does (ties included)', () => {
    expect(linearPercentile([1, 2, 3, 4], 25)).toBe(1.75);
    expect(linearPercentile([3, 1, 2], 25)).toBe(1.5);
    expect(linearPercentile([1, 1, 1, 2], 50)).toBe(1);
    expect(linearPercentile([1, 2, 3, 4], 75)).toBe(3.25);
    expect(linearPercentile([7], 25)).toBe(7);
  });

  it('gives a threshold at each checkpoint that enough succeeded curves reach; MAXIMIZE keeps the top', () => {
    const curves = [
      [1, 2, 3],
      [2, 3, 4],
      [3, 4, 5],
      [4, 5],
    ];
    expect(percentileThresholds(settings({}), 'MINIMIZE', curves, 100)).toEqual([
      { step: 1, value: 1.75 },
      { step: 2, value: 2.75 },
      { step: 3, value: 3.5 },
    ]);
    // Too few trials at step 3 (three of four reached it).
    expect(percentileThresholds(settings({ n_min_trials: '4' }), 'MINIMIZE', curves, 100)).toHaveLength(2);
    expect(percentileThresholds(settings({}), 'MAXIMIZE', curves, 100)[0]).toEqual({ step: 1, value: 3.25 });
    // Checkpoints from the warm-up on, every interval: 2 (and 5, 8, ... beyond these curves).
    expect(
      percentileThresholds(settings({ n_warmup_steps: '2', interval_steps: '3' }), 'MINIMIZE', curves, 100),
    ).toEqual([{ step: 2, value: 2.75 }]);
    expect(percentileThresholds(settings({}), 'MINIMIZE', curves, 2)).toHaveLength(2);
    expect(percentileThresholds(settings({}), 'MINIMIZE', [], 100)).toEqual([]);
  });
});

describe('percentile: one step of a running trial', () => {
  const reference = {
    succeededTrials: 5,
    succeededMaxSteps: 3,
    steps: [
      { step: 1, value: 1.75 },
      { step: 2, value: 2.75 },
    ],
  };

  it('stops a trial whose best so far is worse than the threshold at its step', () => {
    const verdict = percentileStep(settings({}), stepInput([3, 2.8], { reference }));
    expect(verdict.stop).toBe(true);
    expect(verdict.evidence).toBe(
      'best value 2.8 by step 2 is above 2.75, the 25th percentile (best first) of the 5 succeeded trials at that step',
    );
  });

  it('compares the best so far, strictly: a bad latest value or a tie does not stop', () => {
    expect(percentileStep(settings({}), stepInput([1, 9], { reference })).stop).toBe(false);
    expect(percentileStep(settings({}), stepInput([2.75, 2.75], { reference })).stop).toBe(false);
  });

  it('waits for n_startup_trials succeeded trials, and never judges where no threshold exists', () => {
    const few = { ...reference, succeededTrials: 4 };
    expect(percentileStep(settings({}), stepInput([9], { reference: few })).stop).toBe(false);
    expect(percentileStep(settings({ n_startup_trials: '0' }), stepInput([9], { reference: few })).stop).toBe(
      true,
    );
    // Step 3: no threshold (too few trials there); no succeeded trial at all.
    expect(percentileStep(settings({}), stepInput([0, 0, 9], { reference })).stop).toBe(false);
    const none = { succeededTrials: 0, succeededMaxSteps: 0, steps: [] };
    expect(
      percentileStep(settings({ n_startup_trials: '0' }), stepInput([9], { reference: none })).stop,
    ).toBe(false);
  });

  it('judges only at checkpoints (warm-up, then every interval)', () => {
    const s = settings({ n_warmup_steps: '2', interval_steps: '2' });
    const at = (step: number) => ({ step, value: 0 });
    const everywhere = { ...reference, steps: [at(1), at(2), at(3), at(4)] };
    const judged = [1, 2, 3, 4].map(
      (step) => percentileStep(s, stepInput([5, 5, 5, 5], { step, reference: everywhere })).stop,
    );
    expect(judged).toEqual([false, true, false, true]);
  });

  it('MAXIMIZE: stops a best so far below the threshold', () => {
    const high = { ...reference, steps: [{ step: 1, value: 0.8 }] };
    expect(
      percentileStep(settings({}), stepInput([0.7], { reference: high, direction: 'MAXIMIZE' })).stop,
    ).toBe(true);
    expect(
      percentileStep(settings({}), stepInput([0.8], { reference: high, direction: 'MAXIMIZE' })).stop,
    ).toBe(false);
  });
});
