// The categorical parameters of a CMA-ES run, which the Gaussian cannot model: one probability
// vector per parameter, moved after each generation toward the categories of that generation's
// parents with the weights that move the mean (the information-geometric update of a categorical
// distribution, the idea of CatCMA, Hamano et al., GECCO 2024). Drawing them uniformly instead
// leaves a categorical's effect on the loss as noise that the numeric search never averages out.

import type { Rng } from '../rng.ts';

export interface CategoricalState {
  /** Per parameter, the learned probability of each category (summing to 1). */
  readonly probabilities: Float64Array[];
  /** Per parameter, the least probability a draw gives any category. */
  readonly floors: readonly number[];
}

/**
 * The share of a generation's evidence a probability vector takes in: about five generations to
 * settle on a category that keeps winning (a move of 0.2 toward the parents' choices each time).
 */
const LEARNING_RATE = 0.2;

export function createCategorical(sizes: readonly number[], lambda: number): CategoricalState {
  return {
    probabilities: sizes.map((k) => new Float64Array(k).fill(1 / k)),
    // Each category is still drawn about once in k generations once another has won: a wrong
    // early winner can be undone.
    floors: sizes.map((k) => 1 / (k * lambda)),
  };
}

export function cloneCategorical(state: CategoricalState): CategoricalState {
  return { ...state, probabilities: state.probabilities.map((p) => Float64Array.from(p)) };
}

/**
 * One generation: `choices[i][a]` is the category index of point i on parameter a (−1 when the
 * trial's value is not one of the categories: it teaches nothing), `order` the points best first,
 * `weights` the positive rank weights (summing to 1 over the parents).
 */
export function tellCategorical(
  state: CategoricalState,
  choices: readonly (readonly number[])[],
  order: readonly number[],
  weights: ArrayLike<number>,
): void {
  state.probabilities.forEach((probability, a) => {
    const target = new Float64Array(probability.length);
    let known = 0;
    for (let r = 0; r < order.length && weights[r]! > 0; r++) {
      const choice = choices[order[r]!]![a]!;
      if (choice < 0) continue;
      target[choice]! += weights[r]!;
      known += weights[r]!;
    }
    if (known === 0) return;
    for (let k = 0; k < probability.length; k++)
      probability[k] = (1 - LEARNING_RATE) * probability[k]! + (LEARNING_RATE * target[k]!) / known;
  });
}

/** A category index for parameter `a`, from its probabilities mixed with the uniform floor. */
export function sampleCategorical(state: CategoricalState, a: number, rng: Rng): number {
  const probability = state.probabilities[a]!;
  const floor = state.floors[a]!;
  const scale = 1 - floor * probability.length;
  let u = rng.next();
  for (let k = 0; k < probability.length - 1; k++) {
    u -= floor + scale * probability[k]!;
    if (u < 0) return k;
  }
  return probability.length - 1;
}
