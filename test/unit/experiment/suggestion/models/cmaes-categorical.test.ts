import { describe, expect, it } from 'vitest';
import {
  createCategorical,
  sampleCategorical,
  tellCategorical,
} from '../../../../../services/experiment/suggestion/models/cmaes-categorical.ts';
import { createRng } from '../../../../../services/experiment/suggestion/rng.ts';

const frequencies = (draw: () => number, k: number, draws: number) => {
  const counts = new Array<number>(k).fill(0);
  for (let i = 0; i < draws; i++) counts[draw()]! += 1;
  return counts.map((c) => c / draws);
};

describe('cmaes categorical probabilities', () => {
  it('start uniform and draw every category equally often', () => {
    const state = createCategorical([4], 5);
    const rng = createRng(3);
    for (const f of frequencies(() => sampleCategorical(state, 0, rng), 4, 20_000))
      expect(f).toBeCloseTo(0.25, 1);
  });

  it('move toward the parents’ categories by their rank weights, and ignore unknown values', () => {
    const state = createCategorical([3, 2], 5);
    // Point 2 is best (weight 0.7), point 0 second (0.3); the rest are not parents.
    const choices = [
      [1, -1],
      [0, 0],
      [2, -1],
      [0, 0],
      [0, 0],
    ];
    tellCategorical(state, choices, [2, 0, 1, 3, 4], [0.7, 0.3, -0.2, -0.3, -0.5]);
    const [first, second] = state.probabilities;
    const expected = [0.8 / 3, 0.8 / 3 + 0.2 * 0.3, 0.8 / 3 + 0.2 * 0.7];
    for (const [k, p] of expected.entries()) expect(first![k]).toBeCloseTo(p, 12);
    expect(first!.reduce((s, p) => s + p, 0)).toBeCloseTo(1, 12);
    // Neither parent has a known value on the second parameter: it stays uniform.
    expect(Array.from(second!)).toEqual([0.5, 0.5]);
  });

  it('keep drawing a category that has lost, at the floor of 1/(k·λ)', () => {
    const state = createCategorical([3], 5);
    for (let g = 0; g < 200; g++)
      tellCategorical(state, [[2], [2], [2], [2], [2]], [0, 1, 2, 3, 4], [0.7, 0.3]);
    expect(state.probabilities[0]![2]).toBeGreaterThan(0.999);
    const rng = createRng(8);
    const [f0, f1, f2] = frequencies(() => sampleCategorical(state, 0, rng), 3, 30_000);
    expect(f0).toBeCloseTo(1 / 15, 2);
    expect(f1).toBeCloseTo(1 / 15, 2);
    expect(f2).toBeCloseTo(13 / 15, 2);
  });
});
