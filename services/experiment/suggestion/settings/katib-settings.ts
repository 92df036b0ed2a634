// Settings of random, grid, sobol, tpe, multivariate-tpe, cmaes and bayesianoptimization: Katib's
// names, rules and exact messages (reference §3.4). Where two of Katib's services answer the same
// algorithm differently, the choice is said next to it.

import { invalidArgument } from '../../../../shared/errors.ts';
import type { ExperimentView } from '../algorithm.ts';
import { OBJECTIVES_SETTING } from '../multi-objective/objectives.ts';
import { optionalChoice, optionalFloat, optionalInt, rejectUnknown } from './read.ts';

const nonNegative = (v: number) => v >= 0;
const positive = (v: number) => v > 0;
const known = (...names: string[]): ReadonlySet<string> => new Set(names);

/** Every algorithm may be seeded. */
export interface Seeded {
  readonly randomState?: number;
}

/** hyperopt's wording (Katib's default image for random and tpe). */
const randomStateHyperopt = (s: ReadonlyMap<string, string>) =>
  optionalInt(s, 'random_state', nonNegative, 'random_state should be great or equal than zero');
/**
 * The `objectives` setting's text, when given: tpe and random take it as nsga2 does, and the
 * algorithm checks it against the experiment (../multi-objective/objectives.ts).
 */
export interface WithObjectives {
  readonly objectives?: string;
}

const objectivesText = (s: ReadonlyMap<string, string>): WithObjectives =>
  s.has(OBJECTIVES_SETTING) ? { objectives: s.get(OBJECTIVES_SETTING)! } : {};

/** Optuna's wording (grid, multivariate-tpe, cmaes); Optuna answers an empty message for grid and random. */
const randomStateOptuna = (s: ReadonlyMap<string, string>) =>
  optionalInt(s, 'random_state', nonNegative, 'random_state should be greate or equal than zero');

/** random takes `objectives` so that a multi-objective experiment can start from it; it draws the same points. */
export type RandomSettings = Seeded & WithObjectives;

export function readRandomSettings(s: ReadonlyMap<string, string>): RandomSettings {
  rejectUnknown(s, known('random_state', OBJECTIVES_SETTING), 'random');
  return { randomState: randomStateHyperopt(s), ...objectivesText(s) };
}

export type GridSettings = Seeded;

export function readGridSettings(s: ReadonlyMap<string, string>): GridSettings {
  rejectUnknown(s, known('random_state'), 'grid');
  return { randomState: randomStateOptuna(s) };
}

export interface SobolSettings extends Seeded {
  /** Katib's goptuna sobol has no settings and no scrambling; ours scrambles unless told not to. */
  readonly scramble: boolean;
}

export function readSobolSettings(s: ReadonlyMap<string, string>): SobolSettings {
  rejectUnknown(s, known('random_state', 'scramble'), 'sobol');
  const scramble = optionalChoice(
    s,
    'scramble',
    ['true', 'false', 'True', 'False'] as const,
    (v) => `scramble ${v} should be true or false`,
  );
  return {
    randomState: randomStateOptuna(s),
    scramble: scramble === undefined || scramble.toLowerCase() === 'true',
  };
}

/**
 * tpe: hyperopt's settings (Katib's default image) and, so that an experiment written for Katib's
 * Optuna image also runs, Optuna's n_startup_trials and n_ei_candidates (same meaning as
 * hyperopt's n_EI_candidates), each with the message of the service that defines it; and
 * `objectives`, for several (../models/multi-objective-tpe.ts).
 */
export interface TpeSettings extends Seeded, WithObjectives {
  readonly gamma?: number;
  readonly priorWeight?: number;
  readonly nEiCandidates?: number;
  readonly nStartupTrials?: number;
}

export function readTpeSettings(s: ReadonlyMap<string, string>): TpeSettings {
  rejectUnknown(
    s,
    known(
      'random_state',
      'gamma',
      'prior_weight',
      'n_EI_candidates',
      'n_startup_trials',
      'n_ei_candidates',
      OBJECTIVES_SETTING,
    ),
    'tpe',
  );
  const randomState = randomStateHyperopt(s);
  const gamma = optionalFloat(s, 'gamma', (v) => v > 0 && v < 1, 'gamma should be in the range of (0, 1)');
  const priorWeight = optionalFloat(s, 'prior_weight', positive, 'prior_weight should be great than zero');
  const hyperoptCandidates = optionalInt(
    s,
    'n_EI_candidates',
    positive,
    'n_EI_candidates should be great than zero',
  );
  const optunaCandidates = optunaEiCandidates(s);
  const nStartupTrials = optionalInt(
    s,
    'n_startup_trials',
    nonNegative,
    'n_startup_trials should be greate or equal than zero',
  );
  return {
    randomState,
    gamma,
    priorWeight,
    nEiCandidates: hyperoptCandidates ?? optunaCandidates,
    nStartupTrials,
    ...objectivesText(s),
  };
}

/** Optuna's rule (>= 0, its message); zero candidates cannot choose anything, so zero is refused too. */
function optunaEiCandidates(s: ReadonlyMap<string, string>): number | undefined {
  const value = optionalInt(
    s,
    'n_ei_candidates',
    nonNegative,
    'n_ei_candidates should be greate or equal than zero',
  );
  if (value === 0) throw invalidArgument('n_ei_candidates should be great than zero');
  return value;
}

export interface MultivariateTpeSettings extends Seeded {
  readonly nStartupTrials?: number;
  readonly nEiCandidates?: number;
}

export function readMultivariateTpeSettings(s: ReadonlyMap<string, string>): MultivariateTpeSettings {
  rejectUnknown(s, known('random_state', 'n_startup_trials', 'n_ei_candidates'), 'multivariate-tpe');
  return {
    randomState: randomStateOptuna(s),
    nStartupTrials: optionalInt(
      s,
      'n_startup_trials',
      nonNegative,
      'n_startup_trials should be greate or equal than zero',
    ),
    nEiCandidates: optunaEiCandidates(s),
  };
}

export interface CmaesSettings extends Seeded {
  readonly sigma?: number;
  readonly restartStrategy: 'ipop' | 'bipop' | 'none';
}

/** cmaes: Optuna's rules and messages (goptuna checks nothing); restart strategies of both services. */
export function readCmaesSettings(s: ReadonlyMap<string, string>): CmaesSettings {
  rejectUnknown(s, known('random_state', 'sigma', 'restart_strategy'), 'cmaes');
  const strategy = optionalChoice(
    s,
    'restart_strategy',
    ['ipop', 'bipop', 'none', 'None'] as const,
    (v) => `restart_strategy ${v} is not supported in CMAES optimization`,
  );
  const sigma = optionalFloat(s, 'sigma', nonNegative, 'sigma should be greate or equal than zero');
  // A zero step size never moves; Optuna takes it and fails later.
  if (sigma === 0) throw invalidArgument('sigma should be great than zero');
  return {
    randomState: randomStateOptuna(s),
    sigma,
    restartStrategy: strategy === undefined || strategy === 'None' ? 'none' : strategy,
  };
}

export const ACQ_FUNCS = ['gp_hedge', 'LCB', 'EI', 'PI', 'EIps', 'PIps'] as const;
export const ACQ_OPTIMIZERS = ['auto', 'sampling', 'lbfgs'] as const;

export const BASE_ESTIMATORS = ['GP', 'RF', 'ET', 'GBRT'] as const;

export interface BayesianOptimizationSettings extends Seeded {
  readonly baseEstimator?: (typeof BASE_ESTIMATORS)[number];
  readonly nInitialPoints?: number;
  readonly acqFunc?: (typeof ACQ_FUNCS)[number];
  readonly acqOptimizer?: (typeof ACQ_OPTIMIZERS)[number];
}

export function readBayesianOptimizationSettings(
  s: ReadonlyMap<string, string>,
): BayesianOptimizationSettings {
  rejectUnknown(
    s,
    known('base_estimator', 'n_initial_points', 'acq_func', 'acq_optimizer', 'random_state'),
    'bayesianoptimization',
  );
  return {
    // RF, ET and GBRT are accepted so that Katib experiments keep running; the Gaussian process
    // serves them all (the sampler says so).
    baseEstimator: optionalChoice(
      s,
      'base_estimator',
      BASE_ESTIMATORS,
      (v) => `base_estimator ${v} is not supported in Bayesian optimization`,
    ),
    nInitialPoints: optionalInt(
      s,
      'n_initial_points',
      nonNegative,
      'n_initial_points should be great or equal than zero',
    ),
    acqFunc: optionalChoice(
      s,
      'acq_func',
      ACQ_FUNCS,
      (v) => `acq_func ${v} is not supported in Bayesian optimization`,
    ),
    acqOptimizer: optionalChoice(
      s,
      'acq_optimizer',
      ACQ_OPTIMIZERS,
      (v) => `acq_optimizer ${v} is not supported in Bayesian optimization`,
    ),
    randomState: randomStateHyperopt(s),
  };
}

/** CMA-ES needs at least two DOUBLE/INT parameters (goptuna's message, Katib's default cmaes image). */
export function checkCmaesSpace(experiment: ExperimentView): void {
  const continuous = experiment.dimensions.filter((d) => d.kind !== 'categorical');
  if (continuous.length < 2)
    throw invalidArgument('CMA-ES only supports two or more dimensional continuous search space.');
}
