// The use case through the registry: both calls answer the same checks; replies are exact,
// distinct and deterministic for every registered algorithm.
import { describe, expect, it } from 'vitest';
import type { Experiment__Output } from '../../../../proto/gen/api/v1/beta1/Experiment.ts';
import { ALGORITHMS, HP_ALGORITHM_NAMES } from '../../../../services/experiment/suggestion/registry.ts';
import { prepareExperiment, suggest } from '../../../../services/experiment/suggestion/suggest.ts';
import {
  assignmentsOf,
  categorical,
  discrete,
  double,
  experiment,
  int,
  invalidArgumentMessage,
  MIXED,
  request,
  trial,
} from './fixtures.ts';

const SETTINGS: Record<string, Record<string, string>> = {
  hyperband: { r_l: '9', resource_name: 'layers' },
  pbt: { suggestion_trial_dir: '/tmp', n_population: '5', truncation_threshold: '0.2' },
};
const GRID_SPACE = [...MIXED.slice(1), double('dropout', '0', '0.5', { step: '0.1' })];
const spaceOf = (algorithm: string) => (algorithm === 'grid' ? GRID_SPACE : MIXED);
const make = (algorithm: string, extra: Partial<Parameters<typeof experiment>[0]> = {}) =>
  experiment({
    algorithm,
    settings: SETTINGS[algorithm] ?? {},
    parameters: spaceOf(algorithm),
    parallel: 9,
    ...extra,
  });

/** Both calls must refuse with INVALID_ARGUMENT and the same message. */
function bothReject(exp: Experiment__Output): string {
  const messages = [() => prepareExperiment(exp, ALGORITHMS), () => suggest(request(exp), ALGORITHMS)].map(
    invalidArgumentMessage,
  );
  expect(messages[1]).toBe(messages[0]);
  return messages[0]!;
}

describe('both calls refuse bad input alike', () => {
  it('an unknown or missing algorithm', () => {
    expect(bothReject(experiment({ algorithm: 'unknown' }))).toBe('unknown algorithm name unknown');
    expect(bothReject(experiment({ algorithm: '' }))).toBe(
      'experiment.spec.algorithm.algorithm_name is required',
    );
  });

  it.each(HP_ALGORITHM_NAMES)('%s: an unknown setting, a bad search space', (algorithm) => {
    expect(bothReject(make(algorithm, { settings: { ...SETTINGS[algorithm], bogus: '1' } }))).toBe(
      `unknown setting bogus for algorithm ${algorithm}`,
    );
    expect(bothReject(make(algorithm, { parameters: [...spaceOf(algorithm), int('n', '5', '1')] }))).toBe(
      'parameter n: min 5 is greater than max 1',
    );
  });

  it('grid: a DOUBLE without step, a grid smaller than maxTrialCount', () => {
    expect(
      bothReject(
        experiment({ algorithm: 'grid', parameters: [int('a', '1', '5'), double('b', '1', '5')], max: 26 }),
      ),
    ).toBe(
      'failed to validate parameters(a, b): Param b step is nil; For discrete search space, all parameters must include step',
    );
    expect(
      bothReject(
        experiment({
          algorithm: 'grid',
          parameters: [int('a', '1', '5'), double('b', '1', '5', { step: '1' })],
          max: 26,
        }),
      ),
    ).toBe('Max Trial Count: 26 > all possible search combinations: 25');
    expect(() =>
      prepareExperiment(
        experiment({ algorithm: 'grid', parameters: [int('a', '1', '5')], max: 5 }),
        ALGORITHMS,
      ),
    ).not.toThrow();
  });

  it('hyperband: parallelism below the first bracket, a resource that is no parameter', () => {
    expect(bothReject(make('hyperband', { parallel: 8 }))).toBe(
      'parallelTrialCount must be not less than 9.',
    );
    expect(bothReject(make('hyperband', { settings: { r_l: '9', resource_name: 'epochs' } }))).toBe(
      'value of resource_name setting must be in parameters.',
    );
    expect(bothReject(make('hyperband', { settings: { r_l: '9', resource_name: 'optimizer' } }))).toBe(
      'parameter optimizer: the resource of hyperband must be INT or DOUBLE',
    );
  });

  it('sobol: more parameters than direction numbers', () => {
    const many = Array.from({ length: 33 }, (_, i) => double(`x${i}`, '0', '1'));
    expect(bothReject(experiment({ algorithm: 'sobol', parameters: many }))).toBe(
      'sobol supports at most 32 parameters; the experiment has 33',
    );
  });

  it('ValidateAlgorithmSettings without parameters checks the settings alone, as Katib (its own test vectors)', () => {
    const settingsOnly = { settingsOnlyWithoutParameters: true };
    const bare = (algorithm: string, settings: Record<string, string>) =>
      experiment({ algorithm, settings, parameters: [] });
    const tpe = bare('tpe', {
      random_state: '10',
      gamma: '0.25',
      prior_weight: '1.0',
      n_EI_candidates: '24',
    });
    expect(() => prepareExperiment(tpe, ALGORITHMS, settingsOnly)).not.toThrow();
    expect(() => prepareExperiment(bare('tpe', { gamma: '1.5' }), ALGORITHMS, settingsOnly)).toThrow(
      'gamma should be in the range of (0, 1)',
    );
    expect(() =>
      prepareExperiment(bare('hyperband', { r_l: '1', resource_name: 'x' }), ALGORITHMS, settingsOnly),
    ).toThrow('value of resource_name setting must be in parameters.');
    expect(() => suggest(request(tpe), ALGORITHMS)).toThrow(
      'experiment.spec.parameter_specs: no parameters to search',
    );
  });

  it('a request number out of range', () => {
    expect(() => suggest(request(make('random'), [], -1), ALGORITHMS)).toThrow(
      'current_request_number must be between 0 and 10000, got -1',
    );
    expect(suggest(request(make('random'), [], 0), ALGORITHMS).reply.parameter_assignments).toEqual([]);
  });
});

describe('replies', () => {
  const history = (algorithm: string, n: number) => {
    let trials: ReturnType<typeof trial>[] = [];
    for (let round = 0; round < n; round++) {
      const { reply } = suggest(request(make(algorithm), trials, 3, trials.length + 3), ALGORITHMS);
      trials = [
        ...trials,
        ...assignmentsOf(reply).map((a, i) =>
          trial(
            reply.parameter_assignments![i]!.trial_name || `t${trials.length + i}`,
            a,
            'SUCCEEDED',
            {
              accuracy: String(Number(a.layers) / 10),
            },
            { startTime: `2024-01-01T00:00:${String(trials.length + i).padStart(2, '0')}Z` },
          ),
        ),
      ];
    }
    return trials;
  };

  it.each(HP_ALGORITHM_NAMES)(
    '%s: exactly current_request_number distinct sets, every parameter, deterministic',
    (algorithm) => {
      const trials = history(algorithm, 2);
      const first = suggest(request(make(algorithm), trials, 4), ALGORITHMS).reply;
      const again = suggest(request(make(algorithm), trials, 4), ALGORITHMS).reply;
      expect(again).toEqual(first);
      const sets = assignmentsOf(first);
      expect(sets).toHaveLength(4);
      for (const set of sets) expect(Object.keys(set)).toEqual(spaceOf(algorithm).map((p) => p.name));
      if (algorithm !== 'hyperband' && algorithm !== 'pbt')
        expect(new Set(sets.map((s) => JSON.stringify(s))).size).toBe(4);
    },
  );

  it('random_state changes the draw; the same random_state reproduces it across experiment names', () => {
    const draw = (name: string, randomState?: string) =>
      assignmentsOf(
        suggest(
          request(
            experiment({
              name,
              algorithm: 'random',
              settings: randomState ? { random_state: randomState } : {},
            }),
          ),
          ALGORITHMS,
        ).reply,
      );
    expect(draw('a', '7')).toEqual(draw('b', '7'));
    expect(draw('a', '7')).not.toEqual(draw('a', '8'));
    expect(draw('a')).not.toEqual(draw('b'));
  });

  it('random keeps every value inside its range under every distribution', () => {
    const parameters = [
      double('u', '-1', '1'),
      double('lu', '0.001', '10', { distribution: 'LOG_UNIFORM' }),
      double('n', '2', '4', { distribution: 'NORMAL' }),
      double('ln', '1', '1000', { distribution: 'LOG_NORMAL', step: '0.5' }),
      int('i', '-3', '3', { distribution: 'NORMAL' }),
      int('li', '1', '1024', { distribution: 'LOG_UNIFORM', step: '3' }),
    ];
    const sets = assignmentsOf(
      suggest(request(experiment({ algorithm: 'random', parameters }), [], 500), ALGORITHMS).reply,
    );
    const values = (name: string) => sets.map((s) => Number(s[name]));
    for (const p of parameters) {
      const v = values(p.name);
      expect(Math.min(...v)).toBeGreaterThanOrEqual(Number(p.feasible_space!.min));
      expect(Math.max(...v)).toBeLessThanOrEqual(Number(p.feasible_space!.max));
    }
    // NORMAL centres on (min+max)/2 with σ = (max−min)/6; LOG_UNIFORM spreads evenly over decades.
    const n = values('n');
    expect(Math.abs(n.reduce((a, b) => a + b) / n.length - 3)).toBeLessThan(0.05);
    expect(values('lu').filter((v) => v < 0.01).length).toBeGreaterThan(60);
    expect(values('ln').every((v) => Number.isInteger(v * 2))).toBe(true);
    expect(values('li').every((v) => (v - 1) % 3 === 0)).toBe(true);
    expect(sets.every((s) => !s.i!.includes('.') && s.u!.includes('.'))).toBe(true);
  });
});

describe('Katib’s own GetSuggestions test vectors', () => {
  it('hyperopt tpe: eight parameters, two trials without condition, two suggestions', () => {
    const exp = experiment({
      name: 'test',
      algorithm: 'tpe',
      settings: { random_state: '10', gamma: '0.25', prior_weight: '1.0', n_EI_candidates: '24' },
      metric: '',
      parameters: [
        int('param-1', '1', '5'),
        categorical('param-2', ['cat1', 'cat2', 'cat3']),
        discrete('param-3', ['3', '2', '6']),
        double('param-4', '1', '5'),
        double('param-5', '1', '5', { step: '0.5', distribution: 'LOG_UNIFORM' }),
        double('param-6', '1', '5', { distribution: 'LOG_UNIFORM' }),
        double('param-7', '5', '10', { step: '0.8', distribution: 'UNIFORM' }),
        double('param-8', '5', '10', { distribution: 'UNIFORM' }),
      ],
    });
    const trials = [
      trial(
        'test-asfjh',
        { 'param-1': '2', 'param-2': 'cat1', 'param-3': '2', 'param-4': '3.44' },
        'CREATED',
        { 'metric=2': '5643' },
      ),
      trial(
        'test-234hs',
        { 'param-1': '3', 'param-2': 'cat2', 'param-3': '6', 'param-4': '4.44' },
        'CREATED',
        { 'metric=2': '3028' },
      ),
    ];
    const sets = assignmentsOf(
      suggest({ ...request(exp, trials, 2), total_request_number: 0 }, ALGORITHMS).reply,
    );
    expect(sets).toHaveLength(2);
    for (const set of sets) expect(Object.keys(set)).toHaveLength(8);
  });

  it.each(['cmaes', 'tpe', 'random'])(
    'goptuna %s: INT -10..10, CATEGORICAL, DISCRETE, DOUBLE -1.5..5.5, MINIMIZE',
    (algorithm) => {
      const exp = experiment({
        algorithm,
        type: 'MINIMIZE',
        parameters: [
          int('param-1', '-10', '10'),
          categorical('param-2', ['cat1', 'cat2', 'cat3']),
          discrete('param-3', ['3', '2', '6']),
          double('param-4', '-1.5', '5.5'),
        ],
      });
      const sets = assignmentsOf(suggest(request(exp, [], 2), ALGORITHMS).reply);
      expect(sets).toHaveLength(2);
      for (const set of sets)
        expect(Object.keys(set).sort()).toEqual(['param-1', 'param-2', 'param-3', 'param-4']);
    },
  );
});
