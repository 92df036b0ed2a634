import { describe, expect, it } from 'vitest';
import { prunerStep, readPrunerSpec } from '../../../../services/experiment/earlystopping/pruners/pruner.ts';
import type { Direction } from '../../../../services/experiment/earlystopping/pruners/types.ts';
import { stepInput } from './step-input.ts';

const spec = (algorithm: string, given: Record<string, string>) =>
  readPrunerSpec(
    algorithm,
    Object.entries(given).map(([name, value]) => ({ name, value })),
  )!;

/** The verdict at each step of a curve, judged one step after the other. */
const stops = (
  algorithm: string,
  given: Record<string, string>,
  values: number[],
  direction: Direction = 'MINIMIZE',
) =>
  values.map(
    (_, i) => prunerStep(spec(algorithm, given), stepInput(values.slice(0, i + 1), { direction }), 0).stop,
  );

describe('threshold', () => {
  it('stops at a latest value below lower or above upper, in either direction; a value on a bound goes on', () => {
    expect(stops('threshold', { lower: '0', upper: '1' }, [0.5, 1, 0, 1.01])).toEqual([
      false,
      false,
      false,
      true,
    ]);
    expect(stops('threshold', { lower: '0' }, [0.5, -0.01], 'MAXIMIZE')).toEqual([false, true]);
    expect(stops('threshold', { upper: '1' }, [0.5, 2], 'MAXIMIZE')).toEqual([false, true]);
    const verdict = prunerStep(spec('threshold', { upper: '1' }), stepInput([3]), 0);
    expect(verdict.evidence).toBe('value 3 at step 1 is above upper 1');
    expect(prunerStep(spec('threshold', { lower: '1' }), stepInput([0]), 0).evidence).toBe(
      'value 0 at step 1 is below lower 1',
    );
  });

  it('judges the latest value only at checkpoints: from n_warmup_steps, every interval_steps', () => {
    expect(
      stops('threshold', { upper: '1', n_warmup_steps: '2', interval_steps: '2' }, [9, 9, 9, 9, 9]),
    ).toEqual([false, true, false, true, false]);
    expect(stops('threshold', { upper: '1', n_warmup_steps: '3' }, [9, 9, 0.5, 0.5])).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('patient', () => {
  it('stops once the best of the last patience+1 steps is worse than the best before them', () => {
    // patience 2: the last three steps against the ones before.
    expect(stops('patient', { patience: '2' }, [1, 0.5, 0.6, 0.7, 0.8])).toEqual([
      false,
      false,
      false,
      false,
      true,
    ]);
    const verdict = prunerStep(spec('patient', { patience: '2' }), stepInput([1, 0.5, 0.6, 0.7, 0.8]), 0);
    expect(verdict.evidence).toBe(
      'best value 0.6 of the last 3 steps (to step 5) is worse than 0.5 before them by more than min_delta 0',
    );
  });

  it('a plateau is not worse; min_delta forgives small setbacks; MAXIMIZE mirrors', () => {
    expect(stops('patient', { patience: '1' }, [1, 0.5, 0.5, 0.5])).toEqual([false, false, false, false]);
    expect(stops('patient', { patience: '1', min_delta: '0.1' }, [1, 0.5, 0.6, 0.6])).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(stops('patient', { patience: '1', min_delta: '0.1' }, [1, 0.5, 0.61, 0.7])).toEqual([
      false,
      false,
      false,
      true,
    ]);
    expect(stops('patient', { patience: '1' }, [0, 0.5, 0.4, 0.3], 'MAXIMIZE')).toEqual([
      false,
      false,
      false,
      true,
    ]);
  });

  it('with a wrapped pruner, stops only when that pruner agrees', () => {
    const wrapped = { patience: '1', wrapped: 'threshold', upper: '0.65' };
    expect(stops('patient', wrapped, [1, 0.5, 0.6, 0.6])).toEqual([false, false, false, false]);
    expect(stops('patient', wrapped, [1, 0.5, 0.6, 0.7])).toEqual([false, false, false, true]);
    expect(prunerStep(spec('patient', wrapped), stepInput([1, 0.5, 0.6, 0.7]), 0).evidence).toBe(
      'best value 0.6 of the last 2 steps (to step 4) is worse than 0.5 before them by more than min_delta 0, and threshold: value 0.7 at step 4 is above upper 0.65',
    );
    // Threshold alone would stop step 1: patience holds it back.
    expect(stops('patient', wrapped, [9])).toEqual([false]);
  });
});
