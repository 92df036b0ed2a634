import { describe, expect, it } from 'vitest';
import { GENERATION_LABEL, PARENT_LABEL } from '../../../../services/experiment/suggestion/algorithms/pbt.ts';
import { createPbtNames } from '../../../../services/experiment/suggestion/algorithms/pbt-names.ts';
import { createSobolSequence } from '../../../../services/experiment/suggestion/algorithms/sobol.ts';
import { ALGORITHMS } from '../../../../services/experiment/suggestion/registry.ts';
import { suggest } from '../../../../services/experiment/suggestion/suggest.ts';
import type { AppError } from '../../../../shared/errors.ts';
import { assignmentsOf, categorical, discrete, double, experiment, int, request, trial } from './fixtures.ts';

const run = (...args: Parameters<typeof request>) => suggest(request(...args), ALGORITHMS).reply;

describe('grid', () => {
  it('uses numpy arange values exactly as Katib computes them', () => {
    const exp = experiment({
      algorithm: 'grid',
      parameters: [double('lr', '0.01', '0.05', { step: '0.005' })],
    });
    const values = assignmentsOf(run(exp, [], 9)).map((a) => a.lr);
    expect(values.sort()).toEqual([
      '0.01',
      '0.015',
      '0.019999999999999997',
      '0.024999999999999998',
      '0.03',
      '0.034999999999999996',
      '0.039999999999999994',
      '0.045',
      '0.049999999999999996',
    ]);
    const other = experiment({ algorithm: 'grid', parameters: [double('p', '0.5', '0.9', { step: '0.1' })] });
    expect(
      assignmentsOf(run(other, [], 5))
        .map((a) => a.p)
        .sort(),
    ).toEqual(['0.5', '0.6', '0.7', '0.7999999999999999', '0.8999999999999999']);
  });

  it('visits every combination once, in a seeded order, then fails instead of repeating', () => {
    const parameters = [int('a', '1', '3'), categorical('c', ['x', 'y']), discrete('d', ['1', '10'])];
    const exp = experiment({ algorithm: 'grid', parameters });
    let trials: ReturnType<typeof trial>[] = [];
    const seen: string[] = [];
    for (let call = 0; call < 4; call++) {
      const sets = assignmentsOf(run(exp, trials, 3));
      seen.push(...sets.map((s) => `${s.a}${s.c}${s.d}`));
      // A failed trial still uses up its grid point.
      trials = [
        ...trials,
        ...sets.map((s, i) =>
          trial(`t${trials.length + i}`, s, i === 0 ? 'FAILED' : 'SUCCEEDED', { accuracy: '1' }),
        ),
      ];
    }
    expect(new Set(seen).size).toBe(12);
    expect(seen).not.toEqual([...seen].sort());
    const error = (() => {
      try {
        run(exp, trials, 1);
      } catch (e) {
        return e as AppError;
      }
    })();
    expect(error?.code).toBe('FAILED_PRECONDITION');
    expect(error?.message).toBe(
      'grid is exhausted: 0 of its 12 points have no trial yet and 1 were requested (grid search never repeats a point)',
    );
    // Another experiment name (seed) walks the grid in another order.
    expect(
      assignmentsOf(run(experiment({ name: 'other', algorithm: 'grid', parameters }), [], 12)),
    ).not.toEqual(assignmentsOf(run(exp, [], 12)));
  });
});

describe('sobol', () => {
  it('is the Joe–Kuo Sobol sequence when unscrambled', () => {
    const sequence = createSobolSequence(3, undefined);
    expect([0, 1, 2, 3, 4].map((i) => sequence.at(i))).toEqual([
      [0, 0, 0],
      [0.5, 0.5, 0.5],
      [0.75, 0.25, 0.25],
      [0.25, 0.75, 0.75],
      [0.375, 0.375, 0.625],
    ]);
  });

  it('scrambled, each 2^k prefix still puts one point in each of 2^k strata per dimension', () => {
    const sequence = createSobolSequence(6, { seed: 42 });
    const points = Array.from({ length: 64 }, (_, i) => sequence.at(i));
    for (let d = 0; d < 6; d++) {
      const strata = new Set(points.map((p) => Math.floor(p[d]! * 64)));
      expect(strata.size).toBe(64);
    }
    expect(points).not.toEqual(Array.from({ length: 64 }, (_, i) => createSobolSequence(6, undefined).at(i)));
  });

  it('continues the sequence across calls (stateless) and maps values onto the space', () => {
    const exp = experiment({
      algorithm: 'sobol',
      settings: { scramble: 'false' },
      parameters: [double('x', '0', '8'), int('n', '0', '3')],
    });
    const first = assignmentsOf(run(exp, [], 2, 2));
    const second = assignmentsOf(
      run(
        exp,
        first.map((a, i) => trial(`t${i}`, a, 'RUNNING')),
        2,
        4,
      ),
    );
    expect([...first, ...second].map((a) => a.x)).toEqual(['4.0', '6.0', '2.0', '3.0']);
    expect([...first, ...second].map((a) => a.n)).toEqual(['2', '1', '3', '1']);
  });
});

describe('hyperband', () => {
  const parameters = [
    int('--num-epochs', '1', '100'),
    double('lr', '0.01', '0.1'),
    categorical('opt', ['sgd', 'adam']),
  ];
  const settingsOf = (reply: ReturnType<typeof run>) =>
    Object.fromEntries((reply.algorithm?.algorithm_settings ?? []).map((s) => [s.name, s.value]));

  it('answers Katib’s first call and state exactly (Katib’s unit test)', () => {
    const exp = experiment({
      algorithm: 'hyperband',
      settings: { r_l: '10', resource_name: '--num-epochs' },
      parameters,
      parallel: 9,
    });
    const reply = run(exp, [], 2);
    expect(reply.algorithm?.algorithm_settings).toEqual(
      [
        ['eta', '3'],
        ['s_max', '2'],
        ['r_l', '10.0'],
        ['b_l', '30.0'],
        ['r', '1.1111111111111112'],
        ['n', '2'],
        ['current_s', '2'],
        ['current_i', '0'],
        ['resource_name', '--num-epochs'],
        ['evaluating_trials', '2'],
      ].map(([name, value]) => ({ name, value })),
    );
    expect(reply.algorithm?.algorithm_name).toBe('');
    expect(assignmentsOf(reply).map((a) => a['--num-epochs'])).toEqual(['1', '1']);
  });

  it('round-trips its state: promotes the best of a finished rung, waits for a running one, restarts after the last bracket', () => {
    let settings: Record<string, string> = { r_l: '9', resource_name: '--num-epochs', eta: '3' };
    const exp = () =>
      experiment({
        algorithm: 'hyperband',
        settings,
        parameters,
        parallel: 9,
        type: 'MINIMIZE',
        metric: 'loss',
      });
    const first = run(exp(), [], 9);
    expect(settingsOf(first)).toMatchObject({ eta: '3.0', r: '1.0', current_s: '2', evaluating_trials: '9' });
    settings = settingsOf(first);
    const rung = assignmentsOf(first).map((a, i) =>
      trial(`t${i}`, a, 'SUCCEEDED', { loss: String(9 - i) }, { startTime: `2024-01-01T00:00:0${i}Z` }),
    );
    const waiting = () =>
      run(exp(), [...rung.slice(0, 8), trial('t8', assignmentsOf(first)[8]!, 'RUNNING')], 9);
    expect(waiting).toThrow('hyperband: waiting for the trials of the current rung to finish: t8');

    const second = run(exp(), rung, 9);
    const promoted = assignmentsOf(second);
    expect(promoted).toHaveLength(9);
    // ceil(9/3) = 3 best (lowest loss: t8, t7, t6) promoted at r = 3, six fresh configurations join them.
    expect(promoted.slice(0, 3)).toEqual(
      [8, 7, 6].map((i) => ({ ...assignmentsOf(first)[i], '--num-epochs': '3' })),
    );
    expect(promoted.slice(3).every((a) => a['--num-epochs'] === '3')).toBe(true);
    expect(settingsOf(second)).toMatchObject({ current_s: '2', current_i: '1', evaluating_trials: '9' });

    settings = { ...settingsOf(second), current_s: '-1', current_i: '0', evaluating_trials: '0' };
    const restarted = run(exp(), rung, 9);
    expect(assignmentsOf(restarted)).toHaveLength(9);
    expect(settingsOf(restarted)).toMatchObject({ current_s: '2', current_i: '0', evaluating_trials: '9' });
  });
});

describe('pbt', () => {
  const parameters = [
    double('lr', '0.001', '0.1'),
    int('batch', '8', '64'),
    categorical('opt', ['sgd', 'adam', 'rmsprop']),
  ];
  const exp = experiment({
    name: 'pbt-exp',
    algorithm: 'pbt',
    settings: {
      suggestion_trial_dir: '/var/log/katib/checkpoints',
      n_population: '5',
      truncation_threshold: '0.4',
    },
    parameters,
  });

  it('names trials <experiment>-<uuid4> that decode to their generation and nothing else', () => {
    const names = createPbtNames('pbt-exp', 7);
    const name = names.nameOf({ generation: 3, serial: 41 });
    expect(name).toMatch(/^pbt-exp-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(names.memberOf(name)).toEqual({ generation: 3, serial: 41 });
    expect(names.memberOf('pbt-exp-6a28bb67-7c21-40a7-b4c4-8ad8af71c243')).toBeUndefined();
    expect(createPbtNames('pbt-exp', 8).memberOf(name)).toBeUndefined();
  });

  it('seeds generation 0, then breeds generation 1 from the finished population with labels naming parents', () => {
    const first = run(exp, [], 5);
    expect(first.parameter_assignments!.map((p) => p.labels)).toEqual(
      Array(5).fill({ [GENERATION_LABEL]: '0' }),
    );
    const names = first.parameter_assignments!.map((p) => p.trial_name!);
    expect(new Set(names).size).toBe(5);
    const finished = assignmentsOf(first).map((a, i) =>
      trial(names[i]!, a, 'SUCCEEDED', { accuracy: String(i / 10) }),
    );
    // Fewer than n_population finished: generation 0 keeps filling.
    expect(
      run(exp, finished.slice(0, 3), 2).parameter_assignments!.map((p) => p.labels?.[GENERATION_LABEL]),
    ).toEqual(['0', '0']);

    const second = run(exp, finished, 4);
    expect(second.parameter_assignments).toHaveLength(4);
    for (const child of second.parameter_assignments!) {
      expect(child.labels?.[GENERATION_LABEL]).toBe('1');
      expect(names).toContain(child.labels?.[PARENT_LABEL]);
      expect(names).not.toContain(child.trial_name);
    }
    // Truncation: the worst 40% never parent a child; their places copy the best.
    const parents = second.parameter_assignments!.map((p) => p.labels![PARENT_LABEL]);
    expect(parents).not.toContain(names[0]);
    expect(parents).not.toContain(names[1]);
  });
});
