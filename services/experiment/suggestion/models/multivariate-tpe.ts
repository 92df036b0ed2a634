// Multivariate TPE (Falkner et al. 2018, Optuna's multivariate=True): one product-kernel
// Parzen estimator over all parameters for the good trials and one for the rest, so that
// correlated parameters are proposed together. Constant liar as Katib configures Optuna.

import type { Sampler } from '../space.ts';
import { defaultBelowCount, tpeSampler } from './tpe-core.ts';

export interface MultivariateTpeOptions {
  /** Completed trials drawn at random before the model takes over (n_startup_trials). */
  readonly nStartupTrials: number;
  /** Joint draws from l(x) scored per suggestion (n_ei_candidates). */
  readonly nEiCandidates: number;
}

export const DEFAULT_MULTIVARIATE_TPE_OPTIONS: MultivariateTpeOptions = Object.freeze({
  nStartupTrials: 10,
  nEiCandidates: 24,
});

export const multivariateTpe: Sampler<MultivariateTpeOptions> = tpeSampler((options) => ({
  nStartupTrials: options.nStartupTrials,
  nEiCandidates: options.nEiCandidates,
  nBelow: defaultBelowCount,
  priorWeight: 1,
  multivariate: true,
}));
