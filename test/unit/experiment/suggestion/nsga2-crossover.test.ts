// The crossovers of nsga2 on the unit cube: each one's defining property on parents chosen by hand.
import { describe, expect, it } from 'vitest';
import { crossover } from '../../../../services/experiment/suggestion/algorithms/nsga2-crossover.ts';
import { axesOf } from '../../../../services/experiment/suggestion/models/unit-space.ts';
import { createRng } from '../../../../services/experiment/suggestion/rng.ts';
import type { Nsga2Crossover } from '../../../../services/experiment/suggestion/settings/nsga2.ts';
import type { Dimension } from '../../../../services/experiment/suggestion/space.ts';

const SPACE: Dimension[] = [
  { kind: 'float', name: 'a', low: 0, high: 1, distribution: 'uniform' },
  { kind: 'float', name: 'b', low: 0, high: 1, distribution: 'uniform' },
  { kind: 'categorical', name: 'c', choices: ['x', 'y', 'z'], numeric: false },
];
const AXES = axesOf(SPACE);

function children(kind: Nsga2Crossover, parents: number[][], n: number, swappingProb = 0.5): number[][] {
  const rng = createRng(11);
  return Array.from({ length: n }, () => crossover(AXES, parents, { kind, swappingProb, sbxEta: 20 }, rng));
}
const meanOf = (rows: number[][], d: number) => rows.reduce((sum, r) => sum + r[d]!, 0) / rows.length;

describe('nsga2 crossovers', () => {
  it('uniform: swapping_prob 0 copies the first parent, 1 the second', () => {
    const parents = [
      [0.1, 0.2, 0],
      [0.8, 0.9, 2],
    ];
    expect(children('uniform', parents, 3, 0)).toEqual([parents[0], parents[0], parents[0]]);
    expect(children('uniform', parents, 3, 1)).toEqual([parents[1], parents[1], parents[1]]);
  });

  it.each(['sbx', 'blxalpha', 'spx', 'undx'] as const)(
    '%s: stays in the cube; a categorical takes a parent’s choice; equal parents give themselves',
    (kind) => {
      const parents = [
        [0.05, 0.9, 0],
        [0.95, 0.1, 2],
        [0.5, 0.5, 1],
      ];
      for (const child of children(kind, parents, 200)) {
        expect(child[0]! >= 0 && child[0]! <= 1 && child[1]! >= 0 && child[1]! <= 1).toBe(true);
        expect([0, 2]).toContain(child[2]);
      }
      const same = [0.3, 0.6, 1];
      expect(children(kind, [same, same, same], 5)).toEqual([same, same, same, same, same]);
    },
  );

  it('blxalpha: within the parents’ interval widened by half its length each side', () => {
    for (const child of children(
      'blxalpha',
      [
        [0.4, 0.4, 0],
        [0.6, 0.5, 0],
      ],
      300,
    )) {
      expect(child[0]!).toBeGreaterThanOrEqual(0.3);
      expect(child[0]!).toBeLessThanOrEqual(0.7);
    }
  });

  it('sbx: children crowd near the parents with a large distribution index', () => {
    const near = children(
      'sbx',
      [
        [0.3, 0.3, 0],
        [0.7, 0.7, 0],
      ],
      2000,
    ).filter((c) => Math.abs(c[0]! - 0.3) < 0.1 || Math.abs(c[0]! - 0.7) < 0.1);
    expect(near.length).toBeGreaterThan(1800);
  });

  it('spx: the children’s mean is the parents’ centroid', () => {
    const parents = [
      [0.45, 0.48, 0],
      [0.55, 0.48, 0],
      [0.5, 0.56, 0],
    ];
    const rows = children('spx', parents, 4000);
    expect(meanOf(rows, 0)).toBeCloseTo(0.5, 2);
    expect(meanOf(rows, 1)).toBeCloseTo(0.5067, 2);
  });

  it('undx: centred on the first two parents’ midpoint, spread 0.5·|x2 − x1| along their line', () => {
    const rows = children(
      'undx',
      [
        [0.4, 0.5, 0],
        [0.6, 0.5, 0],
        [0.5, 0.52, 0],
      ],
      4000,
    );
    expect(meanOf(rows, 0)).toBeCloseTo(0.5, 2);
    expect(meanOf(rows, 1)).toBeCloseTo(0.5, 2);
    const sd = Math.sqrt(
      meanOf(
        rows.map((r) => [(r[0]! - 0.5) ** 2]),
        0,
      ),
    );
    expect(sd).toBeCloseTo(0.1, 2);
  });
});
