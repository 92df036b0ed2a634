// TPE (Bergstra et al. 2011) as Optuna 5.0's TPESampler runs it by default: a Parzen estimator
// of the good trials l(x) and one of the rest g(x), and the candidate that maximises
// l(x)/g(x) (which maximises expected improvement). Each kernel is a product over the
// parameters whose per-parameter bandwidth is the larger gap to that value's neighbours (the
// univariate rule: narrow where trials crowd, wide where they are sparse), and a candidate is
// scored by the joint densities, so a good combination of values is preferred over values that
// are only good one at a time (Optuna 5.0 made this its default for the same reason; before, this
// sampler scored Π of per-parameter densities). multivariate-tpe differs by how steeply its good
// group's weights fall with rank, and from 10 parameters up by its bandwidth (./multivariate-tpe.ts).
// Running trials join the bad group (constant liar), so a batch spreads out.

import type { Sampler } from '../space.ts';
import { defaultBelowCount, hyperoptBelowCount, tpeSampler } from './tpe-core.ts';

export interface TpeOptions {
  /** Completed trials drawn at random before the model takes over (Optuna's n_startup_trials). */
  readonly nStartupTrials: number;
  /** Draws from l(x) scored per suggestion (n_EI_candidates / n_ei_candidates). */
  readonly nEiCandidates: number;
  /**
   * Size of the good group as hyperopt (Katib's tpe service) defines it: ⌈gamma·√n⌉ trials, at
   * most 25; in (0, 1). Undefined: ⌈0.2·n⌉ at most 25 (./tpe-core.ts), which keeps a larger good
   * group late in a run and does better on every anchor problem.
   */
  readonly gamma: number | undefined;
  /** Weight of the prior kernel against each observation's (prior_weight). > 0. */
  readonly priorWeight: number;
}

export const DEFAULT_TPE_OPTIONS: TpeOptions = Object.freeze({
  nStartupTrials: 10,
  nEiCandidates: 24,
  gamma: undefined,
  priorWeight: 1,
});

export const tpe: Sampler<TpeOptions> = tpeSampler((options) => ({
  nStartupTrials: options.nStartupTrials,
  nEiCandidates: options.nEiCandidates,
  nBelow: options.gamma === undefined ? defaultBelowCount : hyperoptBelowCount(options.gamma),
  priorWeight: options.priorWeight,
}));
