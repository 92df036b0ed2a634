// Hypervolume subset selection (the tie-break of multi-objective TPE's good group) against the
// plain greedy rule computed with hypervolume() itself, and the peeled fronts against
// nonDominatedFronts.
import { describe, expect, it } from 'vitest';
import { hypervolume } from '../../../../../services/experiment/suggestion/multi-objective/hypervolume.ts';
import {
  type Losses,
  leadingFronts,
  nonDominatedFronts,
} from '../../../../../services/experiment/suggestion/multi-objective/pareto.ts';
import {
  selectByHypervolume,
  selectionReference,
} from '../../../../../services/experiment/suggestion/multi-objective/subset-selection.ts';
import { createRng } from '../../../../../services/experiment/suggestion/rng.ts';

/** A front of `n` mutually non-dominated vectors: points on a sphere's octant, jittered outward. */
function randomFront(n: number, objectives: number, seed: number): number[][] {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => {
    const raw = Array.from({ length: objectives }, () => Math.abs(rng.normal()) + 1e-6);
    const norm = Math.hypot(...raw);
    return raw.map((v) => v / norm);
  });
}

/** The greedy rule spelt out: each step, the vector whose addition gives the largest hypervolume. */
function naiveGreedy(front: readonly Losses[], count: number, reference: Losses): number[] {
  const chosen: number[] = [];
  while (chosen.length < count) {
    let best = -1;
    let bestVolume = -Infinity;
    for (let i = 0; i < front.length; i++) {
      if (chosen.includes(i)) continue;
      const volume = hypervolume(
        [...chosen, i].map((j) => front[j]!),
        reference,
      );
      if (volume > bestVolume + 1e-12) {
        bestVolume = volume;
        best = i;
      }
    }
    chosen.push(best);
  }
  return chosen;
}

describe('selectionReference', () => {
  it("moves each objective's worst value 10% of its magnitude outward; a worst value of 0 becomes tiny", () => {
    const reference = selectionReference([
      [1, -2, 0],
      [2, -4, -1],
    ]);
    expect(reference[0]).toBeCloseTo(2.2, 12);
    expect(reference[1]).toBeCloseTo(-1.8, 12);
    expect(reference[2]).toBeGreaterThan(0);
    expect(reference[2]).toBeLessThan(1e-9);
  });
});

describe('selectByHypervolume', () => {
  it.each([
    [2, 12, 5],
    [2, 40, 17],
    [3, 12, 5],
    [3, 30, 11],
    [4, 10, 4],
  ])('%i objectives, %i vectors, %i chosen: the same choice as the plain greedy rule', (m, n, count) => {
    for (const seed of [1, 2, 3]) {
      const front = randomFront(n, m, seed * 10 + m);
      const reference = selectionReference(front);
      const chosen = selectByHypervolume(front, count, reference);
      expect(chosen).toEqual(naiveGreedy(front, count, reference));
    }
  });

  it('the first choice is the vector with the largest box to the reference point', () => {
    const front = randomFront(20, 2, 7);
    const reference = selectionReference(front);
    const boxes = front.map((v) => (reference[0]! - v[0]!) * (reference[1]! - v[1]!));
    expect(selectByHypervolume(front, 1, reference)).toEqual([boxes.indexOf(Math.max(...boxes))]);
  });

  it('chooses every distinct vector before any repeat, repeats in input order', () => {
    const front = [
      [0, 1],
      [0, 1],
      [1, 0],
      [0.5, 0.5],
      [1, 0],
    ];
    const reference = selectionReference(front);
    expect(new Set(selectByHypervolume(front, 3, reference))).toEqual(new Set([0, 2, 3]));
    expect(selectByHypervolume(front, 4, reference)).toEqual([0, 2, 3, 1]);
  });

  it('takes everything when asked for as many as there are, nothing for 0, the first ones without a finite reference', () => {
    const front = randomFront(6, 3, 4);
    expect(selectByHypervolume(front, 6, selectionReference(front))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(selectByHypervolume(front, 0, selectionReference(front))).toEqual([]);
    expect(selectByHypervolume(front, 2, [1, Infinity, 1])).toEqual([0, 1]);
  });
});

describe('leadingFronts', () => {
  it.each([2, 3])(
    '%i objectives: the first fronts of nonDominatedFronts, stopping once enough are held',
    (m) => {
      const rng = createRng(m);
      // Rounded so that equal vectors occur: they share a front.
      const vectors = Array.from({ length: 200 }, () =>
        Array.from({ length: m }, () => Math.round(rng.next() * 20) / 20),
      );
      const all = nonDominatedFronts(vectors).map((front) => [...front].sort((a, b) => a - b));
      expect(leadingFronts(vectors, vectors.length)).toEqual(all);
      const needed = all[0]!.length + 1;
      expect(leadingFronts(vectors, needed)).toEqual(all.slice(0, 2));
      expect(leadingFronts(vectors, 0)).toEqual([]);
    },
  );
});
