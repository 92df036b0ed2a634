// Simulated learning curves for the pruner benchmark: a loss that falls from 2.3 towards a floor,
// both shaped by three hyperparameters in [0, 1] (think log learning rate, model size, warm-up).
// - Crossing curves: a high learning rate learns fast but settles on a higher floor; the best
//   trials are middle learning rates with big models, which start slower. A pruner that trusts
//   early ranks too much keeps the fast starters and loses the best trial.
// - Plateaus: a long warm-up holds the loss at its start for up to 12 steps.
// - Divergence: the highest learning rates turn around after step 20 and climb past the start.
// - Noise: every reported value carries Gaussian noise (σ 0.03); the final regret uses the
//   noiseless value of the trial that looked best.
import { createRng } from '../../services/experiment/suggestion/rng.ts';

export const STEPS = 100;
const START = 2.3;
const NOISE = 0.03;

export interface Params {
  /** Learning rate (0: 1e-4 … 1: 1). */
  readonly lr: number;
  /** Model size: bigger reaches lower but learns slower. */
  readonly size: number;
  /** Warm-up: the steps the loss stays flat at first. */
  readonly warmup: number;
}

export interface SimulatedTrial {
  readonly params: Params;
  /** What the trial reports, step 1..STEPS. */
  readonly values: readonly number[];
  /** The noiseless loss at the last step. */
  readonly trueFinal: number;
}

const floorOf = (p: Params): number =>
  0.1 + 2 * (p.lr - 0.55) ** 2 + 0.5 * (p.size - 0.8) ** 2 + 0.2 * (p.warmup - 0.4) ** 2;
const rateOf = (p: Params): number => 0.12 * (0.3 + p.lr) * (1.3 - 0.6 * p.size);
const plateauOf = (p: Params): number => Math.round(12 * p.warmup ** 2);

/** The noiseless loss at `step` (1-based). */
export function trueLoss(p: Params, step: number): number {
  const floor = floorOf(p);
  const learning = Math.max(0, step - plateauOf(p));
  let loss = floor + (START - floor) * Math.exp(-rateOf(p) * learning);
  if (p.lr > 0.85 && step > 20) loss += 0.002 * ((p.lr - 0.85) / 0.15) * (step - 20) ** 2;
  return loss;
}

/** 100 trials of random search, seeded: every run of the benchmark sees the same curves. */
export function simulateExperiment(seed: number, trials: number): SimulatedTrial[] {
  const rng = createRng(0x5eed0000 + seed);
  return Array.from({ length: trials }, () => {
    const params = { lr: rng.next(), size: rng.next(), warmup: rng.next() };
    const values = Array.from({ length: STEPS }, (_, i) => trueLoss(params, i + 1) + NOISE * rng.normal());
    return { params, values, trueFinal: trueLoss(params, STEPS) };
  });
}

/** The lowest noiseless final loss anywhere in the space (a grid fine enough for 4 digits). */
export function optimum(): number {
  let best = Number.POSITIVE_INFINITY;
  const n = 60;
  for (let i = 0; i <= n; i++)
    for (let j = 0; j <= n; j++)
      for (let k = 0; k <= n; k++)
        best = Math.min(best, trueLoss({ lr: i / n, size: j / n, warmup: k / n }, STEPS));
  return best;
}
