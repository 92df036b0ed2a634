// Multivariate TPE (Falkner et al. 2018, Optuna's multivariate=True): one product-kernel
// Parzen estimator over all parameters for the good trials and one for the rest, so that
// correlated parameters are proposed together. Constant liar as Katib configures Optuna.
// Below 10 parameters the bandwidths are the neighbour gaps of Optuna 5.0 (which dropped the
// Scott's-rule width for multivariate=True) and the good group's weights fall faster with rank
// than tpe's (GOOD_RANK_DECAY), which pulls the search into the best basin sooner. From 10
// parameters up, Scott's rule and tpe's weights as before: with neighbour gaps there, the BBOB
// suite's multimodal cells at 200 trials fell behind (docs/performance.md).

import type { Sampler } from '../space.ts';
import { defaultBelowCount, splitByLoss, tpeSampler } from './tpe-core.ts';

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

/**
 * On the BBOB suite against Optuna 5.0's TPESampler(multivariate=True) (docs/performance.md,
 * 2-D and 5-D), 6 beat 4 (tpe's), 2 and 9 with neighbour gaps; Scott's rule with factor 0.07
 * (this sampler before) and 0.2 (Optuna 3's) did worse than neighbour gaps at every decay tried.
 */
const GOOD_RANK_DECAY = 6;

/** The fewest parameters that keep Scott's rule (the BBOB suite's 10-D cells; 5-D did better without). */
const SCOTTS_RULE_FROM_PARAMETERS = 10;

const splitSteeper = splitByLoss(GOOD_RANK_DECAY);

const byNeighbourGaps: Sampler<MultivariateTpeOptions> = tpeSampler((options) => ({
  nStartupTrials: options.nStartupTrials,
  nEiCandidates: options.nEiCandidates,
  nBelow: defaultBelowCount,
  priorWeight: 1,
  split: splitSteeper,
}));

const byScottsRule: Sampler<MultivariateTpeOptions> = tpeSampler((options) => ({
  nStartupTrials: options.nStartupTrials,
  nEiCandidates: options.nEiCandidates,
  nBelow: defaultBelowCount,
  priorWeight: 1,
  scottsRule: true,
}));

export const multivariateTpe: Sampler<MultivariateTpeOptions> = (input) => {
  return input.dimensions.length >= SCOTTS_RULE_FROM_PARAMETERS
    ? byScottsRule(input)
    : byNeighbourGaps(input);
};
