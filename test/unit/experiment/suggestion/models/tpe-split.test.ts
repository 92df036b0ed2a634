// The single-objective good group: the lowest losses, weighted by rank with a decay that tpe and
// multivariate-tpe set apart (4 and 6); the rest and the pending points form the bad group.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MULTIVARIATE_TPE_OPTIONS,
  multivariateTpe,
} from '../../../../../services/experiment/suggestion/models/multivariate-tpe.ts';
import {
  defaultBelowCount,
  splitByLoss,
  splitHistory,
  tpeSampler,
} from '../../../../../services/experiment/suggestion/models/tpe-core.ts';
import { axesOf } from '../../../../../services/experiment/suggestion/models/unit-space.ts';
import { createRng } from '../../../../../services/experiment/suggestion/rng.ts';
import type { Dimension } from '../../../../../services/experiment/suggestion/space.ts';

const dimensions: Dimension[] = [{ kind: 'float', name: 'x', low: 0, high: 1, distribution: 'uniform' }];
const axes = axesOf(dimensions);
// Trial i has x = i / 10 and loss (i * 3) % 10, so the ranks are scattered over the trial order.
const history = Array.from({ length: 10 }, (_, i) => ({ point: [i / 10], loss: (i * 3) % 10 }));

describe('splitByLoss', () => {
  it('takes the lowest losses, in trial order, weighted e^(−decay·rank/size)', () => {
    const { below, above } = splitByLoss(6)(axes, history, [[0.95]], () => 4);
    // Losses 0, 1, 2, 3 belong to trials 0, 7, 4, 1 (3·7 = 21, 3·4 = 12, 3·1 = 3).
    expect(below.points).toEqual([[0], [0.1], [0.4], [0.7]]);
    const rankOf = [0, 3, 2, 1];
    for (const [i, w] of below.weights.entries()) expect(w).toBeCloseTo(Math.exp((-6 * rankOf[i]!) / 4), 12);
    expect(above.points).toHaveLength(7);
    expect(above.points.at(-1)).toEqual([0.95]);
  });

  it('tpe keeps decay 4; a larger decay weighs the worse good trials less', () => {
    const tpeWeights = splitHistory(axes, history, [], () => 4).below.weights;
    const steeper = splitByLoss(6)(axes, history, [], () => 4).below.weights;
    expect(tpeWeights[1]).toBeCloseTo(Math.exp(-3), 12);
    expect(steeper[1]).toBeLessThan(tpeWeights[1]!);
    expect(steeper[0]).toBe(1);
  });

  it('leaves trials with an unusable loss out of both groups', () => {
    const withNaN = [...history, { point: [0.55], loss: Number.NaN }];
    const { below, above } = splitByLoss(6)(axes, withNaN, [], () => 4);
    expect(below.points.length + above.points.length).toBe(10);
  });
});

describe('multivariate-tpe', () => {
  const space = (count: number): Dimension[] =>
    Array.from({ length: count }, (_, i) => ({
      kind: 'float',
      name: `x${i}`,
      low: 0,
      high: 1,
      distribution: 'uniform',
    }));
  const request = (dims: Dimension[]) => {
    const rng = createRng(5);
    const trials = Array.from({ length: 30 }, () => {
      const point = dims.map(() => rng.next());
      return { point, loss: point.reduce((s: number, x) => s + (x - 0.3) ** 2, 0) };
    });
    return {
      dimensions: dims,
      history: trials,
      pending: [],
      count: 3,
      options: DEFAULT_MULTIVARIATE_TPE_OPTIONS,
    };
  };
  const setup = { nStartupTrials: 10, nEiCandidates: 24, nBelow: defaultBelowCount, priorWeight: 1 };
  const neighbourGaps = tpeSampler(() => ({ ...setup, split: splitByLoss(6) }));
  const scottsRule = tpeSampler(() => ({ ...setup, scottsRule: true }));

  it('below 10 parameters: neighbour gaps and decay 6; from 10: Scott’s rule and decay 4', () => {
    for (const [count, expected, other] of [
      [9, neighbourGaps, scottsRule],
      [10, scottsRule, neighbourGaps],
    ] as const) {
      const input = request(space(count));
      const points = multivariateTpe({ ...input, rng: createRng(11) });
      expect(points).toEqual(expected({ ...input, rng: createRng(11) }));
      expect(points).not.toEqual(other({ ...input, rng: createRng(11) }));
    }
  });
});
