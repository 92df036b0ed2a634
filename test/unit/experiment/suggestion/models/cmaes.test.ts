import { describe, expect, it } from 'vitest';
import {
  cmaes,
  DEFAULT_CMAES_OPTIONS,
  forgetReplayCheckpoints,
  type RestartStrategy,
} from '../../../../../services/experiment/suggestion/models/cmaes.ts';
import { createRng } from '../../../../../services/experiment/suggestion/rng.ts';
import type { Dimension, Observation } from '../../../../../services/experiment/suggestion/space.ts';

const SPACE: Dimension[] = [
  { kind: 'float', name: 'x', low: -5, high: 5, distribution: 'uniform' },
  { kind: 'float', name: 'y', low: -5, high: 5, distribution: 'uniform' },
];

/** Runs `trials` sequential suggestions of CMA-ES on `loss` in `dimensions` and returns the history. */
function sequential(
  dimensions: readonly Dimension[],
  loss: (point: Observation['point']) => number,
  trials: number,
  {
    options = DEFAULT_CMAES_OPTIONS,
    budget,
    fresh = false,
  }: {
    options?: typeof DEFAULT_CMAES_OPTIONS;
    /** max_trial_count; undefined: the experiment sets none. */
    budget?: number;
    /** Forget the replay checkpoints before each call, so every call replays in full. */
    fresh?: boolean;
  } = {},
): Observation[] {
  const history: Observation[] = [];
  for (let t = 0; t < trials; t++) {
    if (fresh) forgetReplayCheckpoints();
    const [point] = cmaes({ dimensions, history, pending: [], count: 1, rng: createRng(t), options, budget });
    history.push({ point: point!, loss: loss(point!) });
  }
  return history;
}

/** `sequential` in SPACE with a restart strategy. */
const run = (
  loss: (x: number, y: number) => number,
  restartStrategy: RestartStrategy,
  trials: number,
  budget: number | undefined,
): Observation[] =>
  sequential(SPACE, (p) => loss(p[0] as number, p[1] as number), trials, {
    options: { ...DEFAULT_CMAES_OPTIONS, restartStrategy },
    budget,
  });

describe('cmaes', () => {
  it('converges on a shifted quadratic from the history alone', () => {
    const history = run((x, y) => (x - 1.5) ** 2 + (y + 2) ** 2, 'none', 80, 80);
    expect(Math.min(...history.map((o) => o.loss))).toBeLessThan(1e-3);
  });

  it('learns a narrow valley with active CMA when the experiment runs more than 100 trials', () => {
    // An ellipsoid of condition 1e6, rotated 45° so no axis lines up with it.
    const valley = (x: number, y: number) => {
      const u = (x - 1 + (y + 1)) / Math.SQRT2;
      const v = (x - 1 - (y + 1)) / Math.SQRT2;
      return u * u + 1e6 * v * v;
    };
    const best = (budget: number | undefined) =>
      Math.min(...run(valley, 'none', 400, budget).map((o) => o.loss));
    // The greedy weights (a budget of 100 or less) are the same run whatever that budget is.
    expect(run(valley, 'none', 30, 50)).toEqual(run(valley, 'none', 30, 100));
    expect(run(valley, 'none', 30, 100)).not.toEqual(run(valley, 'none', 30, 101));
    // With no max_trial_count the run may be long: active, as with a large budget.
    expect(run(valley, 'none', 30, undefined)).toEqual(run(valley, 'none', 30, 500));
    expect(best(500)).toBeLessThan(best(100) / 100);
  });

  it.each(['ipop', 'bipop'] as const)(
    'restarts with %s when a generation is flat, and the replay stays deterministic',
    (strategy) => {
      const flat = run(() => 1, 'none', 30, 30);
      const next = (restartStrategy: RestartStrategy) =>
        cmaes({
          dimensions: SPACE,
          history: flat,
          pending: [],
          count: 3,
          rng: createRng(99),
          options: { sigma: undefined, restartStrategy },
        });
      expect(next(strategy)).toEqual(next(strategy));
      expect(next(strategy)).not.toEqual(next('none'));
    },
  );

  it('takes sigma in the parameters’ units: a tiny sigma keeps the first points near the centre', () => {
    const points = cmaes({
      dimensions: SPACE,
      history: [],
      pending: [],
      count: 5,
      rng: createRng(1),
      options: { sigma: 0.01, restartStrategy: 'none' },
    });
    for (const [x, y] of points) expect(Math.hypot(x as number, y as number)).toBeLessThan(0.1);
  });

  it('rounds integer parameters and keeps neighbouring values reachable', () => {
    const space: Dimension[] = [
      { kind: 'int', name: 'k', low: 0, high: 20, step: 1, distribution: 'uniform' },
      { kind: 'float', name: 'y', low: -5, high: 5, distribution: 'uniform' },
    ];
    const history = sequential(space, (p) => ((p[0] as number) - 7) ** 2 + (p[1] as number) ** 2, 60);
    for (const o of history) expect(Number.isInteger(o.point[0])).toBe(true);
    expect(history.some((o) => o.point[0] === 7)).toBe(true);
  });

  describe('with a categorical parameter', () => {
    const space: Dimension[] = [
      ...SPACE,
      { kind: 'categorical', name: 'optimizer', choices: ['sgd', 'adam', 'rmsprop'], numeric: false },
    ];
    const PENALTY: Record<string, number> = { sgd: 4, adam: 0, rmsprop: 2 };
    const loss = (point: Observation['point']) =>
      ((point[0] as number) - 1) ** 2 + ((point[1] as number) + 2) ** 2 + PENALTY[point[2] as string]!;
    const runMixed = (trials: number, fresh: boolean) =>
      sequential(space, loss, trials, { budget: trials, fresh });

    it('learns the best category from the ranks instead of drawing it at random', () => {
      const history = runMixed(100, false);
      const late = history.slice(60).filter((o) => o.point[2] === 'adam').length;
      // Uniform draws would give about 13 of the 40.
      expect(late).toBeGreaterThan(28);
      expect(Math.min(...history.map((o) => o.loss))).toBeLessThan(0.05);
    });

    it('resumes a replay with the same suggestions as a full replay', () => {
      expect(runMixed(40, false)).toEqual(runMixed(40, true));
    });

    it('ignores a trial value that is not one of the categories, and still uses its numbers', () => {
      const history = runMixed(20, true).map((o, i) =>
        i === 2 ? { ...o, point: [o.point[0]!, o.point[1]!, 'lbfgs'] } : o,
      );
      const next = cmaes({
        dimensions: space,
        history,
        pending: [],
        count: 3,
        rng: createRng(5),
        options: DEFAULT_CMAES_OPTIONS,
      });
      for (const point of next) expect(['sgd', 'adam', 'rmsprop']).toContain(point[2]);
    });
  });

  it('resumes a replay from the last call of the experiment with the same suggestions as a full replay', () => {
    const loss = (point: Observation['point']) => ((point[0] as number) - 1) ** 2 + (point[1] as number) ** 2;
    const suggestOne = (history: readonly Observation[], seed: number, fresh: boolean) => {
      if (fresh) forgetReplayCheckpoints();
      return cmaes({
        dimensions: SPACE,
        history,
        pending: [],
        count: 2,
        rng: createRng(seed),
        options: DEFAULT_CMAES_OPTIONS,
      });
    };
    // Two experiments in turn, as a server sees them; one of them then sees a history that differs
    // early on (another experiment with the same space), which must not resume the first's replay.
    const histories: Observation[][] = [[], []];
    for (let t = 0; t < 60; t++)
      for (const [e, history] of histories.entries()) {
        const kept = suggestOne(history, t * 2 + e, false);
        expect(kept).toEqual(suggestOne(history, t * 2 + e, true));
        // Leave the kept checkpoints as a server would have them: the call again, resumed.
        suggestOne(history, t * 2 + e, false);
        history.push({ point: kept[0]!, loss: loss(kept[0]!) });
      }
    const altered = histories[0]!.map((o, i) => (i === 3 ? { ...o, loss: -1000 } : o));
    const resumed = suggestOne(altered, 7, false);
    expect(resumed).toEqual(suggestOne(altered, 7, true));
    expect(resumed).not.toEqual(suggestOne(histories[0]!, 7, true));
  });
});
