// Pareto ranks, the front and crowding distances on hand-made loss vectors.
import { describe, expect, it } from 'vitest';
import {
  crowdingDistances,
  dominates,
  nonDominatedFronts,
  paretoFront,
  paretoRanks,
} from '../../../../../services/experiment/suggestion/multi-objective/pareto.ts';
import { createRng } from '../../../../../services/experiment/suggestion/rng.ts';

describe('dominance and fronts', () => {
  it('dominates means no worse everywhere and better somewhere', () => {
    expect(dominates([1, 2], [2, 2])).toBe(true);
    expect(dominates([1, 2], [1, 2])).toBe(false);
    expect(dominates([1, 3], [2, 2])).toBe(false);
    expect(dominates([2, 2], [1, 3])).toBe(false);
  });

  it('ranks every vector: the staircase, the one behind it, the one behind both', () => {
    const vectors = [
      [1, 5], // 0: front 0
      [2, 3], // 1: front 0
      [4, 1], // 2: front 0
      [3, 4], // 3: dominated by 1
      [5, 5], // 4: dominated by 3 (and 0, 1, 2)
      [2, 3], // 5: equal to 1, shares its front
      [4.5, 2], // 6: dominated by 2 only
    ];
    expect(paretoRanks(vectors)).toEqual([0, 0, 0, 1, 2, 0, 1]);
    expect(paretoFront(vectors)).toEqual([0, 1, 2, 5]);
    expect(nonDominatedFronts(vectors)).toEqual([[0, 1, 2, 5], [3, 6], [4]]);
  });

  it('three objectives; an empty set has no front', () => {
    expect(
      paretoRanks([
        [1, 1, 1],
        [0, 2, 2],
        [2, 2, 2],
        [1, 1, 0],
      ]),
    ).toEqual([1, 0, 2, 0]);
    expect(paretoFront([])).toEqual([]);
  });
});

describe('crowding distance', () => {
  it('the extremes are infinite; inner vectors sum the normalised gaps of their neighbours', () => {
    // Sorted by the first objective: 0, 1, 3, 4 (ranges 4 and 4).
    const front = [
      [0, 4],
      [1, 3],
      [3, 1],
      [4, 0],
    ];
    const distances = crowdingDistances(front);
    expect(distances[0]).toBe(Infinity);
    expect(distances[3]).toBe(Infinity);
    // vector 1: (3 - 0)/4 + (4 - 1)/4; vector 2: (4 - 1)/4 + (3 - 0)/4
    expect(distances[1]).toBeCloseTo(1.5, 12);
    expect(distances[2]).toBeCloseTo(1.5, 12);
  });

  it('a crowded vector gets less than a lonely one; an objective without range adds nothing', () => {
    const distances = crowdingDistances([
      [0, 1, 7],
      [0.1, 0.9, 7],
      [0.2, 0.8, 7],
      [0.9, 0.1, 7],
      [1, 0, 7],
    ]);
    expect(distances[1]!).toBeCloseTo(0.4, 12);
    expect(distances[2]!).toBeCloseTo(1.6, 12);
    expect(distances[3]!).toBeCloseTo(1.6, 12);
    expect(crowdingDistances([[1, 2]])).toEqual([Infinity]);
    expect(crowdingDistances([])).toEqual([]);
  });
});

/** Non-dominated sorting as the definition reads: peel off the vectors nothing left dominates. */
function peeledFronts(vectors: readonly (readonly number[])[]): number[][] {
  let left = [...vectors.keys()];
  const fronts: number[][] = [];
  while (left.length > 0) {
    const front = left.filter((i) => !left.some((j) => dominates(vectors[j]!, vectors[i]!)));
    fronts.push(front);
    left = left.filter((i) => !front.includes(i));
  }
  return fronts;
}

describe('non-dominated sorting at scale', () => {
  it('gives the fronts of the definition, ties and repeated vectors included, for 1 to 4 objectives', () => {
    const rng = createRng(11);
    for (const objectives of [1, 2, 3, 4])
      for (const n of [0, 1, 2, 7, 60, 300]) {
        // Few distinct values, so equal losses and equal vectors are frequent.
        const vectors = Array.from({ length: n }, () =>
          Array.from({ length: objectives }, () => rng.int(6) - 2),
        );
        expect(nonDominatedFronts(vectors), `${objectives} objectives, ${n} vectors`).toEqual(
          peeledFronts(vectors),
        );
      }
  });

  it('ranks 10,000 two-objective vectors well inside a second', () => {
    const rng = createRng(12);
    const vectors = Array.from({ length: 10_000 }, () => [rng.next(), rng.next()]);
    const started = performance.now();
    const fronts = nonDominatedFronts(vectors);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(fronts.flat().sort((a, b) => a - b)).toEqual([...vectors.keys()]);
    // Every vector of a front beyond the first is dominated by one of the front before.
    for (let r = 1; r < fronts.length; r++)
      for (const i of fronts[r]!)
        expect(fronts[r - 1]!.some((j) => dominates(vectors[j]!, vectors[i]!))).toBe(true);
  });
});
