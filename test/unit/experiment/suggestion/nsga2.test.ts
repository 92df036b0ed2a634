// nsga2 through the use case: settings refusals, generations and elites, determinism, and the
// hypervolume it reaches on ZDT1 against random search with the same budget and seed.
import { describe, expect, it } from 'vitest';
import type { Experiment__Output } from '../../../../proto/gen/api/v1/beta1/Experiment.ts';
import type { Trial__Output } from '../../../../proto/gen/api/v1/beta1/Trial.ts';
import {
  parentPopulation,
  selectElite,
} from '../../../../services/experiment/suggestion/algorithms/nsga2-generations.ts';
import { hypervolume } from '../../../../services/experiment/suggestion/multi-objective/hypervolume.ts';
import type { ScoredTrial } from '../../../../services/experiment/suggestion/multi-objective/objectives.ts';
import { ALGORITHMS } from '../../../../services/experiment/suggestion/registry.ts';
import { createRng } from '../../../../services/experiment/suggestion/rng.ts';
import { readNsga2Settings } from '../../../../services/experiment/suggestion/settings/nsga2.ts';
import { prepareExperiment, suggest } from '../../../../services/experiment/suggestion/suggest.ts';
import { AppError } from '../../../../shared/errors.ts';
import { assignmentsOf, double, experiment, request, trial } from './fixtures.ts';

const ZDT_VARIABLES = 10;
const ZDT_SPACE = Array.from({ length: ZDT_VARIABLES }, (_, i) => double(`x${i}`, '0', '1'));

/** ZDT1 (Zitzler, Deb & Thiele 2000): a convex front f2 = 1 − √f1 where x1..x9 are 0. */
function zdt1(x: readonly number[]): [number, number] {
  const f1 = x[0]!;
  const g = 1 + (9 / (x.length - 1)) * x.slice(1).reduce((sum, v) => sum + v, 0);
  return [f1, g * (1 - Math.sqrt(f1 / g))];
}

function twoObjectiveExperiment(algorithm: string, settings: Record<string, string>): Experiment__Output {
  const exp = experiment({ algorithm, settings, parameters: ZDT_SPACE, type: 'MINIMIZE', metric: 'f1' });
  exp.spec!.objective!.additional_metric_names = ['f2'];
  return exp;
}

/** Runs an experiment as Katib's controller would: batches of `batch`, each trial reporting f1 and f2. */
function runZdt1(exp: Experiment__Output, trialCount: number, batch: number): number[][] {
  const trials: Trial__Output[] = [];
  const losses: number[][] = [];
  while (trials.length < trialCount) {
    const { reply } = suggest(request(exp, trials, batch), ALGORITHMS);
    for (const set of assignmentsOf(reply)) {
      const [f1, f2] = zdt1(ZDT_SPACE.map((p) => Number(set[p.name])));
      losses.push([f1, f2]);
      trials.push(trial(`t${trials.length}`, set, 'SUCCEEDED', { f1: String(f1), f2: String(f2) }));
    }
  }
  return losses;
}

function refusal(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('INVALID_ARGUMENT');
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('nsga2 settings', () => {
  const read = (settings: Record<string, string>) => readNsga2Settings(new Map(Object.entries(settings)));

  it("Optuna's defaults; None for mutation_prob is the default", () => {
    expect(read({})).toEqual({
      populationSize: 50,
      crossover: 'uniform',
      crossoverProb: 0.9,
      swappingProb: 0.5,
    });
    expect(read({ mutation_prob: 'None' })).toEqual(read({}));
    expect(
      read({
        population_size: '8',
        mutation_prob: '0.25',
        crossover: 'sbx',
        crossover_prob: '1',
        swapping_prob: '0',
        random_state: '3',
        objectives: 'a:maximize',
      }),
    ).toEqual({
      objectives: 'a:maximize',
      populationSize: 8,
      mutationProb: 0.25,
      crossover: 'sbx',
      crossoverProb: 1,
      swappingProb: 0,
      randomState: 3,
    });
  });

  it.each([
    [{ population_size: '1' }, 'population_size 1 is not allowed: an integer >= 2'],
    [
      { population_size: '2.5' },
      "failed to validate population_size(2.5): invalid literal for int() with base 10: '2.5'",
    ],
    [
      { mutation_prob: '1.5' },
      'mutation_prob 1.5 is not allowed: None or a number between 0 and 1, inclusive',
    ],
    [
      { mutation_prob: 'nan' },
      'mutation_prob nan is not allowed: None or a number between 0 and 1, inclusive',
    ],
    [{ crossover: 'vsbx' }, 'crossover vsbx is not allowed: one of uniform, sbx, blxalpha, spx, undx'],
    [{ crossover: 'SBX' }, 'crossover SBX is not allowed: one of uniform, sbx, blxalpha, spx, undx'],
    [
      { crossover: 'undx', population_size: '2' },
      'population_size 2 is not allowed: at least 3 with crossover undx, which takes 3 parents',
    ],
    [{ crossover_prob: '-0.1' }, 'crossover_prob -0.1 is not allowed: a number between 0 and 1, inclusive'],
    [
      { swapping_prob: 'half' },
      "failed to validate swapping_prob(half): could not convert string to float: 'half'",
    ],
    [{ swapping_prob: '2' }, 'swapping_prob 2 is not allowed: a number between 0 and 1, inclusive'],
    [{ random_state: '-1' }, 'random_state -1 is not allowed: an integer >= 0'],
    [{ n_generations: '5' }, 'unknown setting n_generations for algorithm nsga2'],
  ])('refuses %j', (settings, message) => {
    expect(refusal(() => read(settings))).toBe(message);
  });

  it('ValidateAlgorithmSettings and GetSuggestions refuse objectives that do not fit the experiment alike', () => {
    const exp = twoObjectiveExperiment('nsga2', { objectives: 'f1:minimize,f3:minimize' });
    const expected =
      'objectives "f1:minimize,f3:minimize": f3 must also be one of objective.additional_metric_names (now: f2), or Katib\'s metrics collector never reports it';
    expect(refusal(() => prepareExperiment(exp, ALGORITHMS))).toBe(expected);
    expect(refusal(() => prepareExperiment(exp, ALGORITHMS, { settingsOnlyWithoutParameters: true }))).toBe(
      expected,
    );
    expect(refusal(() => suggest(request(exp), ALGORITHMS))).toBe(expected);
  });
});

describe('generations and elites', () => {
  const scored = (losses: number[][]): ScoredTrial[] =>
    losses.map((l, index) => ({ index, point: [index], losses: l }));

  it('whole fronts first, then the least crowded of the front that does not fit', () => {
    const population = scored([
      [0, 1], // front 0
      [1, 0], // front 0
      [1, 3.5], // front 1, an end of it
      [1.1, 3.4], // front 1, crowded between its neighbours
      [3, 1], // front 1, the other end
      [5, 5], // front 2
    ]);
    const elite = selectElite(population, 4, createRng(1)).map((t) => t.index);
    expect(elite).toEqual([0, 1, 2, 4]);
  });

  it('generations are the completed trials in order; generation 0 alone gives no parents until full', () => {
    const trials = scored([
      [3, 3],
      [2, 2],
      [1, 1],
      [0, 5],
      [5, 0],
      [4, 4],
    ]);
    expect(parentPopulation(trials.slice(0, 2), 3, 7)).toEqual([]);
    // Generation 0 is trials 0-2 (all parents); generation 1 adds 3-5; the elite of the six is
    // the front {2, 3, 4}.
    const indices = (parents: ScoredTrial[]) => parents.map((t) => t.index).sort();
    expect(indices(parentPopulation(trials.slice(0, 3), 3, 7))).toEqual([0, 1, 2]);
    expect(indices(parentPopulation(trials.slice(0, 5), 3, 7))).toEqual([0, 1, 2]);
    expect(
      parentPopulation(trials, 3, 7)
        .map((t) => t.index)
        .sort(),
    ).toEqual([2, 3, 4]);
  });

  it('generations follow completion_time, not request order: the same trials in another order give the same reply', () => {
    const exp = twoObjectiveExperiment('nsga2', {
      objectives: 'f1:minimize,f2:minimize',
      population_size: '4',
      random_state: '2',
    });
    const rng = createRng(12);
    const trials = Array.from({ length: 10 }, (_, i) => {
      const set = Object.fromEntries(ZDT_SPACE.map((p) => [p.name, String(rng.next())]));
      const [f1, f2] = zdt1(ZDT_SPACE.map((p) => Number(set[p.name])));
      const done = trial(`z${(i * 7) % 10}-${i}`, set, 'SUCCEEDED', { f1: String(f1), f2: String(f2) });
      done.status!.completion_time = `2026-01-01T00:00:${String(i).padStart(2, '0')}Z`;
      return done;
    });
    const byName = [...trials].sort((a, b) => (a.name < b.name ? -1 : 1));
    expect(byName.map((t) => t.name)).not.toEqual(trials.map((t) => t.name));
    const reply = suggest(request(exp, trials, 4), ALGORITHMS).reply;
    expect(suggest(request(exp, byName, 4), ALGORITHMS).reply).toEqual(reply);
    // Without completion times the listing order is the order, and the parents differ.
    const untimed = (list: typeof trials) =>
      list.map((t) => ({ ...t, status: { ...t.status!, completion_time: '' } }));
    expect(suggest(request(exp, untimed(byName), 4), ALGORITHMS).reply).not.toEqual(
      suggest(request(exp, untimed(trials), 4), ALGORITHMS).reply,
    );
  });

  it('after the first generation, children recombine the parents (uniform crossover, no mutation)', () => {
    const exp = twoObjectiveExperiment('nsga2', {
      objectives: 'f1:minimize,f2:minimize',
      population_size: '6',
      mutation_prob: '0',
      crossover_prob: '1',
      random_state: '5',
    });
    const trials = assignmentsOf(suggest(request(exp, [], 6), ALGORITHMS).reply).map((set, i) => {
      const [f1, f2] = zdt1(ZDT_SPACE.map((p) => Number(set[p.name])));
      return trial(`t${i}`, set, 'SUCCEEDED', { f1: String(f1), f2: String(f2) });
    });
    const parentValues = ZDT_SPACE.map(
      (p) =>
        new Set(
          trials.map((t) => t.spec!.parameter_assignments!.assignments.find((a) => a.name === p.name)!.value),
        ),
    );
    const children = assignmentsOf(suggest(request(exp, trials, 8), ALGORITHMS).reply);
    expect(children).toHaveLength(8);
    for (const child of children)
      ZDT_SPACE.forEach((p, d) => {
        expect(parentValues[d]!.has(child[p.name]!)).toBe(true);
      });

    // The same trials without f2 cannot be ranked: no generation is full, the draw is random.
    const withoutF2 = trials.map((t) => ({
      ...t,
      status: { ...t.status!, observation: { metrics: t.status!.observation!.metrics.slice(0, 1) } },
    }));
    const drawn = assignmentsOf(suggest(request(exp, withoutF2, 8), ALGORITHMS).reply);
    expect(drawn.some((set) => ZDT_SPACE.some((p, d) => !parentValues[d]!.has(set[p.name]!)))).toBe(true);
  });
});

describe('nsga2 replies', () => {
  it('the same request gives the same reply; another random_state another one', () => {
    const make = (seed: string) =>
      twoObjectiveExperiment('nsga2', {
        objectives: 'f1:minimize,f2:minimize',
        population_size: '10',
        random_state: seed,
      });
    expect(runZdt1(make('1'), 40, 5)).toEqual(runZdt1(make('1'), 40, 5));
    expect(runZdt1(make('1'), 40, 5)).not.toEqual(runZdt1(make('2'), 40, 5));
  });

  it.each(['uniform', 'sbx', 'blxalpha', 'spx', 'undx'])(
    '%s: every value in range, the batch distinct',
    (crossover) => {
      const exp = twoObjectiveExperiment('nsga2', {
        objectives: 'f1:minimize,f2:minimize',
        population_size: '8',
        crossover,
        random_state: '9',
      });
      const losses = runZdt1(exp, 40, 8);
      expect(losses).toHaveLength(40);
      for (const [f1] of losses) expect(f1! >= 0 && f1! <= 1).toBe(true);
      expect(new Set(losses.map((l) => l.join())).size).toBe(40);
    },
  );

  it.each(['uniform', 'sbx', 'blxalpha', 'spx', 'undx'])(
    'ZDT1, two objectives, 300 trials: %s reaches a larger hypervolume than random on each of five seeds',
    (crossover) => {
      // ZDT's customary reference point: random points of ten variables have f2 up to about 10.
      const reference = [1.1, 11];
      const volumes = [1, 2, 3, 4, 5].map((seed) => {
        const settings = { random_state: String(seed) };
        const nsga = runZdt1(
          twoObjectiveExperiment('nsga2', {
            ...settings,
            objectives: 'f1:minimize,f2:minimize',
            population_size: '20',
            crossover,
          }),
          300,
          10,
        );
        const random = runZdt1(twoObjectiveExperiment('random', settings), 300, 10);
        return [hypervolume(nsga, reference), hypervolume(random, reference)];
      });
      for (const [nsgaVolume, randomVolume] of volumes) expect(nsgaVolume).toBeGreaterThan(randomVolume!);
      // Medians seen: uniform 10.46, sbx 10.71, blxalpha 10.47, spx 9.96, undx 10.12; random 9.49
      // (the true front's is 12.1 − 1/3 ≈ 11.77). The three-parent crossovers gain least here.
      const median = (values: number[]) => values.sort((a, b) => a - b)[2]!;
      const gain = crossover === 'spx' || crossover === 'undx' ? 0.3 : 0.7;
      expect(median(volumes.map((v) => v[0]!))).toBeGreaterThan(median(volumes.map((v) => v[1]!)) + gain);
    },
  );
});
