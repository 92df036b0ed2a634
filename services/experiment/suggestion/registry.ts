// Every algorithm name the service answers, under Katib's names.

import type { Algorithm } from './algorithm.ts';
import { fromSampler } from './algorithm.ts';
import { grid } from './algorithms/grid.ts';
import { hyperband } from './algorithms/hyperband.ts';
import { nsga2 } from './algorithms/nsga2.ts';
import { pbt } from './algorithms/pbt.ts';
import { randomSampler } from './algorithms/random.ts';
import { sobol } from './algorithms/sobol.ts';
import {
  bayesianOptimization,
  DEFAULT_BAYESIAN_OPTIMIZATION_OPTIONS,
} from './models/bayesian-optimization.ts';
import { cmaes, DEFAULT_CMAES_OPTIONS } from './models/cmaes.ts';
import { multiObjectiveTpe } from './models/multi-objective-tpe.ts';
import { DEFAULT_MULTIVARIATE_TPE_OPTIONS, multivariateTpe } from './models/multivariate-tpe.ts';
import { DEFAULT_TPE_OPTIONS, tpe } from './models/tpe.ts';
import { darts } from './nas/darts.ts';
import { enas } from './nas/enas.ts';
import {
  checkCmaesSpace,
  readBayesianOptimizationSettings,
  readCmaesSettings,
  readMultivariateTpeSettings,
  readRandomSettings,
  readTpeSettings,
} from './settings/katib-settings.ts';

// biome-ignore lint/suspicious/noExplicitAny: each algorithm has its own settings type; the registry only passes them through.
export type AnyAlgorithm = Algorithm<any>;

export const ALGORITHMS: ReadonlyMap<string, AnyAlgorithm> = new Map<string, AnyAlgorithm>([
  [
    'random',
    fromSampler({
      readSettings: readRandomSettings,
      sampler: randomSampler,
      defaults: {},
      objectives: 'checked',
    }),
  ],
  [
    'tpe',
    fromSampler({
      readSettings: readTpeSettings,
      sampler: tpe,
      defaults: DEFAULT_TPE_OPTIONS,
      objectives: multiObjectiveTpe,
    }),
  ],
  [
    'multivariate-tpe',
    fromSampler({
      readSettings: readMultivariateTpeSettings,
      sampler: multivariateTpe,
      defaults: DEFAULT_MULTIVARIATE_TPE_OPTIONS,
    }),
  ],
  [
    'cmaes',
    fromSampler({
      readSettings: readCmaesSettings,
      checkExperiment: checkCmaesSpace,
      sampler: cmaes,
      defaults: DEFAULT_CMAES_OPTIONS,
    }),
  ],
  [
    'bayesianoptimization',
    fromSampler({
      readSettings: readBayesianOptimizationSettings,
      sampler: bayesianOptimization,
      defaults: DEFAULT_BAYESIAN_OPTIMIZATION_OPTIONS,
    }),
  ],
  ['grid', grid],
  ['sobol', sobol],
  ['hyperband', hyperband],
  ['pbt', pbt],
  ['nsga2', nsga2],
  ['enas', enas],
  ['darts', darts],
]);

/** The architecture-search algorithms: their search space is nas_config, not parameter_specs. */
export const NAS_ALGORITHM_NAMES: readonly string[] = [...ALGORITHMS]
  .filter(([, algorithm]) => algorithm.checkNasConfig !== undefined)
  .map(([name]) => name);

/** The hyperparameter-search algorithms (parameter_specs). */
export const HP_ALGORITHM_NAMES: readonly string[] = [...ALGORITHMS.keys()].filter(
  (name) => !NAS_ALGORITHM_NAMES.includes(name),
);
