import { describe, expect, it } from 'vitest';
import {
  formatDouble,
  parseDecimal,
  pythonFloatRepr,
} from '../../../../services/experiment/common/katib-numbers.ts';
import {
  readObjective,
  readTrials,
  toDimensions,
  toPoint,
} from '../../../../services/experiment/suggestion/katib-space.ts';
import type { AppError } from '../../../../shared/errors.ts';
import { categorical, discrete, double, experiment, int, MIXED, param, trial } from './fixtures.ts';

function rejects(parameters: ReturnType<typeof param>[]): string {
  try {
    toDimensions(parameters);
  } catch (error) {
    expect((error as AppError).code).toBe('INVALID_ARGUMENT');
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('search space checks (every algorithm)', () => {
  it.each([
    ['no parameters', [], 'experiment.spec.parameter_specs: no parameters to search'],
    [
      'a parameter without name',
      [double('', '0', '1')],
      'experiment.spec.parameter_specs: a parameter has no name',
    ],
    ['a duplicated name', [double('x', '0', '1'), int('x', '0', '1')], 'Detect duplicated parameter name: x'],
    [
      'UNKNOWN_TYPE',
      [param('x', 'UNKNOWN_TYPE', { min: '0', max: '1' })],
      'parameter x: unsupported parameter type UNKNOWN_TYPE (DOUBLE, INT, DISCRETE or CATEGORICAL)',
    ],
    [
      'an empty CATEGORICAL list',
      [categorical('c', [])],
      'parameter c: CATEGORICAL needs a non-empty feasible_space.list',
    ],
    [
      'an empty DISCRETE list',
      [discrete('d', [])],
      'parameter d: DISCRETE needs a non-empty feasible_space.list',
    ],
    ['a value listed twice', [categorical('c', ['a', 'b', 'a'])], 'parameter c: value "a" is listed twice'],
    [
      'a DISCRETE value that is no number',
      [discrete('d', ['1', 'two'])],
      'parameter d: DISCRETE value "two" is not a number',
    ],
    ['a missing min', [double('x', '', '1')], 'parameter x: DOUBLE needs feasible_space.min'],
    ['a missing max', [int('n', '1', '')], 'parameter n: INT needs feasible_space.max'],
    ['a non-numeric min', [double('x', 'abc', '1')], 'parameter x: min "abc" is not a number'],
    ['a non-numeric max', [double('x', '0', '1O')], 'parameter x: max "1O" is not a number'],
    ['a hexadecimal bound', [double('x', '0x10', '20')], 'parameter x: min "0x10" is not a number'],
    ['an infinite bound', [double('x', '0', 'inf')], 'parameter x: max "inf" is not a number'],
    ['a fractional INT bound', [int('n', '1.5', '4')], 'parameter n: INT min "1.5" is not a whole number'],
    ['min > max', [double('x', '2', '1')], 'parameter x: min 2 is greater than max 1'],
    ['min > max (INT)', [int('n', '10', '1')], 'parameter n: min 10 is greater than max 1'],
    [
      'LOG_UNIFORM from 0',
      [double('x', '0', '1', { distribution: 'LOG_UNIFORM' })],
      'parameter x: LOG_UNIFORM needs min > 0 (min is 0)',
    ],
    [
      'LOG_NORMAL below 0',
      [int('n', '-1', '4', { distribution: 'LOG_NORMAL' })],
      'parameter n: LOG_NORMAL needs min > 0 (min is -1)',
    ],
    [
      'an unknown distribution',
      [double('x', '0', '1', { distribution: 9 as never })],
      'parameter x: unknown distribution 9',
    ],
    ['a non-numeric step', [double('x', '0', '1', { step: 'a' })], 'parameter x: step "a" is not a number'],
    ['a zero step', [double('x', '0', '1', { step: '0' })], 'parameter x: step 0 must be greater than zero'],
    [
      'a negative step',
      [int('n', '0', '9', { step: '-1' })],
      'parameter n: step -1 must be greater than zero',
    ],
    [
      'a fractional INT step above 1',
      [int('n', '0', '9', { step: '1.5' })],
      'parameter n: INT step 1.5 is not a whole number',
    ],
  ])('rejects %s', (_, parameters, message) => {
    expect(rejects(parameters as ReturnType<typeof param>[])).toBe(message);
  });

  it('reads every type, step and distribution', () => {
    expect(
      toDimensions([
        double('a', '-1', '1'),
        double('b', '0.001', '1', { distribution: 'LOG_UNIFORM', step: '0.001' }),
        int('c', '1', '9', { distribution: 'NORMAL', step: '2' }),
        int('d', '1', '100', { distribution: 'LOG_NORMAL' }),
        // Katib's own tests send INT steps below 1; the only whole step they can mean is 1.
        int('e', '0', '5', { step: '0.8' }),
        discrete('f', ['3', '2', '6']),
        categorical('g', ['x', 'y']),
        double('h', '1', '2', { distribution: 'UNIFORM' }),
      ]),
    ).toEqual([
      { kind: 'float', name: 'a', low: -1, high: 1, distribution: 'uniform' },
      { kind: 'float', name: 'b', low: 0.001, high: 1, step: 0.001, distribution: 'log-uniform' },
      { kind: 'int', name: 'c', low: 1, high: 9, step: 2, distribution: 'normal' },
      { kind: 'int', name: 'd', low: 1, high: 100, step: 1, distribution: 'log-normal' },
      { kind: 'int', name: 'e', low: 0, high: 5, step: 1, distribution: 'uniform' },
      { kind: 'categorical', name: 'f', choices: ['3', '2', '6'], numeric: true },
      { kind: 'categorical', name: 'g', choices: ['x', 'y'], numeric: false },
      { kind: 'float', name: 'h', low: 1, high: 2, distribution: 'uniform' },
    ]);
  });
});

describe('values as Katib clients read them', () => {
  it('writes DOUBLE as the shortest round-trip decimal, never with an exponent', () => {
    expect(formatDouble(0.1 + 0.2)).toBe('0.30000000000000004');
    expect(formatDouble(2)).toBe('2.0');
    expect(formatDouble(1e-5)).toBe('0.00001');
    expect(formatDouble(1.5e-7)).toBe('0.00000015');
    expect(formatDouble(1e21)).toBe('1000000000000000000000.0');
    expect(formatDouble(-0)).toBe('0.0');
    expect(formatDouble(-2.5e-8)).toBe('-0.000000025');
    for (const v of [Math.PI, 1 / 3, 1e-300, 123456789.123, 5e-324]) expect(Number(formatDouble(v))).toBe(v);
  });

  it('writes Python str() of floats for hyperband state', () => {
    expect(pythonFloatRepr(10)).toBe('10.0');
    expect(pythonFloatRepr(10 / 9)).toBe('1.1111111111111112');
    expect(pythonFloatRepr(1e-5)).toBe('1e-05');
    expect(pythonFloatRepr(1e16)).toBe('1e+16');
    expect(pythonFloatRepr(0.0001)).toBe('0.0001');
  });

  it('reads numbers as Python float() does', () => {
    expect(parseDecimal(' 1_000.5 ')).toBe(1000.5);
    expect(parseDecimal('1e-3')).toBe(0.001);
    expect(parseDecimal('.5')).toBe(0.5);
    expect(parseDecimal('-Infinity')).toBe(-Infinity);
    expect(parseDecimal('')).toBeUndefined();
    expect(parseDecimal('0x1')).toBeUndefined();
  });

  it('reads a trial’s assignments back as a point, or not at all when they do not fit', () => {
    const dims = toDimensions(MIXED);
    const point = toPoint(
      dims,
      new Map(Object.entries({ lr: '0.01', layers: '3', batch_size: '32.0', optimizer: 'adam' })),
    );
    expect(point).toEqual([0.01, 3, '32', 'adam']);
    expect(
      toPoint(dims, new Map(Object.entries({ lr: '0.01', layers: '3', batch_size: '32' }))),
    ).toBeUndefined();
    expect(
      toPoint(dims, new Map(Object.entries({ lr: '5', layers: '3', batch_size: '32', optimizer: 'adam' }))),
    ).toBeUndefined();
    expect(
      toPoint(
        dims,
        new Map(Object.entries({ lr: '0.01', layers: '3', batch_size: '32', optimizer: 'nadam' })),
      ),
    ).toBeUndefined();
  });
});

describe('which trials count', () => {
  const dims = toDimensions(MIXED);
  const at = { lr: '0.01', layers: '3', batch_size: '32', optimizer: 'adam' };

  it('counts SUCCEEDED and EARLYSTOPPED trials that carry the objective metric; the last matching metric wins', () => {
    const trials = readTrials(
      [
        trial('a', at, 'SUCCEEDED', [
          ['accuracy', '0.5'],
          ['accuracy', '0.7'],
        ]),
        trial('b', { ...at, layers: '4' }, 'EARLYSTOPPED', { accuracy: '0.6' }),
        trial('c', { ...at, layers: '5' }, 'SUCCEEDED', { loss: '0.1' }),
        trial('d', { ...at, layers: '6' }, 'SUCCEEDED', { accuracy: 'unavailable' }),
        trial('e', { ...at, layers: '7' }, 'FAILED', { accuracy: '0.9' }),
        trial('f', { ...at, layers: '8' }, 'RUNNING'),
        trial('g', { ...at, layers: '1' }, 'CREATED'),
        trial('h', { ...at, layers: '2' }, 'SUCCEEDED', { acc2: '0.2' }, { objectiveName: 'acc2' }),
      ],
      dims,
      readObjective(experiment({ algorithm: 'random' }).spec),
    );
    // MAXIMIZE: the loss is the negated objective.
    expect(trials.history.map((o) => [o.point[1], o.loss])).toEqual([
      [3, -0.7],
      [4, -0.6],
      [2, -0.2],
    ]);
    expect(trials.pending.map((p) => p[1])).toEqual([8, 1]);
    expect(trials.all).toHaveLength(8);
  });

  it('keeps MINIMIZE objectives as they are', () => {
    const trials = readTrials([trial('a', at, 'SUCCEEDED', { accuracy: '0.5' })], dims, {
      direction: 'MINIMIZE',
      metricName: 'accuracy',
    });
    expect(trials.history[0]!.loss).toBe(0.5);
  });

  it('needs MINIMIZE or MAXIMIZE to use a result', () => {
    const objective = readObjective(experiment({ algorithm: 'random', type: 'UNKNOWN' }).spec);
    expect(readTrials([trial('a', at, 'RUNNING')], dims, objective).pending).toHaveLength(1);
    expect(() => readTrials([trial('a', at, 'SUCCEEDED', { accuracy: '1' })], dims, objective)).toThrow(
      'experiment.spec.objective.type must be MINIMIZE or MAXIMIZE to use the result of trial a',
    );
  });
});
