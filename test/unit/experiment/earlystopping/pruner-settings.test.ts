import { describe, expect, it } from 'vitest';
import { readAlgorithmSpec } from '../../../../services/experiment/earlystopping/algorithms.ts';

const read = (algorithmName: string, settings: Record<string, string> = {}) =>
  readAlgorithmSpec({
    algorithmName,
    settings: Object.entries(settings).map(([name, value]) => ({ name, value })),
  });

const INT = 'an integer from 0 to 2147483647';
const INT1 = 'an integer from 1 to 2147483647';
const INT2 = 'an integer from 2 to 2147483647';

describe('pruner settings: names and defaults as Optuna', () => {
  it.each([
    [
      'percentile',
      { percentile: '25' },
      { percentile: 25, nStartupTrials: 5, nWarmupSteps: 0, intervalSteps: 1, nMinTrials: 1 },
    ],
    [
      'successivehalving',
      {},
      { minResource: 'auto', reductionFactor: 4, minEarlyStoppingRate: 0, bootstrapCount: 0 },
    ],
    ['hyperband', {}, { minResource: 1, maxResource: 'auto', reductionFactor: 3, bootstrapCount: 0 }],
    ['threshold', { upper: '2' }, { lower: -Infinity, upper: 2, nWarmupSteps: 0, intervalSteps: 1 }],
    ['threshold', { lower: '-1.5' }, { lower: -1.5, upper: Infinity, nWarmupSteps: 0, intervalSteps: 1 }],
    ['patient', { patience: '3' }, { patience: 3, minDelta: 0, wrapped: '' }],
    ['wilcoxon', {}, { pThreshold: 0.1, nStartupSteps: 2 }],
  ])('%s %j reads as its defaults', (algorithm, settings, expected) => {
    expect(read(algorithm, settings)).toMatchObject({ algorithm, settings: expected });
  });

  it('reads every setting given, a later repeat winning, `auto` where Optuna allows it', () => {
    expect(
      read('percentile', {
        percentile: '12.5',
        n_startup_trials: '0',
        n_warmup_steps: '10',
        interval_steps: '5',
        n_min_trials: '3',
      }),
    ).toMatchObject({
      settings: { percentile: 12.5, nStartupTrials: 0, nWarmupSteps: 10, intervalSteps: 5, nMinTrials: 3 },
    });
    expect(
      readAlgorithmSpec({
        algorithmName: 'successivehalving',
        settings: [
          { name: 'min_resource', value: '2' },
          { name: 'min_resource', value: 'auto' },
          { name: 'reduction_factor', value: '3' },
          { name: 'min_early_stopping_rate', value: '1' },
        ],
      }),
    ).toMatchObject({ settings: { minResource: 'auto', reductionFactor: 3, minEarlyStoppingRate: 1 } });
    expect(
      read('hyperband', {
        min_resource: '2',
        max_resource: '50',
        reduction_factor: '2',
        bootstrap_count: '1',
      }),
    ).toMatchObject({ settings: { minResource: 2, maxResource: 50, reductionFactor: 2, bootstrapCount: 1 } });
    expect(read('wilcoxon', { p_threshold: '0.05', n_startup_steps: '0' })).toMatchObject({
      settings: { pThreshold: 0.05, nStartupSteps: 0 },
    });
  });

  it('patient wraps another pruner: its own settings and the wrapped pruner’s side by side', () => {
    expect(
      read('patient', { patience: '2', min_delta: '0.01', wrapped: 'percentile', percentile: '50' }),
    ).toEqual({
      algorithm: 'patient',
      settings: { patience: 2, minDelta: 0.01, wrapped: 'percentile' },
      wrapped: {
        algorithm: 'percentile',
        settings: { percentile: 50, nStartupTrials: 5, nWarmupSteps: 0, intervalSteps: 1, nMinTrials: 1 },
      },
    });
    expect(read('patient', { patience: '0' })).toMatchObject({ wrapped: undefined });
  });
});

describe('pruner settings: every refusal names the setting, the value and what is allowed', () => {
  it.each([
    ['percentile', {}, `setting percentile for algorithm percentile is required: a number from 0 to 100`],
    [
      'percentile',
      { percentile: '100.5' },
      'percentile(100.5) for algorithm percentile must be a number from 0 to 100',
    ],
    [
      'percentile',
      { percentile: '-1' },
      'percentile(-1) for algorithm percentile must be a number from 0 to 100',
    ],
    [
      'percentile',
      { percentile: 'nan' },
      'percentile(nan) for algorithm percentile must be a number from 0 to 100',
    ],
    [
      'percentile',
      { percentile: 'x' },
      'percentile(x) for algorithm percentile must be a number from 0 to 100',
    ],
    [
      'percentile',
      { percentile: '5', n_startup_trials: '-1' },
      `n_startup_trials(-1) for algorithm percentile must be ${INT}`,
    ],
    [
      'percentile',
      { percentile: '5', n_warmup_steps: '1.5' },
      `n_warmup_steps(1.5) for algorithm percentile must be ${INT}`,
    ],
    [
      'percentile',
      { percentile: '5', interval_steps: '0' },
      `interval_steps(0) for algorithm percentile must be ${INT1}`,
    ],
    [
      'percentile',
      { percentile: '5', n_min_trials: '0' },
      `n_min_trials(0) for algorithm percentile must be ${INT1}`,
    ],
    [
      'percentile',
      { percentile: '5', patience: '1' },
      'unknown setting patience for algorithm percentile (known: percentile, n_startup_trials, n_warmup_steps, interval_steps, n_min_trials)',
    ],
    [
      'successivehalving',
      { min_resource: '0' },
      `min_resource(0) for algorithm successivehalving must be ${INT1}, or auto`,
    ],
    [
      'successivehalving',
      { min_resource: 'Auto' },
      `min_resource(Auto) for algorithm successivehalving must be ${INT1}, or auto`,
    ],
    [
      'successivehalving',
      { reduction_factor: '1' },
      `reduction_factor(1) for algorithm successivehalving must be ${INT2}`,
    ],
    [
      'successivehalving',
      { min_early_stopping_rate: '-1' },
      `min_early_stopping_rate(-1) for algorithm successivehalving must be ${INT}`,
    ],
    [
      'successivehalving',
      { min_resource: '1', bootstrap_count: '-2' },
      `bootstrap_count(-2) for algorithm successivehalving must be ${INT}`,
    ],
    [
      'successivehalving',
      { bootstrap_count: '2' },
      'bootstrap_count(2) for algorithm successivehalving must be 0 while min_resource is auto',
    ],
    [
      'successivehalving',
      { reduction_factor: '2147483648' },
      `reduction_factor(2147483648) for algorithm successivehalving must be ${INT2}`,
    ],
    ['hyperband', { min_resource: 'auto' }, `min_resource(auto) for algorithm hyperband must be ${INT1}`],
    ['hyperband', { max_resource: '0' }, `max_resource(0) for algorithm hyperband must be ${INT1}, or auto`],
    [
      'hyperband',
      { min_resource: '10', max_resource: '9' },
      'max_resource(9) for algorithm hyperband must be at least min_resource (10), or auto',
    ],
    ['hyperband', { reduction_factor: '1' }, `reduction_factor(1) for algorithm hyperband must be ${INT2}`],
    [
      'hyperband',
      { bootstrap_count: '1' },
      'bootstrap_count(1) for algorithm hyperband must be 0 while max_resource is auto',
    ],
    ['threshold', {}, 'algorithm threshold needs lower or upper (a finite number), or both'],
    ['threshold', { lower: 'inf' }, 'lower(inf) for algorithm threshold must be a finite number'],
    ['threshold', { upper: 'high' }, 'upper(high) for algorithm threshold must be a finite number'],
    ['threshold', { lower: '2', upper: '1' }, 'lower(2) for algorithm threshold must be at most upper (1)'],
    [
      'threshold',
      { upper: '1', n_warmup_steps: '-1' },
      `n_warmup_steps(-1) for algorithm threshold must be ${INT}`,
    ],
    [
      'threshold',
      { upper: '1', interval_steps: '0' },
      `interval_steps(0) for algorithm threshold must be ${INT1}`,
    ],
    ['patient', {}, `setting patience for algorithm patient is required: ${INT}`],
    ['patient', { patience: '-1' }, `patience(-1) for algorithm patient must be ${INT}`],
    [
      'patient',
      { patience: '1', min_delta: '-0.1' },
      'min_delta(-0.1) for algorithm patient must be a finite number >= 0',
    ],
    [
      'patient',
      { patience: '1', wrapped: 'medianstop' },
      'wrapped(medianstop) for algorithm patient must be one of percentile, successivehalving, hyperband, threshold, wilcoxon, or empty for none',
    ],
    [
      'patient',
      { patience: '1', wrapped: 'patient' },
      'wrapped(patient) for algorithm patient must be one of percentile, successivehalving, hyperband, threshold, wilcoxon, or empty for none',
    ],
    [
      'patient',
      { patience: '1', percentile: '20' },
      'unknown setting percentile for algorithm patient (known: patience, min_delta, wrapped)',
    ],
    [
      'patient',
      { patience: '1', wrapped: 'percentile', percentile: '120' },
      'percentile(120) for algorithm patient (wrapping percentile) must be a number from 0 to 100',
    ],
    [
      'patient',
      { patience: '1', wrapped: 'threshold', reduction_factor: '3' },
      'unknown setting reduction_factor for algorithm patient (known: patience, min_delta, wrapped, lower, upper, n_warmup_steps, interval_steps)',
    ],
    [
      'wilcoxon',
      { p_threshold: '1.5' },
      'p_threshold(1.5) for algorithm wilcoxon must be a number from 0 to 1',
    ],
    ['wilcoxon', { n_startup_steps: '-3' }, `n_startup_steps(-3) for algorithm wilcoxon must be ${INT}`],
    ['asha', {}, 'unknown algorithm name asha'],
  ])('%s %j: %s', (algorithm, settings, message) => {
    expect(() => read(algorithm, settings)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message }),
    );
  });
});
