// Hypervolume against hand-computed areas and against inclusion–exclusion over the boxes.
import { describe, expect, it } from 'vitest';
import {
  defaultReferencePoint,
  hypervolume,
} from '../../../../../services/experiment/suggestion/multi-objective/hypervolume.ts';
import { createRng } from '../../../../../services/experiment/suggestion/rng.ts';

/** The volume of the union of the boxes [v, reference] by inclusion–exclusion: exact, 2^N terms. */
function unionOfBoxes(vectors: number[][], reference: number[]): number {
  const inside = vectors.filter((v) => v.every((x, k) => x < reference[k]!));
  let total = 0;
  for (let mask = 1; mask < 1 << inside.length; mask++) {
    const corner = reference.map(() => -Infinity);
    let size = 0;
    inside.forEach((v, i) => {
      if (!(mask & (1 << i))) return;
      size++;
      v.forEach((x, k) => {
        corner[k] = Math.max(corner[k]!, x);
      });
    });
    const box = corner.reduce((product, x, k) => product * Math.max(0, reference[k]! - x), 1);
    total += size % 2 === 1 ? box : -box;
  }
  return total;
}

const randomSet = (n: number, d: number, seed: number) => {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => Array.from({ length: d }, () => rng.next()));
};

describe('hypervolume', () => {
  it('two objectives: the staircase by hand', () => {
    // Strips 1×1 + 1×2 + 1×3 under the reference (4, 4).
    expect(
      hypervolume(
        [
          [1, 3],
          [2, 2],
          [3, 1],
        ],
        [4, 4],
      ),
    ).toBe(6);
    // A dominated vector, a duplicate and one beyond the reference change nothing.
    expect(
      hypervolume(
        [
          [1, 3],
          [2, 2],
          [3, 1],
          [3, 3],
          [2, 2],
          [5, 0],
        ],
        [4, 4],
      ),
    ).toBe(6);
    expect(hypervolume([[4, 0]], [4, 4])).toBe(0);
    expect(hypervolume([], [1, 1])).toBe(0);
  });

  it('one and three objectives by hand', () => {
    expect(hypervolume([[3], [1], [2]], [5])).toBe(4);
    // Boxes 2×2×1 and 1×1×2 that share the cube [1, 2]³.
    expect(
      hypervolume(
        [
          [0, 0, 1],
          [1, 1, 0],
        ],
        [2, 2, 2],
      ),
    ).toBe(4 + 2 - 1);
  });

  it.each([
    [2, 12],
    [3, 10],
    [4, 9],
    [5, 8],
  ])('%i objectives: equals inclusion–exclusion on random sets of %i vectors', (d, n) => {
    for (let seed = 1; seed <= 5; seed++) {
      const vectors = randomSet(n, d, seed * 31 + d);
      const reference = Array.from({ length: d }, () => 1.1);
      expect(hypervolume(vectors, reference)).toBeCloseTo(unionOfBoxes(vectors, reference), 10);
    }
  });

  it('three objectives, 1,000 vectors on the sphere: just under the volume outside the ball', () => {
    // Every vector on the unit sphere's positive octant is non-dominated; the region they dominate
    // inside [0, 1]³ lies outside the ball and fills it as they grow dense: 1 − π/6 from below.
    const rng = createRng(3);
    const sphere = Array.from({ length: 1000 }, () => {
      const v = [Math.abs(rng.normal()), Math.abs(rng.normal()), Math.abs(rng.normal())];
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    });
    const volume = hypervolume(sphere, [1, 1, 1]);
    expect(volume).toBeLessThan(1 - Math.PI / 6);
    expect(volume).toBeGreaterThan(1 - Math.PI / 6 - 0.03);
  });

  it('refuses vectors of another dimension than the reference', () => {
    expect(() => hypervolume([[1, 2, 3]], [4, 4])).toThrow(
      'a vector has 3 objectives, the reference point 2',
    );
  });
});

describe('default reference point', () => {
  it('is the nadir plus 10% of each range; a range of zero gets 10% of the value, at least 1', () => {
    expect(
      defaultReferencePoint([
        [0, 10],
        [2, 0],
        [1, 5],
      ]),
    ).toEqual([2.2, 11]);
    expect(
      defaultReferencePoint([
        [3, 50],
        [1, 50],
      ]),
    ).toEqual([3.2, 55]);
    expect(defaultReferencePoint([[3, 0.5]])).toEqual([4, 1.5]);
    expect(() => defaultReferencePoint([])).toThrow('no vectors');
  });

  it('every front vector adds volume against it, the extremes included', () => {
    const front = [
      [0, 1],
      [0.5, 0.5],
      [1, 0],
    ];
    const reference = defaultReferencePoint(front);
    const all = hypervolume(front, reference);
    for (let i = 0; i < front.length; i++)
      expect(
        hypervolume(
          front.filter((_, j) => j !== i),
          reference,
        ),
      ).toBeLessThan(all);
  });
});
