// Every settings rule of reference §3.4 for the nine algorithms, with Katib's exact message.
import { describe, expect, it } from 'vitest';
import { toDimensions } from '../../../../services/experiment/suggestion/katib-space.ts';
import { readHyperbandSettings } from '../../../../services/experiment/suggestion/settings/hyperband.ts';
import {
  checkCmaesSpace,
  readBayesianOptimizationSettings,
  readCmaesSettings,
  readGridSettings,
  readMultivariateTpeSettings,
  readRandomSettings,
  readSobolSettings,
  readTpeSettings,
} from '../../../../services/experiment/suggestion/settings/katib-settings.ts';
import { readPbtSettings } from '../../../../services/experiment/suggestion/settings/pbt.ts';
import { AppError } from '../../../../shared/errors.ts';
import { categorical, double, int } from './fixtures.ts';

const READERS: Record<string, (s: ReadonlyMap<string, string>) => unknown> = {
  random: readRandomSettings,
  tpe: readTpeSettings,
  'multivariate-tpe': readMultivariateTpeSettings,
  cmaes: readCmaesSettings,
  grid: readGridSettings,
  sobol: readSobolSettings,
  bayesianoptimization: readBayesianOptimizationSettings,
  hyperband: readHyperbandSettings,
  pbt: readPbtSettings,
};

const read = (algorithm: string, settings: Record<string, string>) =>
  READERS[algorithm]!(new Map(Object.entries(settings)));

function rejection(algorithm: string, settings: Record<string, string>): AppError {
  try {
    read(algorithm, settings);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('INVALID_ARGUMENT');
    return error as AppError;
  }
  throw new Error(`${algorithm} accepted ${JSON.stringify(settings)}`);
}

// [algorithm, settings, Katib's message]
const REJECTED: [string, Record<string, string>, string][] = [
  // hyperopt (random, tpe)
  ['random', { random_state: '-1' }, 'random_state should be great or equal than zero'],
  ['random', { unknown_conf: '1' }, 'unknown setting unknown_conf for algorithm random'],
  [
    'random',
    { random_state: 'abc' },
    "failed to validate random_state(abc): invalid literal for int() with base 10: 'abc'",
  ],
  ['tpe', { gamma: '1.5' }, 'gamma should be in the range of (0, 1)'],
  ['tpe', { gamma: '0' }, 'gamma should be in the range of (0, 1)'],
  ['tpe', { prior_weight: '0' }, 'prior_weight should be great than zero'],
  [
    'tpe',
    { prior_weight: 'aaa' },
    "failed to validate prior_weight(aaa): could not convert string to float: 'aaa'",
  ],
  ['tpe', { n_EI_candidates: '0' }, 'n_EI_candidates should be great than zero'],
  [
    'tpe',
    { n_EI_candidates: '2.5' },
    "failed to validate n_EI_candidates(2.5): invalid literal for int() with base 10: '2.5'",
  ],
  ['tpe', { random_state: '-1' }, 'random_state should be great or equal than zero'],
  ['tpe', { n_startup_trials: '-1' }, 'n_startup_trials should be greate or equal than zero'],
  ['tpe', { n_ei_candidates: '-1' }, 'n_ei_candidates should be greate or equal than zero'],
  ['tpe', { n_ei_candidates: '0' }, 'n_ei_candidates should be great than zero'],
  ['tpe', { invalid: '1' }, 'unknown setting invalid for algorithm tpe'],
  // Optuna (multivariate-tpe, cmaes, grid)
  ['multivariate-tpe', { n_startup_trials: '-1' }, 'n_startup_trials should be greate or equal than zero'],
  ['multivariate-tpe', { n_ei_candidates: '-1' }, 'n_ei_candidates should be greate or equal than zero'],
  ['multivariate-tpe', { random_state: '-1' }, 'random_state should be greate or equal than zero'],
  ['multivariate-tpe', { invalid: '1' }, 'unknown setting invalid for algorithm multivariate-tpe'],
  [
    'cmaes',
    { restart_strategy: 'invalid' },
    'restart_strategy invalid is not supported in CMAES optimization',
  ],
  ['cmaes', { sigma: '-10' }, 'sigma should be greate or equal than zero'],
  ['cmaes', { sigma: '0' }, 'sigma should be great than zero'],
  ['cmaes', { sigma: 'x' }, "failed to validate sigma(x): could not convert string to float: 'x'"],
  ['cmaes', { random_state: '-20' }, 'random_state should be greate or equal than zero'],
  ['cmaes', { invalid: '1' }, 'unknown setting invalid for algorithm cmaes'],
  ['grid', { random_state: '-1' }, 'random_state should be greate or equal than zero'],
  ['grid', { invalid: '1' }, 'unknown setting invalid for algorithm grid'],
  // goptuna's sobol takes no settings; ours takes random_state and scramble
  ['sobol', { invalid: '1' }, 'unknown setting invalid for algorithm sobol'],
  ['sobol', { scramble: 'maybe' }, 'scramble maybe should be true or false'],
  ['sobol', { random_state: '-1' }, 'random_state should be greate or equal than zero'],
  // skopt
  [
    'bayesianoptimization',
    { base_estimator: 'unknown estimator' },
    'base_estimator unknown estimator is not supported in Bayesian optimization',
  ],
  ['bayesianoptimization', { n_initial_points: '-1' }, 'n_initial_points should be great or equal than zero'],
  [
    'bayesianoptimization',
    { acq_func: 'unknown' },
    'acq_func unknown is not supported in Bayesian optimization',
  ],
  [
    'bayesianoptimization',
    { acq_optimizer: 'unknown' },
    'acq_optimizer unknown is not supported in Bayesian optimization',
  ],
  ['bayesianoptimization', { random_state: '-1' }, 'random_state should be great or equal than zero'],
  [
    'bayesianoptimization',
    { unknown_conf: '1' },
    'unknown setting unknown_conf for algorithm bayesianoptimization',
  ],
  // hyperband
  ['hyperband', { resource_name: 'epochs' }, 'r_l and resource_name must be set.'],
  ['hyperband', { r_l: '9' }, 'r_l and resource_name must be set.'],
  ['hyperband', { r_l: 'abc', resource_name: 'epochs' }, 'r_l must be a positive float number.'],
  ['hyperband', { r_l: '-1', resource_name: 'epochs' }, 'r_l must be a positive float number.'],
  ['hyperband', { r_l: '0', resource_name: 'epochs' }, 'r_l must be a positive float number.'],
  [
    'hyperband',
    { r_l: '9', resource_name: 'epochs', eta: '1' },
    'eta must be an integer greater than or equal to 2.',
  ],
  [
    'hyperband',
    { r_l: '9', resource_name: 'epochs', eta: '0' },
    'eta must be an integer greater than or equal to 2.',
  ],
  [
    'hyperband',
    { r_l: '9', resource_name: 'epochs', eta: 'x' },
    "failed to validate eta(x): could not convert string to float: 'x'",
  ],
  [
    'hyperband',
    { r_l: '9', resource_name: 'epochs', current_s: 'x' },
    "failed to validate current_s(x): could not convert string to float: 'x'",
  ],
  [
    'hyperband',
    { r_l: '9', resource_name: 'epochs', other: '1' },
    'unknown setting other for algorithm hyperband',
  ],
  // pbt
  ['pbt', {}, 'Required params missing: suggestion_trial_dir, n_population, truncation_threshold'],
  ['pbt', { suggestion_trial_dir: '/d', n_population: '5' }, 'Required params missing: truncation_threshold'],
  [
    'pbt',
    { suggestion_trial_dir: '/d', n_population: '4', truncation_threshold: '0.2' },
    'Param(n_population) should be >= 5',
  ],
  [
    'pbt',
    { suggestion_trial_dir: '/d', n_population: 'x', truncation_threshold: '0.2' },
    "failed to validate n_population(x): invalid literal for int() with base 10: 'x'",
  ],
  [
    'pbt',
    { suggestion_trial_dir: '/d', n_population: '5', truncation_threshold: '1.5' },
    'Param(truncation_threshold) should be between 0 and 1, inclusive',
  ],
  [
    'pbt',
    { suggestion_trial_dir: '/d', n_population: '5', truncation_threshold: '-0.1' },
    'Param(truncation_threshold) should be between 0 and 1, inclusive',
  ],
  [
    'pbt',
    {
      suggestion_trial_dir: '/d',
      n_population: '5',
      truncation_threshold: '0.2',
      resample_probability: '1.5',
    },
    'Param(resample_probability) should be null to perturb at 0.8 or 1.2, or be between 0 and 1, inclusive, to resample',
  ],
  [
    'pbt',
    { suggestion_trial_dir: '/d', n_population: '5', truncation_threshold: '0.2', other: '1' },
    'unknown setting other for algorithm pbt',
  ],
];

describe('settings rules with Katib messages', () => {
  it.each(REJECTED)('%s %j → %s', (algorithm, settings, message) => {
    expect(rejection(algorithm, settings).message).toBe(message);
  });
});

// [algorithm, settings] Katib accepts (its own test vectors among them).
const ACCEPTED: [string, Record<string, string>][] = [
  ['random', {}],
  ['random', { random_state: '71' }],
  ['tpe', { random_state: '10', gamma: '0.25', prior_weight: '1.0', n_EI_candidates: '24' }],
  ['tpe', { n_startup_trials: '20', n_ei_candidates: '10', random_state: '71' }],
  ['multivariate-tpe', { n_startup_trials: '20', n_ei_candidates: '10', random_state: '71' }],
  ['cmaes', { restart_strategy: 'ipop', sigma: '2', random_state: '71' }],
  ['cmaes', { restart_strategy: 'bipop' }],
  ['cmaes', { restart_strategy: 'None' }],
  ['cmaes', { restart_strategy: 'none' }],
  ['grid', { random_state: '71' }],
  ['sobol', {}],
  ['sobol', { scramble: 'false' }],
  [
    'bayesianoptimization',
    {
      base_estimator: 'GP',
      n_initial_points: '0',
      acq_func: 'gp_hedge',
      acq_optimizer: 'auto',
      random_state: '10',
    },
  ],
  ['bayesianoptimization', { acq_func: 'LCB', base_estimator: 'RF' }],
  ['bayesianoptimization', { base_estimator: 'ET' }],
  ['bayesianoptimization', { base_estimator: 'GBRT', acq_func: 'EIps' }],
  ['bayesianoptimization', { acq_func: 'PIps' }],
  ['bayesianoptimization', { acq_func: 'EI', acq_optimizer: 'lbfgs' }],
  ['bayesianoptimization', { acq_func: 'PI', acq_optimizer: 'sampling' }],
  ['hyperband', { r_l: '10', resource_name: '--num-epochs' }],
  ['hyperband', { r_l: '9', resource_name: 'epochs', eta: '3' }],
  ['pbt', { suggestion_trial_dir: '/d', n_population: '5', truncation_threshold: '0.2' }],
  // Katib crashes on any resample_probability (it compares the text with 0); it is a number in [0, 1].
  [
    'pbt',
    {
      suggestion_trial_dir: '/d',
      n_population: '5',
      truncation_threshold: '0',
      resample_probability: '0.25',
    },
  ],
];

describe('settings Katib accepts', () => {
  it.each(ACCEPTED)('%s %j', (algorithm, settings) => {
    expect(() => read(algorithm, settings)).not.toThrow();
  });

  it('maps Katib names onto the samplers’ options', () => {
    expect(
      read('tpe', {
        gamma: '0.3',
        prior_weight: '2',
        n_EI_candidates: '12',
        n_startup_trials: '5',
        random_state: '3',
      }),
    ).toEqual({
      randomState: 3,
      gamma: 0.3,
      priorWeight: 2,
      nEiCandidates: 12,
      nStartupTrials: 5,
    });
    expect(read('tpe', { n_ei_candidates: '7' })).toMatchObject({ nEiCandidates: 7 });
    expect(read('cmaes', { restart_strategy: 'None', sigma: '0.5' })).toEqual({
      randomState: undefined,
      sigma: 0.5,
      restartStrategy: 'none',
    });
    expect(read('sobol', {})).toEqual({ randomState: undefined, scramble: true });
    expect(read('sobol', { scramble: 'False' })).toMatchObject({ scramble: false });
  });
});

describe('CMA-ES search space', () => {
  const view = (parameters: ReturnType<typeof double>[]) => ({
    name: 'e',
    dimensions: toDimensions(parameters),
    objective: { direction: 'MINIMIZE' as const, metricName: 'loss' },
    parallelTrialCount: 1,
    maxTrialCount: 0,
  });

  it('needs two or more DOUBLE or INT parameters', () => {
    const message = 'CMA-ES only supports two or more dimensional continuous search space.';
    expect(() => checkCmaesSpace(view([double('x', '0', '1')]))).toThrow(message);
    expect(() => checkCmaesSpace(view([double('x', '0', '1'), categorical('c', ['a', 'b'])]))).toThrow(
      message,
    );
    expect(() => checkCmaesSpace(view([double('x', '0', '1'), int('n', '1', '5')]))).not.toThrow();
  });
});
