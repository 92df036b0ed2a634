// Multivariate TPE (Falkner et al. 2018, Optuna's multivariate=True): one product-kernel
// Parzen estimator over all parameters for the good trials and one for the rest, so that
// correlated parameters are proposed together. Constant liar as Katib configures Optuna.

import type { Sampler } from '../space.ts';
import { buildParzen } from './parzen.ts';
import { decodePoint, defaultBelowCount, splitHistory } from './tpe-core.ts';
import { axesOf, collectDistinct, randomPoint } from './unit-space.ts';

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

export const multivariateTpe: Sampler<MultivariateTpeOptions> = (input) => {
  const { dimensions, history, pending, count, rng, options } = input;
  const axes = axesOf(dimensions);
  return collectDistinct(axes, pending, count, rng, (chosen) => {
    if (history.length < options.nStartupTrials) return randomPoint(axes, rng);
    const { below, above } = splitHistory(axes, history, [...pending, ...chosen], defaultBelowCount);
    const parzenOptions = { priorWeight: 1, multivariate: true };
    const good = buildParzen(axes, below.points, below.weights, parzenOptions);
    const bad = buildParzen(axes, above.points, above.weights, parzenOptions);
    let best = good.sampleJoint(rng);
    let bestScore = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < options.nEiCandidates; i++) {
      const candidate = i === 0 ? best : good.sampleJoint(rng);
      const score = good.logDensityJoint(candidate) - bad.logDensityJoint(candidate);
      if (score > bestScore) {
        bestScore = score;
        best = candidate;
      }
    }
    return decodePoint(axes, best);
  });
};
