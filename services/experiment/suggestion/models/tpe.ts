// Independent TPE (Bergstra et al. 2011, as hyperopt and Optuna implement it): per parameter,
// a Parzen estimator of the good trials l(x) and of the rest g(x); the candidate among
// `nEiCandidates` draws from l that maximises l(x)/g(x) (which maximises expected improvement).
// Running trials join the bad group (constant liar), so a batch spreads out.

import type { Sampler } from '../space.ts';
import { buildParzen } from './parzen.ts';
import { decodePoint, hyperoptBelowCount, optunaBelowCount, splitHistory } from './tpe-core.ts';
import { axesOf, collectDistinct, randomPoint } from './unit-space.ts';

export interface TpeOptions {
  /** Completed trials drawn at random before the model takes over (Optuna's n_startup_trials). */
  readonly nStartupTrials: number;
  /** Draws from l(x) scored per suggestion (n_EI_candidates / n_ei_candidates). */
  readonly nEiCandidates: number;
  /**
   * Size of the good group as hyperopt (Katib's tpe service) defines it: ⌈gamma·√n⌉ trials, at
   * most 25; in (0, 1). Undefined: Optuna's rule, ⌈0.1·n⌉ at most 25, which keeps a larger good
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

export const tpe: Sampler<TpeOptions> = ({ dimensions, history, pending, count, rng, options }) => {
  const axes = axesOf(dimensions);
  const nBelow = options.gamma === undefined ? optunaBelowCount : hyperoptBelowCount(options.gamma);
  return collectDistinct(axes, pending, count, rng, (chosen) => {
    if (history.length < options.nStartupTrials) return randomPoint(axes, rng);
    const { below, above } = splitHistory(axes, history, [...pending, ...chosen], nBelow);
    const parzenOptions = { priorWeight: options.priorWeight, multivariate: false };
    const good = buildParzen(axes, below.points, below.weights, parzenOptions);
    const bad = buildParzen(axes, above.points, above.weights, parzenOptions);
    const best = axes.map((_, d) => {
      let bestValue = good.sampleAxis(d, rng);
      let bestScore = Number.NEGATIVE_INFINITY;
      for (let i = 0; i < options.nEiCandidates; i++) {
        const value = i === 0 ? bestValue : good.sampleAxis(d, rng);
        const score = good.logDensityAxis(d, value) - bad.logDensityAxis(d, value);
        if (score > bestScore) {
          bestScore = score;
          bestValue = value;
        }
      }
      return bestValue;
    });
    return decodePoint(axes, best);
  });
};
