import { describe, expect, it } from 'vitest';
import type { Experiment__Output } from '../../../../proto/gen/api/v1/beta1/Experiment.ts';
import type { NasConfig__Output } from '../../../../proto/gen/api/v1/beta1/NasConfig.ts';
import type { Operation__Output } from '../../../../proto/gen/api/v1/beta1/Operation.ts';
import type { ParameterSpec__Output } from '../../../../proto/gen/api/v1/beta1/ParameterSpec.ts';
import {
  evaluateArchitecture,
  lossGradient,
  sampleArchitecture,
  trainStep,
} from '../../../../services/experiment/suggestion/nas/controller.ts';
import {
  type Architecture,
  initController,
  type PolicyOptions,
} from '../../../../services/experiment/suggestion/nas/controller-params.ts';
import { policyOptions } from '../../../../services/experiment/suggestion/nas/enas.ts';
import { ENAS_DEFAULTS } from '../../../../services/experiment/suggestion/nas/enas-settings.ts';
import {
  decodeController,
  encodeController,
} from '../../../../services/experiment/suggestion/nas/state-codec.ts';
import { ALGORITHMS } from '../../../../services/experiment/suggestion/registry.ts';
import { createRng } from '../../../../services/experiment/suggestion/rng.ts';
import { prepareExperiment, suggest } from '../../../../services/experiment/suggestion/suggest.ts';
import { AppError } from '../../../../shared/errors.ts';
import { categorical, double, experiment, int, param, request, trial } from './fixtures.ts';

const op = (type: string, parameters: ParameterSpec__Output[]): Operation__Output => ({
  operation_type: type,
  parameter_specs: { parameters },
});

/** Katib's test_enas_service.py search space. */
const KATIB_OPERATIONS = [
  op('convolution', [
    categorical('filter_size', ['5']),
    categorical('num_filter', ['128']),
    categorical('stride', ['1', '2']),
  ]),
  op('reduction', [
    categorical('reduction_type', ['max_pooling']),
    int('pool_size', '2', '3', { step: '1' }),
  ]),
];

function nasExperiment(
  algorithm: string,
  options: {
    settings?: Record<string, string>;
    graph?: Partial<NonNullable<NasConfig__Output['graph_config']>> | null;
    operations?: Operation__Output[];
    name?: string;
    type?: 'MINIMIZE' | 'MAXIMIZE';
  } = {},
): Experiment__Output {
  const exp = experiment({
    name: options.name ?? 'nas-exp',
    algorithm,
    settings: options.settings ?? {},
    parameters: [],
    type: options.type ?? 'MAXIMIZE',
    metric: 'Validation-Accuracy',
  });
  const graph =
    options.graph === null
      ? null
      : { num_layers: 4, input_sizes: [32, 32, 8], output_sizes: [10], ...options.graph };
  return {
    ...exp,
    spec: {
      ...exp.spec!,
      nas_config: { graph_config: graph, operations: { operation: options.operations ?? KATIB_OPERATIONS } },
    },
  };
}

const rejectsBoth = (exp: Experiment__Output): string[] =>
  [
    () => prepareExperiment(exp, ALGORITHMS, { settingsOnlyWithoutParameters: true }),
    () => suggest(request(exp, [], 1), ALGORITHMS),
  ].map((call) => {
    try {
      call();
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('INVALID_ARGUMENT');
      return (error as AppError).message;
    }
    throw new Error('expected INVALID_ARGUMENT');
  });

const oneMessage = (exp: Experiment__Output): string => {
  const [validate, get] = rejectsBoth(exp);
  expect(get).toBe(validate);
  return validate!;
};

const assignmentsOf = (reply: {
  parameter_assignments?: { assignments?: { name?: string; value?: string }[] }[];
}) =>
  (reply.parameter_assignments ?? []).map((set) =>
    Object.fromEntries((set.assignments ?? []).map((a) => [a.name!, a.value!])),
  );

const katibTrial = (name: string, arc: string, value: string, condition = 'SUCCEEDED') =>
  trial(name, { architecture: arc, nn_config: '{}' }, condition, { 'Validation-Accuracy': value });

describe('enas: Katib’s test_enas_service vector', () => {
  it('answers 2 sets of architecture and nn_config from 2 SUCCEEDED trials (0.88, 0.84)', () => {
    const exp = nasExperiment('enas');
    const trials = [
      katibTrial('t1', '[[3], [0, 1], [0, 0, 1], [2, 1, 0, 0]]', '0.88'),
      katibTrial('t2', '[[2], [0, 0], [1, 1, 0], [3, 0, 0, 1]]', '0.84'),
    ];
    const sets = assignmentsOf(suggest(request(exp, trials, 2), ALGORITHMS).reply);
    expect(sets).toHaveLength(2);
    for (const set of sets) {
      expect(Object.keys(set)).toEqual(['architecture', 'nn_config']);
      const arc = JSON.parse(set.architecture!) as number[][];
      expect(arc.map((layer) => layer.length)).toEqual([1, 2, 3, 4]);
      for (const [opId, ...skips] of arc) {
        expect(opId).toBeGreaterThanOrEqual(0);
        expect(opId).toBeLessThanOrEqual(3);
        for (const bit of skips) expect([0, 1]).toContain(bit);
      }
      // Katib's format: JSON with ' for ", keys in the order the architecture uses them.
      const config = JSON.parse(set.nn_config!.replaceAll("'", '"'));
      expect(Object.keys(config)).toEqual(['num_layers', 'input_sizes', 'output_sizes', 'embedding']);
      expect(config.num_layers).toBe(4);
      expect(config.input_sizes).toEqual([32, 32, 8]);
      expect(config.output_sizes).toEqual([10]);
      const used = [...new Set(arc.map((layer) => String(layer[0])))];
      expect(Object.keys(config.embedding).sort()).toEqual(used.sort());
      expect(set.nn_config!.indexOf(`'${used[0]}': {'opt_id'`)).toBeGreaterThan(0);
    }
  });

  it('expands each operation to the product of its parameter values, with sequential op ids (Katib’s text)', () => {
    const exp = nasExperiment('enas', { graph: { num_layers: 1 } });
    const seen = new Map<string, string>();
    for (let n = 0; n < 12; n++) {
      const [set] = assignmentsOf(suggest(request({ ...exp, name: `e${n}` }, [], 1), ALGORITHMS).reply);
      const opId = JSON.parse(set!.architecture!)[0][0] as number;
      seen.set(String(opId), set!.nn_config!);
    }
    const expected: Record<string, string> = {
      '0': "{'opt_id': 0, 'opt_type': 'convolution', 'opt_params': {'filter_size': '5', 'num_filter': '128', 'stride': '1'}}",
      '1': "{'opt_id': 1, 'opt_type': 'convolution', 'opt_params': {'filter_size': '5', 'num_filter': '128', 'stride': '2'}}",
      '2': "{'opt_id': 2, 'opt_type': 'reduction', 'opt_params': {'reduction_type': 'max_pooling', 'pool_size': 2}}",
      '3': "{'opt_id': 3, 'opt_type': 'reduction', 'opt_params': {'reduction_type': 'max_pooling', 'pool_size': 3}}",
    };
    expect(seen.size).toBeGreaterThan(1);
    for (const [id, text] of seen)
      expect(text).toBe(
        `{'num_layers': 1, 'input_sizes': [32, 32, 8], 'output_sizes': [10], 'embedding': {'${id}': ${expected[id]}}}`,
      );
  });

  it('writes DOUBLE operation values as numpy’s arange floats, Python’s repr', () => {
    const exp = nasExperiment('enas', {
      graph: { num_layers: 1 },
      operations: [op('dropout', [double('rate', '0.1', '0.3', { step: '0.1' })])],
    });
    const texts = new Set<string>();
    for (let n = 0; n < 16; n++)
      texts.add(
        assignmentsOf(suggest(request({ ...exp, name: `d${n}` }, [], 1), ALGORITHMS).reply)[0]!.nn_config!,
      );
    const rates = [...texts].map((t) => /'rate': ([^}]+)\}/.exec(t)![1]).sort();
    expect(rates).toEqual(['0.1', '0.2', '0.30000000000000004']);
  });

  it('answers exactly current_request_number sets, deterministically for a random_state', () => {
    const exp = nasExperiment('enas', { settings: { random_state: '3' } });
    const first = suggest(request(exp, [], 5), ALGORITHMS);
    expect(first.reply.parameter_assignments).toHaveLength(5);
    const other = suggest(request({ ...exp, name: 'another-name' }, [], 5), ALGORITHMS);
    expect(other.reply).toEqual(first.reply);
    expect(Buffer.from(other.controllerState!).equals(Buffer.from(first.controllerState!))).toBe(true);
  });

  it('a later call with no SUCCEEDED trial: FAILED_PRECONDITION (Katib: INTERNAL "Failed to serialize response!")', () => {
    const exp = nasExperiment('enas');
    const trials = [
      katibTrial('t1', '[[3], [0, 1], [0, 0, 1], [2, 1, 0, 0]]', '0.88', 'FAILED'),
      katibTrial('t2', '[[2], [0, 0], [1, 1, 0], [3, 0, 0, 1]]', '0.84', 'RUNNING'),
    ];
    try {
      suggest(request(exp, trials, 2), ALGORITHMS);
      throw new Error('expected FAILED_PRECONDITION');
    } catch (error) {
      expect((error as AppError).code).toBe('FAILED_PRECONDITION');
      expect((error as AppError).message).toContain("none of the request's 2 trials (1 FAILED)");
    }
  });
});

describe('enas: validation order and messages (GraphConfig, operations, settings)', () => {
  it.each([
    [{ input_sizes: [] }, 'Missing InputSizes in GraphConfig:\nnum_layers: 4\noutput_sizes: 10\n'],
    [
      { output_sizes: [] },
      'Missing OutputSizes in GraphConfig:\nnum_layers: 4\ninput_sizes: 32\ninput_sizes: 32\ninput_sizes: 8\n',
    ],
    [
      { num_layers: 0 },
      'Missing NumLayers in GraphConfig:\ninput_sizes: 32\ninput_sizes: 32\ninput_sizes: 8\noutput_sizes: 10\n',
    ],
  ])('GraphConfig %j', (graph, message) => {
    // A bad setting too: the GraphConfig is checked first.
    expect(oneMessage(nasExperiment('enas', { graph, settings: { controller_hidden_size: '0' } }))).toBe(
      message,
    );
  });

  it('no nas_config at all', () => {
    expect(oneMessage(nasExperiment('enas', { graph: null }))).toBe('Missing InputSizes in GraphConfig:\n');
  });

  it('operations before settings', () => {
    const bad = op('', [categorical('filter_size', ['3'])]);
    expect(oneMessage(nasExperiment('enas', { operations: [bad], settings: { bogus: '1' } }))).toBe(
      'Missing operationType in Operation:\nparameter_specs {\n  parameters {\n    name: "filter_size"\n    parameter_type: CATEGORICAL\n    feasible_space {\n      list: "3"\n    }\n  }\n}\n',
    );
  });

  it.each([
    [
      'controller_hidden_size',
      '0',
      'Algorithm Setting controller_hidden_size: 0 with int type must be in range [1, inf)',
    ],
    [
      'controller_hidden_size',
      '1.5',
      "Algorithm Setting controller_hidden_size must be int type: exception invalid literal for int() with base 10: '1.5'",
    ],
    [
      'controller_temperature',
      '0',
      'Algorithm Setting controller_temperature: 0.0 with float type must be in range (0, inf)',
    ],
    [
      'controller_tanh_const',
      '-2',
      'Algorithm Setting controller_tanh_const: -2.0 with float type must be in range (0, inf)',
    ],
    [
      'controller_entropy_weight',
      'abc',
      "Algorithm Setting controller_entropy_weight must be float type: exception could not convert string to float: 'abc'",
    ],
    [
      'controller_baseline_decay',
      '1.5',
      'Algorithm Setting controller_baseline_decay: 1.5 with float type must be in range (0.0, 1.0)',
    ],
    [
      'controller_learning_rate',
      '0',
      'Algorithm Setting controller_learning_rate: 0.0 with float type must be in range (0.0, 1.0)',
    ],
    [
      'controller_skip_target',
      '2',
      'Algorithm Setting controller_skip_target: 2.0 with float type must be in range (0.0, 1.0)',
    ],
    [
      'controller_skip_weight',
      '-1',
      'Algorithm Setting controller_skip_weight: -1.0 with float type must be in range (0.0, inf)',
    ],
    [
      'controller_train_steps',
      '0',
      'Algorithm Setting controller_train_steps: 0 with int type must be in range [1, inf)',
    ],
    [
      'controller_log_every_steps',
      '-3',
      'Algorithm Setting controller_log_every_steps: -3 with int type must be in range [1, inf)',
    ],
    [
      'controller_baseline_decay',
      'None',
      "Algorithm Setting controller_baseline_decay must be float type: exception could not convert string to float: 'None'",
    ],
    [
      'controller_learning_rate',
      'nan',
      'Algorithm Setting controller_learning_rate: nan with float type must be in range (0.0, 1.0)',
    ],
    [
      'controller_hidden_size',
      '257',
      'Algorithm Setting controller_hidden_size: 257 is more than 256, the largest controller whose state the service keeps',
    ],
    ['random_state', '-1', 'random_state should be great or equal than zero'],
    ['controller_unknown', '1', 'Unknown Algorithm Setting name: controller_unknown'],
  ])('%s = %s', (name, value, message) => {
    expect(oneMessage(nasExperiment('enas', { settings: { [name]: value } }))).toBe(message);
  });

  it('accepts Katib’s defaults written out, "None" where Katib allows it, and every bound', () => {
    const settings = {
      controller_hidden_size: '16',
      controller_temperature: 'None',
      controller_tanh_const: 'None',
      controller_entropy_weight: 'None',
      controller_baseline_decay: '1.0',
      controller_learning_rate: '1',
      controller_skip_target: '1.0',
      controller_skip_weight: 'None',
      controller_train_steps: '1',
      controller_log_every_steps: '1',
    };
    const exp = nasExperiment('enas', { settings });
    expect(() => prepareExperiment(exp, ALGORITHMS)).not.toThrow();
    const trials = [katibTrial('t1', '[[3], [0, 1], [0, 0, 1], [2, 1, 0, 0]]', '0.88')];
    expect(suggest(request(exp, trials, 2), ALGORITHMS).reply.parameter_assignments).toHaveLength(2);
  });

  it('refuses a controller whose state would not fit the topic', () => {
    const wide = op('conv', [int('a', '1', '60'), int('b', '1', '60')]);
    expect(
      oneMessage(nasExperiment('enas', { operations: [wide], settings: { controller_hidden_size: '256' } })),
    ).toMatch(
      /^enas: a controller with controller_hidden_size 256 over 3600 operations takes [\d.]+ MiB, more than the 12 MiB/,
    );
  });
});

describe('validate_operations (Katib’s test_nas_common vectors), through enas and darts', () => {
  const cases: [string, Operation__Output, string][] = [
    ['missing type', op('', [categorical('f', ['3'])]), 'Missing operationType in Operation:\n'],
    [
      'empty parameter_specs',
      op('conv', []),
      'Missing ParameterConfigs in Operation:\noperation_type: "conv"\nparameter_specs {\n}\n',
    ],
    [
      'empty name',
      op('conv', [categorical('', ['3'])]),
      'Missing Name in ParameterConfig:\nparameter_type: CATEGORICAL\n',
    ],
    [
      'missing parameter type',
      op('conv', [param('f', 'UNKNOWN_TYPE', { list: ['3'] })]),
      'Missing ParameterType in ParameterConfig:\nname: "f"\n',
    ],
    [
      'categorical without list',
      op('conv', [categorical('f', [])]),
      'Missing List in ParameterConfig.feasibleSpace:\nname: "f"\n',
    ],
    [
      'INT without min and max',
      op('conv', [int('f', '', '')]),
      'Missing Max and Min in ParameterConfig.feasibleSpace:\nname: "f"\n',
    ],
    [
      'DOUBLE without step',
      op('conv', [double('f', '1', '2')]),
      'Step parameter should be > 0 in ParameterConfig.feasibleSpace:\nname: "f"\n',
    ],
    [
      'DOUBLE with step 0',
      op('conv', [double('f', '1', '2', { step: '0' })]),
      'Step parameter should be > 0 in ParameterConfig.feasibleSpace:\n',
    ],
  ];
  it.each(cases)('%s', (_, operation, prefix) => {
    for (const algorithm of ['enas', 'darts']) {
      const message = oneMessage(nasExperiment(algorithm, { operations: [KATIB_OPERATIONS[0]!, operation] }));
      expect(message.startsWith(prefix)).toBe(true);
    }
  });

  it('the valid vector passes', () => {
    for (const algorithm of ['enas', 'darts'])
      expect(() => prepareExperiment(nasExperiment(algorithm), ALGORITHMS)).not.toThrow();
  });
});

describe('darts: Katib’s test_darts_service vector', () => {
  const dartsExperiment = (settings: Record<string, string> = { num_epoch: '10' }) =>
    nasExperiment('darts', {
      settings,
      graph: { num_layers: 3 },
      operations: [op('separable_convolution', [categorical('filter_size', ['3', '5'])])],
    });

  it('answers algorithm-settings, search-space and num-layers, current_request_number times; a second call works', () => {
    const exp = dartsExperiment();
    const expected = {
      'algorithm-settings':
        "{'num_epochs': 50, 'w_lr': 0.025, 'w_lr_min': 0.001, 'w_momentum': 0.9, 'w_weight_decay': 0.0003, 'w_grad_clip': 5.0, 'alpha_lr': 0.0003, 'alpha_weight_decay': 0.001, 'batch_size': 128, 'num_workers': 4, 'init_channels': 16, 'print_step': 50, 'num_nodes': 4, 'stem_multiplier': 3, 'num_epoch': '10'}",
      'search-space': "['separable_convolution_3x3', 'separable_convolution_5x5']",
      'num-layers': '3',
    };
    expect(assignmentsOf(suggest(request(exp, [], 1), ALGORITHMS).reply)).toEqual([expected]);
    const sets = suggest(request(exp, [], 2, 3), ALGORITHMS).reply.parameter_assignments!;
    expect(sets.map((s) => s.assignments!.map((a) => a.name))).toEqual([
      ['algorithm-settings', 'search-space', 'num-layers'],
      ['algorithm-settings', 'search-space', 'num-layers'],
    ]);
    expect(assignmentsOf({ parameter_assignments: sets })).toEqual([expected, expected]);
  });

  it('overrides defaults in place, as text; "None" is null; skip_connection as it is', () => {
    const exp = nasExperiment('darts', {
      settings: { batch_size: 'None', w_lr: '0.01' },
      operations: [
        op('skip_connection', [categorical('x', ['1'])]),
        op('conv', [int('k', '3', '7', { step: '2' })]),
      ],
    });
    const [set] = assignmentsOf(suggest(request(exp, [], 1), ALGORITHMS).reply);
    expect(set!['algorithm-settings']).toContain("'w_lr': '0.01', 'w_lr_min': 0.001");
    expect(set!['algorithm-settings']).toContain("'batch_size': null, 'num_workers': 4");
    expect(set!['search-space']).toBe("['skip_connection', 'conv_3x3', 'conv_5x5', 'conv_7x7']");
  });

  it('accepts Katib’s valid settings list and unknown names', () => {
    const valid = {
      num_epochs: '10',
      w_lr: '0.01',
      w_lr_min: '0.0001',
      w_momentum: '0.9',
      w_weight_decay: '0.25',
      w_grad_clip: '5.0',
      alpha_lr: '0.01',
      alpha_weight_decay: '0.01',
      batch_size: '10',
      num_workers: '0',
      init_channels: '1',
      print_step: '10',
      num_nodes: '10',
      stem_multiplier: '1',
      anything: 'at all',
    };
    expect(() => prepareExperiment(dartsExperiment(valid), ALGORITHMS)).not.toThrow();
  });

  it.each([
    ['num_epochs', '0', 'num_epochs should be greater than zero'],
    ['w_lr', '-0.1', 'w_lr should be greater than or equal to zero'],
    ['alpha_weight_decay', '-0.02', 'alpha_weight_decay should be greater than or equal to zero'],
    ['w_momentum', '-0.8', 'w_momentum should be greater than or equal to zero'],
    ['batch_size', '0', 'batch_size should be greater than or equal to one'],
    ['num_workers', '-1', 'num_workers should be greater than or equal to zero'],
    ['print_step', '0', 'print_step should be greater than or equal to one'],
    [
      'init_channels',
      'x',
      "failed to validate init_channels(x): invalid literal for int() with base 10: 'x'",
    ],
    ['w_grad_clip', 'x', "failed to validate w_grad_clip(x): could not convert string to float: 'x'"],
  ])('%s = %s', (name, value, message) => {
    expect(oneMessage(dartsExperiment({ [name]: value }))).toBe(message);
  });
});

describe('the controller', () => {
  const shape = { hidden: 6, operations: 4, layers: 4 };
  const options: PolicyOptions = policyOptions(ENAS_DEFAULTS);
  const arc: Architecture = [[3], [0, 1], [2, 1, 1], [1, 0, 1, 0]];

  it('differentiates log π(arc) and the skip penalty exactly (finite differences)', () => {
    for (const o of [options, { ...options, temperature: null, tanhConst: null }]) {
      const state = initController(shape, createRng(11));
      // Larger weights than the initial ±0.1, so every term matters.
      for (let i = 0; i < state.params.length; i++) state.params[i]! *= 8;
      const coefLogProb = -0.7;
      const coefPenalty = 0.8;
      const loss = (params: Float64Array) => {
        const r = evaluateArchitecture({ ...state, params }, shape, o, arc);
        const layers = shape.layers - 1;
        return coefLogProb * r.logProb + coefPenalty * r.skipPenalty * (layers / layers);
      };
      const grad = lossGradient(state, shape, o, arc, coefLogProb, coefPenalty);
      const rng = createRng(5);
      for (let n = 0; n < 60; n++) {
        const i = rng.int(state.params.length);
        const h = 1e-6;
        const up = Float64Array.from(state.params);
        const down = Float64Array.from(state.params);
        up[i]! += h;
        down[i]! -= h;
        const numeric = (loss(up) - loss(down)) / (2 * h);
        expect(Math.abs(numeric - grad[i]!)).toBeLessThan(1e-6 + 1e-4 * Math.abs(numeric));
      }
    }
  });

  it('samples deterministically from a seed and learns: REINFORCE raises the probability of a rewarded architecture', () => {
    const state = initController(shape, createRng(1));
    expect(sampleArchitecture(state, shape, options, createRng(9))).toEqual(
      sampleArchitecture(state, shape, options, createRng(9)),
    );
    const fast = { ...options, learningRate: 0.05 };
    const other: Architecture = [[0], [1, 0], [0, 0, 0], [2, 1, 1, 1]];
    let s = state;
    for (let step = 0; step < 40; step++) {
      s = trainStep(s, shape, fast, arc, 0.9);
      s = trainStep(s, shape, fast, other, 0.3);
    }
    const before =
      evaluateArchitecture(state, shape, fast, arc).logProb -
      evaluateArchitecture(state, shape, fast, other).logProb;
    const after =
      evaluateArchitecture(s, shape, fast, arc).logProb - evaluateArchitecture(s, shape, fast, other).logProb;
    expect(after).toBeGreaterThan(before + 1);
  });

  it('round-trips its state through bytes, and refuses damaged bytes', () => {
    let state = initController(shape, createRng(2));
    state = trainStep(state, shape, options, arc, 0.5);
    const stored = { shape, fingerprint: 'f', history: [['a#1', 'b#2'], ['c#3']], state };
    const bytes = encodeController(stored);
    expect(decodeController(bytes)).toEqual(stored);
    expect(() => decodeController(bytes.subarray(0, bytes.length - 8))).toThrow(/bytes of weights/);
    expect(() => decodeController(Buffer.from('garbage'))).toThrow(/not an ENAS controller state/);
  });
});

describe('enas across calls: the stored state', () => {
  const exp = nasExperiment('enas', {
    settings: { random_state: '4', controller_train_steps: '5', controller_learning_rate: '0.2' },
  });
  type Set = Record<string, string>;
  const asTrials = (sets: Set[], from: number, values: number[]) =>
    sets.map((set, i) =>
      katibTrial(`t${String(from + i).padStart(2, '0')}`, set.architecture!, String(values[i])),
    );

  /** Three rounds, each continuing from the previous call's state. */
  const rounds = () => {
    const first = suggest(request(exp, [], 2), ALGORITHMS);
    const t1 = asTrials(assignmentsOf(first.reply), 0, [0.6, 0.7]);
    const second = suggest(request(exp, t1, 2), ALGORITHMS, first.controllerState);
    const t2 = [...t1, ...asTrials(assignmentsOf(second.reply), 2, [0.8, 0.5])];
    const third = suggest(request(exp, t2, 2), ALGORITHMS, second.controllerState);
    return { first, second, third, t1, t2 };
  };

  it('continues from the stored state: the same calls give the same proposals and states', () => {
    const a = rounds();
    const b = rounds();
    expect(b.third.reply).toEqual(a.third.reply);
    expect(Buffer.from(b.third.controllerState!).equals(Buffer.from(a.third.controllerState!))).toBe(true);
    expect(decodeController(a.third.controllerState!).history.map((batch) => batch.length)).toEqual([2, 2]);
    // Without the state, the trials are learned as one batch: another controller.
    const fresh = suggest(request(exp, a.t2, 2), ALGORITHMS);
    expect(decodeController(fresh.controllerState!).history.map((batch) => batch.length)).toEqual([4]);
    expect(decodeController(fresh.controllerState!).state.params).not.toEqual(
      decodeController(a.third.controllerState!).state.params,
    );
    // A call that brings nothing new keeps the state as it is (nothing to save).
    const again = suggest(request(exp, a.t2, 2), ALGORITHMS, a.third.controllerState);
    expect(again.controllerState).toBeUndefined();
    expect(again.notes).toBeUndefined();
  });

  it('answers an older history from the state that matches it, never from the newer one', () => {
    const { second, third, t1 } = rounds();
    // The controller retries the second call after the third one's state was saved.
    const retried = suggest(request(exp, t1, 2), ALGORITHMS, third.controllerState);
    expect(retried.reply).toEqual(second.reply);
    expect(Buffer.from(retried.controllerState!).equals(Buffer.from(second.controllerState!))).toBe(true);
    expect(retried.notes).toEqual([
      "request's trials agree with 1 of the 2 stored training batches; rebuilding from them",
    ]);
  });

  it('a trial reported with another value is another trial: the state is rebuilt without the old value', () => {
    const { second, t2 } = rounds();
    const changed = [...t2];
    changed[0] = katibTrial('t00', t2[0]!.spec!.parameter_assignments!.assignments[0]!.value, '0.1');
    const answer = suggest(request(exp, changed, 2), ALGORITHMS, second.controllerState);
    expect(answer.notes?.[0]).toMatch(/agree with 0 of the 1 stored training batches/);
    expect(decodeController(answer.controllerState!).history.map((batch) => batch.length)).toEqual([4]);
  });

  it('an undecodable or foreign state counts as none, and says so', () => {
    const { first, second, t1 } = rounds();
    const reference = suggest(request(exp, t1, 2), ALGORITHMS);
    const garbage = suggest(request(exp, t1, 2), ALGORITHMS, Buffer.from('NASC\u0001garbage'));
    expect(garbage.reply).toEqual(reference.reply);
    expect(garbage.notes?.[0]).toMatch(/^stored controller state does not decode/);
    const otherSettings = nasExperiment('enas', {
      settings: { random_state: '4', controller_train_steps: '6' },
    });
    const foreign = suggest(request(otherSettings, t1, 2), ALGORITHMS, first.controllerState);
    expect(foreign.notes).toEqual([
      'stored controller state is for another search space, settings or seed; starting over',
    ]);
    expect(second.reply).toEqual(reference.reply);
  });

  it('learns from MINIMIZE objectives negated', () => {
    const max = nasExperiment('enas', { settings: { random_state: '4' } });
    const min = nasExperiment('enas', { settings: { random_state: '4' }, type: 'MINIMIZE' });
    const trials = [
      katibTrial('a', '[[3], [0, 1], [0, 0, 1], [2, 1, 0, 0]]', '0.9'),
      katibTrial('b', '[[1], [1, 0], [2, 0, 1], [0, 1, 1, 0]]', '0.2'),
    ];
    const negated = [
      katibTrial('a', '[[3], [0, 1], [0, 0, 1], [2, 1, 0, 0]]', '-0.9'),
      katibTrial('b', '[[1], [1, 0], [2, 0, 1], [0, 1, 1, 0]]', '-0.2'),
    ];
    const a = decodeController(suggest(request(max, trials, 1), ALGORITHMS).controllerState!);
    const b = decodeController(suggest(request(min, negated, 1), ALGORITHMS).controllerState!);
    expect(b.state.params).toEqual(a.state.params);
  });
});
