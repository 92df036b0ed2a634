import { describe, expect, it } from 'vitest';
import {
  bayesianOptimization,
  DEFAULT_BAYESIAN_OPTIMIZATION_OPTIONS,
} from '../../../../../services/experiment/suggestion/models/bayesian-optimization.ts';
import { cmaes, DEFAULT_CMAES_OPTIONS } from '../../../../../services/experiment/suggestion/models/cmaes.ts';
import {
  DEFAULT_MULTIVARIATE_TPE_OPTIONS,
  multivariateTpe,
} from '../../../../../services/experiment/suggestion/models/multivariate-tpe.ts';
import { DEFAULT_TPE_OPTIONS, tpe } from '../../../../../services/experiment/suggestion/models/tpe.ts';
import { createRng } from '../../../../../services/experiment/suggestion/rng.ts';
import type {
  Dimension,
  Observation,
  Point,
  Sampler,
} from '../../../../../services/experiment/suggestion/space.ts';

const SAMPLERS: readonly [string, Sampler<never>, unknown][] = [
  ['tpe', tpe as Sampler<never>, DEFAULT_TPE_OPTIONS],
  ['multivariate-tpe', multivariateTpe as Sampler<never>, DEFAULT_MULTIVARIATE_TPE_OPTIONS],
  ['cmaes', cmaes as Sampler<never>, DEFAULT_CMAES_OPTIONS],
  ['bayesianoptimization', bayesianOptimization as Sampler<never>, DEFAULT_BAYESIAN_OPTIMIZATION_OPTIONS],
];

const MIXED: readonly Dimension[] = [
  { kind: 'float', name: 'lr', low: 1e-5, high: 1, distribution: 'log-uniform' },
  { kind: 'int', name: 'layers', low: 2, high: 10, step: 2, distribution: 'uniform' },
  { kind: 'float', name: 'dropout', low: 0, high: 0.5, step: 0.05, distribution: 'uniform' },
  { kind: 'float', name: 'momentum', low: 0.5, high: 0.99, distribution: 'normal' },
  { kind: 'categorical', name: 'optimizer', choices: ['sgd', 'adam', 'rmsprop'], numeric: false },
  { kind: 'categorical', name: 'batch', choices: ['16', '32', '64'], numeric: true },
];

/** A smooth loss over MIXED with its best at lr=1e-3, layers=6, dropout=0.2, momentum=0.9, adam, 32. */
function mixedLoss(point: Point): number {
  const [lr, layers, dropout, momentum, optimizer, batch] = point as [
    number,
    number,
    number,
    number,
    string,
    string,
  ];
  return (
    (Math.log10(lr) + 3) ** 2 +
    ((layers - 6) / 4) ** 2 +
    (dropout - 0.2) ** 2 +
    (momentum - 0.9) ** 2 +
    (optimizer === 'adam' ? 0 : 0.5) +
    (batch === '32' ? 0 : 0.3)
  );
}

function history(n: number, seed: number): Observation[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => {
    const point: Point = [
      10 ** (-5 + 5 * rng.next()),
      2 + 2 * rng.int(5),
      0.05 * rng.int(11),
      0.5 + 0.49 * rng.next(),
      ['sgd', 'adam', 'rmsprop'][rng.int(3)]!,
      ['16', '32', '64'][rng.int(3)]!,
    ];
    return { point, loss: mixedLoss(point) };
  });
}

function isValid(point: Point): boolean {
  const [lr, layers, dropout, momentum, optimizer, batch] = point;
  const onStep = (value: number, low: number, step: number) =>
    Math.abs((value - low) / step - Math.round((value - low) / step)) < 1e-9;
  return (
    typeof lr === 'number' &&
    lr >= 1e-5 &&
    lr <= 1 &&
    Number.isInteger(layers) &&
    (layers as number) >= 2 &&
    (layers as number) <= 10 &&
    onStep(layers as number, 2, 2) &&
    typeof dropout === 'number' &&
    dropout >= 0 &&
    dropout <= 0.5 + 1e-12 &&
    onStep(dropout, 0, 0.05) &&
    typeof momentum === 'number' &&
    momentum >= 0.5 &&
    momentum <= 0.99 &&
    ['sgd', 'adam', 'rmsprop'].includes(optimizer as string) &&
    ['16', '32', '64'].includes(batch as string)
  );
}

describe.each(SAMPLERS)('%s', (_name, sampler, options) => {
  const call = (n: number, seed: number, count: number, pending: Point[] = []) =>
    sampler({
      dimensions: MIXED,
      history: history(n, 7),
      pending,
      count,
      rng: createRng(seed),
      options: options as never,
    });

  it('gives the same points for the same request and seed, other points for another seed', () => {
    expect(call(30, 11, 3)).toEqual(call(30, 11, 3));
    expect(call(30, 12, 3)).not.toEqual(call(30, 11, 3));
  });

  it.each([0, 5, 30])(
    'returns exactly count distinct valid points, none pending (%i completed trials)',
    (n) => {
      const pending = call(n, 1, 4);
      const points = call(n, 2, 6, pending);
      expect(points).toHaveLength(6);
      for (const point of points) expect(isValid(point), JSON.stringify(point)).toBe(true);
      const keys = new Set([...pending, ...points].map((p) => JSON.stringify(p)));
      expect(keys.size).toBe(10);
    },
  );

  it('improves on a quadratic over mixed types in 60 sequential trials', () => {
    const observed: Observation[] = [];
    for (let t = 0; t < 60; t++) {
      const [point] = sampler({
        dimensions: MIXED,
        history: observed,
        pending: [],
        count: 1,
        rng: createRng(1000 + t),
        options: options as never,
      });
      observed.push({ point: point!, loss: mixedLoss(point!) });
    }
    const firstTen = Math.min(...observed.slice(0, 10).map((o) => o.loss));
    const best = Math.min(...observed.map((o) => o.loss));
    expect(best).toBeLessThan(firstTen);
    expect(best).toBeLessThan(1);
  });
});

describe('a space smaller than the batch', () => {
  const tiny: Dimension[] = [
    { kind: 'int', name: 'k', low: 1, high: 2, step: 1, distribution: 'uniform' },
    { kind: 'categorical', name: 'c', choices: ['a', 'b'], numeric: false },
  ];
  it.each(SAMPLERS)(
    '%s fills every free point first and still answers count points',
    (_name, sampler, options) => {
      const points = sampler({
        dimensions: tiny,
        history: [],
        pending: [[1, 'a']],
        count: 5,
        rng: createRng(3),
        options: options as never,
      });
      expect(points).toHaveLength(5);
      const distinct = new Set(points.map((p) => JSON.stringify(p)));
      expect(distinct.size).toBeGreaterThanOrEqual(3);
    },
  );
});
