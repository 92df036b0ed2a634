// fANOVA importance: exact marginal variances of hand-made trees, and on problems where some
// parameters do nothing, those rank last.
import { describe, expect, it } from 'vitest';
import {
  fanovaImportances,
  type ImportanceTrial,
  MAX_SAMPLES_PER_TREE,
  marginalVariances,
} from '../../../../../services/experiment/suggestion/importance/fanova.ts';
import type { TreeNode } from '../../../../../services/experiment/suggestion/importance/regression-tree.ts';
import { createRng } from '../../../../../services/experiment/suggestion/rng.ts';
import type { Dimension, Point } from '../../../../../services/experiment/suggestion/space.ts';

const leaf = (value: number): TreeNode => ({ feature: -1, threshold: 0, left: -1, right: -1, value });
const split = (feature: number, threshold: number, left: number, right: number): TreeNode => ({
  feature,
  threshold,
  left,
  right,
  value: 0,
});
const UNIT_SQUARE = [
  [0, 1],
  [0, 1],
] as const;

describe('marginal variances of one tree', () => {
  it('a step in x0 alone: all the variance is x0’s', () => {
    const tree = [split(0, 0.5, 1, 2), leaf(0), leaf(1)];
    expect(marginalVariances(tree, UNIT_SQUARE)).toEqual({ total: 0.25, single: [0.25, 0] });
  });

  it('an interaction: x1 matters only where x0 ≤ 0.5', () => {
    // Leaves: x0 ≤ .5 ∧ x1 ≤ .5 → 0, x0 ≤ .5 ∧ x1 > .5 → 2, x0 > .5 → 1. Mean 1, variance 0.5;
    // the marginal in x0 is 1 everywhere, in x1 it is 0.5 then 1.5: variance 0.25; the rest is
    // the interaction.
    const tree = [split(0, 0.5, 1, 4), split(1, 0.5, 2, 3), leaf(0), leaf(2), leaf(1)];
    const { total, single } = marginalVariances(tree, UNIT_SQUARE);
    expect(total).toBeCloseTo(0.5, 12);
    expect(single[0]).toBeCloseTo(0, 12);
    expect(single[1]).toBeCloseTo(0.25, 12);
  });

  it('weighs each categorical choice equally (interval width 1)', () => {
    // Three choices on [-0.5, 2.5]: choice 0 → 3, choices 1 and 2 → 0. Mean 1, variance 2.
    const tree = [split(0, 0.5, 1, 2), leaf(3), leaf(0)];
    const { total, single } = marginalVariances(tree, [[-0.5, 2.5]]);
    expect(total).toBeCloseTo(2, 12);
    expect(single[0]).toBeCloseTo(2, 12);
  });
});

const SPACE: Dimension[] = [
  { kind: 'float', name: 'x0', low: 0, high: 1, distribution: 'uniform' },
  { kind: 'float', name: 'lr', low: 0.001, high: 1, distribution: 'log-uniform' },
  { kind: 'float', name: 'inert_float', low: -5, high: 5, distribution: 'uniform' },
  { kind: 'categorical', name: 'inert_choice', choices: ['a', 'b', 'c'], numeric: false },
  { kind: 'int', name: 'inert_int', low: 1, high: 9, step: 1, distribution: 'uniform' },
];

/** x0 carries most of the variance (16/12), lr some (log10 over three decades: 2.25/12), the rest none. */
const objective = (point: Point) => 4 * (point[0] as number) + 0.5 * Math.log10(point[1] as number);

function randomTrials(n: number, seed: number): ImportanceTrial[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => {
    const point: Point = [
      rng.next(),
      10 ** (-3 + 3 * rng.next()),
      -5 + 10 * rng.next(),
      ['a', 'b', 'c'][rng.int(3)]!,
      1 + rng.int(9),
    ];
    return { point, value: objective(point) };
  });
}

const byName = (importances: { name: string; importance: number }[]) =>
  Object.fromEntries(importances.map((p) => [p.name, p.importance]));

describe('fanovaImportances', () => {
  it('ranks the inert parameters last; shares close to the true variance shares; sums to 1', () => {
    const importances = fanovaImportances(SPACE, randomTrials(400, 1), { seed: 3 });
    const share = byName(importances);
    const sum = importances.reduce((total, p) => total + p.importance, 0);
    expect(sum).toBeCloseTo(1, 12);
    const inert = [share.inert_float!, share.inert_choice!, share.inert_int!];
    expect(share.x0!).toBeGreaterThan(share.lr!);
    expect(share.lr!).toBeGreaterThan(Math.max(...inert));
    // True shares: x0 16/18.25 ≈ 0.877, lr 2.25/18.25 ≈ 0.123.
    expect(share.x0!).toBeGreaterThan(0.8);
    expect(share.lr!).toBeGreaterThan(0.08);
    for (const value of inert) expect(value).toBeLessThan(0.02);
  });

  it('is a pure function of the trials and the seed', () => {
    const trials = randomTrials(200, 2);
    expect(fanovaImportances(SPACE, trials, { seed: 5 })).toEqual(
      fanovaImportances(SPACE, trials, { seed: 5 }),
    );
    expect(fanovaImportances(SPACE, trials, { seed: 5 })).not.toEqual(
      fanovaImportances(SPACE, trials, { seed: 6 }),
    );
  });

  it('gives 0 to every parameter when the objective never varies; needs two trials', () => {
    const flat = randomTrials(20, 3).map((t) => ({ ...t, value: 7 }));
    expect(fanovaImportances(SPACE, flat).map((p) => p.importance)).toEqual([0, 0, 0, 0, 0]);
    expect(() => fanovaImportances(SPACE, flat.slice(0, 1))).toThrow('fANOVA needs at least 2 trials, got 1');
  });

  it(`10,000 trials (trees grown on ${MAX_SAMPLES_PER_TREE} of them each): the inert parameters still rank last`, () => {
    const share = byName(fanovaImportances(SPACE, randomTrials(10_000, 4)));
    expect(share.lr!).toBeGreaterThan(Math.max(share.inert_float!, share.inert_choice!, share.inert_int!));
    expect(share.x0!).toBeGreaterThan(share.lr!);
  });
});
