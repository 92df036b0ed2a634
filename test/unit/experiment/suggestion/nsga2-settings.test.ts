// nsga2's settings: Optuna's defaults, and every refusal naming the setting, the value and what is
// allowed, from ValidateAlgorithmSettings and GetSuggestions alike.
import { describe, expect, it } from 'vitest';
import { ALGORITHMS } from '../../../../services/experiment/suggestion/registry.ts';
import { readNsga2Settings } from '../../../../services/experiment/suggestion/settings/nsga2.ts';
import { prepareExperiment, suggest } from '../../../../services/experiment/suggestion/suggest.ts';
import { invalidArgumentMessage, request } from './fixtures.ts';
import { twoObjectiveExperiment } from './multi-objective-problems.ts';

const refusal = invalidArgumentMessage;

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
