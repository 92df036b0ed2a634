import { describe, expect, it } from 'vitest';
import { randomSampler } from '../../../../../services/experiment/suggestion/algorithms/random.ts';
import {
  type AcquisitionFunction,
  bayesianOptimization,
  DEFAULT_BAYESIAN_OPTIMIZATION_OPTIONS,
} from '../../../../../services/experiment/suggestion/models/bayesian-optimization.ts';
import { createRng } from '../../../../../services/experiment/suggestion/rng.ts';
import type { Dimension, Observation } from '../../../../../services/experiment/suggestion/space.ts';

const SPACE: Dimension[] = [
  { kind: 'float', name: 'x', low: -2, high: 2, distribution: 'uniform' },
  { kind: 'float', name: 'y', low: -2, high: 2, distribution: 'uniform' },
];
const loss = (x: number, y: number) => (x - 0.7) ** 2 + 2 * (y + 0.3) ** 2;

function history(n: number): Observation[] {
  const rng = createRng(5);
  return Array.from({ length: n }, () => {
    const x = -2 + 4 * rng.next();
    const y = -2 + 4 * rng.next();
    return { point: [x, y], loss: loss(x, y) };
  });
}

describe('bayesianoptimization', () => {
  it.each(['gp_hedge', 'EI', 'PI', 'LCB', 'EIps', 'PIps'] as AcquisitionFunction[])(
    'with %s proposes a point better than most of 20 random ones',
    (acqFunc) => {
      const observed = history(20);
      const [point] = bayesianOptimization({
        dimensions: SPACE,
        history: observed,
        pending: [],
        count: 1,
        rng: createRng(1),
        options: { ...DEFAULT_BAYESIAN_OPTIMIZATION_OPTIONS, acqFunc },
      });
      const value = loss(point![0] as number, point![1] as number);
      const sorted = observed.map((o) => o.loss).sort((a, b) => a - b);
      expect(value).toBeLessThan(sorted[5]!);
    },
  );

  it('draws at random until n_initial_points trials are complete', () => {
    const options = { ...DEFAULT_BAYESIAN_OPTIMIZATION_OPTIONS, nInitialPoints: 25 };
    const call = (seed: number, observed: Observation[], count = 2) =>
      bayesianOptimization({
        dimensions: SPACE,
        history: observed,
        pending: [],
        count,
        rng: createRng(seed),
        options,
      });
    // Each coordinate is the seed's next uniform draw in [0, 1) stretched over [-2, 2]: what the
    // random sampler draws for the same seed.
    const draws = createRng(1);
    const uniform = () => -2 + 4 * draws.next();
    const expected = [
      [uniform(), uniform()],
      [uniform(), uniform()],
    ];
    expect(call(1, history(20))).toEqual(expected);
    expect(
      randomSampler({
        dimensions: SPACE,
        history: history(20),
        pending: [],
        count: 2,
        rng: createRng(1),
        options: {},
      }),
    ).toEqual(expected);
    // The losses play no part yet, the seed does.
    const reversed = history(20).map((o) => ({ ...o, loss: -o.loss }));
    expect(call(1, reversed)).toEqual(expected);
    expect(call(1, [])).toEqual(expected);
    expect(call(2, history(20))).not.toEqual(expected);
    // Uniform within the bounds: every draw inside, each half of each axis hit about as often.
    const many = call(7, history(20), 400).map((p) => p as number[]);
    for (const [x, y] of many) expect([x! >= -2 && x! <= 2, y! >= -2 && y! <= 2]).toEqual([true, true]);
    for (const axis of [0, 1]) {
      const below = many.filter((p) => p[axis]! < 0).length;
      expect(below).toBeGreaterThan(160);
      expect(below).toBeLessThan(240);
    }
    // From the 25th complete trial on, the model proposes instead.
    expect(call(1, history(25))).not.toEqual(expected);
  });

  it('spreads a batch with the kriging believer instead of repeating the best point', () => {
    const points = bayesianOptimization({
      dimensions: SPACE,
      history: history(25),
      pending: [],
      count: 4,
      rng: createRng(3),
      options: { ...DEFAULT_BAYESIAN_OPTIMIZATION_OPTIONS, acqFunc: 'EI' },
    });
    const gaps = points.flatMap((p, i) =>
      points
        .slice(i + 1)
        .map((q) => Math.hypot((p[0] as number) - (q[0] as number), (p[1] as number) - (q[1] as number))),
    );
    expect(Math.min(...gaps)).toBeGreaterThan(1e-3);
  });

  it('converges on a quadratic within 30 trials with the sampling-only optimiser', () => {
    const observed = history(10);
    for (let t = 0; t < 20; t++) {
      const [point] = bayesianOptimization({
        dimensions: SPACE,
        history: observed,
        pending: [],
        count: 1,
        rng: createRng(100 + t),
        options: { ...DEFAULT_BAYESIAN_OPTIMIZATION_OPTIONS, acqOptimizer: 'sampling' },
      });
      observed.push({ point: point!, loss: loss(point![0] as number, point![1] as number) });
    }
    expect(Math.min(...observed.map((o) => o.loss))).toBeLessThan(0.01);
  });

  it('sends one point in five to the expected minimum, unless a trial has been there', () => {
    // On an integer grid the expected minimum is often the best trial itself: that would teach nothing.
    const grid: Dimension[] = ['a', 'b'].map((name) => ({
      kind: 'int' as const,
      name,
      low: 0,
      high: 20,
      step: 1,
      distribution: 'uniform' as const,
    }));
    const gridLoss = (a: number, b: number) => (a - 13) ** 2 + (b - 6) ** 2;
    const rng = createRng(3);
    const observed: Observation[] = [{ point: [13, 6], loss: 0 }];
    while (observed.length < 20) {
      const [a, b] = [rng.int(21), rng.int(21)];
      if (!observed.some((o) => o.point[0] === a && o.point[1] === b))
        observed.push({ point: [a, b], loss: gridLoss(a, b) });
    }
    const suggest = (history: Observation[]) =>
      bayesianOptimization({
        dimensions: grid,
        history,
        pending: [],
        count: 1,
        rng: createRng(7),
        options: DEFAULT_BAYESIAN_OPTIMIZATION_OPTIONS,
      })[0]!;
    // 20 completed: this call is one of the five's first; the best trial is at the minimum.
    expect(suggest(observed)).not.toEqual([13, 6]);
    // Without that trial, the expected minimum is where it goes.
    const near = observed.slice(1);
    near.push({ point: [12, 6], loss: gridLoss(12, 6) }, { point: [14, 6], loss: gridLoss(14, 6) });
    near.push({ point: [13, 5], loss: gridLoss(13, 5) }, { point: [13, 7], loss: gridLoss(13, 7) });
    expect(near.length % 5).toBe(3);
    near.push({ point: [0, 0], loss: gridLoss(0, 0) }, { point: [20, 20], loss: gridLoss(20, 20) });
    expect(suggest(near)).toEqual([13, 6]);
  });
});
