// The hand-written GetSuggestionsRequest reader (suggestions-request.ts) against grpc-js's generic
// deserializer (protobufjs decode + toObject): for any bytes, the wrapped deserializer gives what
// the generic one gives (the same keys in the same order, the same values, -0 and NaN included) or
// throws the same error; and the reader itself answers, rather than stepping aside, for what an
// encoder writes.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Trial__Output } from '../../../../proto/gen/api/v1/beta1/Trial.ts';
import {
  readSuggestionsRequest,
  withSuggestionsRequestReader,
} from '../../../../services/experiment/suggestion/adapters/suggestions-request.ts';
import { createRng } from '../../../../services/experiment/suggestion/rng.ts';
import { loadPackageDefinition, lookupService } from '../../../../shared/grpc.ts';
import { StepAsideReader } from '../../../../shared/protobuf/step-aside-reader.ts';
import { categorical, double, experiment, int, MIXED, request, trial } from './fixtures.ts';

const Suggestion = lookupService(loadPackageDefinition(['api/v1beta1/api.proto']), 'api.v1.beta1.Suggestion');
const generic = Suggestion.service.GetSuggestions!;
const wrappedDefinition = withSuggestionsRequestReader(Suggestion.service);
const wrapped = wrappedDefinition.GetSuggestions!;
const serialize = (value: object): Buffer => generic.requestSerialize(value);

afterEach(() => {
  vi.restoreAllMocks();
});

/** Where two decoded values first differ (keys and their order, prototypes, Object.is), if anywhere. */
function difference(actual: unknown, expected: unknown, path = 'request'): string | undefined {
  if (Object.is(actual, expected)) return undefined;
  if (typeof actual !== 'object' || typeof expected !== 'object' || actual === null || expected === null) {
    return `${path}: ${String(actual)} where ${String(expected)} was expected`;
  }
  if (Object.getPrototypeOf(actual) !== Object.getPrototypeOf(expected)) return `${path}: another prototype`;
  const actualKeys = Reflect.ownKeys(actual).map(String);
  const expectedKeys = Reflect.ownKeys(expected).map(String);
  if (actualKeys.join('|') !== expectedKeys.join('|')) {
    return `${path}: keys ${actualKeys.join(',')} where ${expectedKeys.join(',')} were expected`;
  }
  for (const key of expectedKeys) {
    const enumerable = Object.prototype.propertyIsEnumerable;
    if (enumerable.call(actual, key) !== enumerable.call(expected, key)) return `${path}.${key}: enumerable`;
    const found = difference(
      (actual as Record<string, unknown>)[key],
      (expected as Record<string, unknown>)[key],
      `${path}.${key}`,
    );
    if (found !== undefined) return found;
  }
  return undefined;
}

const sortedJson = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );

function expectAlike(actual: unknown, expected: unknown): void {
  expect(difference(actual, expected)).toBeUndefined();
  expect(actual).toStrictEqual(expected);
  expect(sortedJson(actual)).toBe(sortedJson(expected));
  expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
}

type Outcome = 'read' | 'left to the generic decoder' | 'rejected';

/** Both deserializers over the same bytes: alike, or the same error; and who answered. */
function check(bytes: Buffer): Outcome {
  const read = readSuggestionsRequest(bytes);
  let expected: { value: unknown } | { error: Error };
  try {
    expected = { value: generic.requestDeserialize(bytes) };
  } catch (error) {
    expected = { error: error as Error };
  }
  let actual: { value: unknown } | { error: Error };
  try {
    actual = { value: wrapped.requestDeserialize(bytes) };
  } catch (error) {
    actual = { error: error as Error };
  }
  if ('error' in expected) {
    expect(read).toBeUndefined();
    expect('error' in actual && actual.error.constructor).toBe(expected.error.constructor);
    expect('error' in actual && actual.error.message).toBe(expected.error.message);
    return 'rejected';
  }
  expect('value' in actual).toBe(true);
  if ('value' in actual) expectAlike(actual.value, expected.value);
  if (read === undefined) return 'left to the generic decoder';
  expectAlike(read, expected.value);
  return 'read';
}

/** Protobuf by hand, for what no encoder writes (fields twice or out of order, unknown fields, other wire types). */
const varint = (value: number | bigint): number[] => {
  let rest = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  while (rest >= 0x80n) {
    out.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  out.push(Number(rest));
  return out;
};
type Part = Buffer | number[] | string;
const raw = (...parts: Part[]): Buffer =>
  Buffer.concat(
    parts.map((p) => (Buffer.isBuffer(p) ? p : typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))),
  );
/** A length-delimited field (string or message) of the given parts. */
const field = (number: number, ...parts: Part[]): Buffer => {
  const body = raw(...parts);
  return raw(varint((number << 3) | 2), varint(body.length), body);
};
const int32 = (number: number, value: number): number[] => [...varint(number << 3), ...varint(value)];
const fixed64 = (number: number, value: number): Buffer => {
  const body = Buffer.alloc(8);
  body.writeDoubleLE(value);
  return raw(varint((number << 3) | 1), body);
};
const fixed32 = (number: number): number[] => [...varint((number << 3) | 5), 1, 2, 3, 4];
const trialField = (...parts: Part[]) => field(2, ...parts);
const labelEntry = (...parts: Part[]) => field(4, ...parts);

const NAS = (() => {
  const exp = experiment({ name: 'nas', algorithm: 'enas', parameters: [], settings: { random_state: '1' } });
  return {
    ...exp,
    spec: {
      ...exp.spec!,
      nas_config: {
        graph_config: { num_layers: 8, input_sizes: [32, 32, 3], output_sizes: [10] },
        operations: {
          operation: [
            {
              operation_type: 'convolution',
              parameter_specs: {
                parameters: [categorical('filter_size', ['3', '5', '7']), int('num_filter', '32', '128')],
              },
            },
            { operation_type: 'reduction', parameter_specs: null },
          ],
        },
      },
    },
  };
})();

const mixedTrial = (index: number): Trial__Output =>
  trial(
    `trial-${index}`,
    {
      lr: String(0.0001 * (index + 1)),
      layers: String(1 + (index % 8)),
      batch_size: '32',
      optimizer: 'adam',
    },
    index % 7 === 0 ? 'RUNNING' : 'SUCCEEDED',
    { accuracy: String(index / 200), loss: String(-index / 3) },
    { startTime: `2026-01-01T00:00:${String(index % 60).padStart(2, '0')}Z`, objectiveName: 'accuracy' },
  );

const FIXTURES: Record<string, object> = {
  'random, no trials': request(experiment({ algorithm: 'random' }), [], 3),
  'tpe, one trial': request(experiment({ algorithm: 'tpe', settings: { n_startup_trials: '5' } }), [
    mixedTrial(1),
  ]),
  'bayesianoptimization, 200 trials': request(
    experiment({ algorithm: 'bayesianoptimization', settings: [['random_state', '10']], type: 'MINIMIZE' }),
    Array.from({ length: 200 }, (_, i) => mixedTrial(i)),
    1,
  ),
  'grid over doubles with steps': request(
    experiment({
      algorithm: 'grid',
      parameters: [double('x', '-1', '1', { step: '0.25' }), int('n', '0', '4', { step: '2' })],
    }),
    [trial('g-0', { x: '-1', n: '0' }, 'SUCCEEDED', { accuracy: '0.1' })],
  ),
  'hyperband with settings and an early stopping spec': request(
    {
      ...experiment({ algorithm: 'hyperband', settings: { eta: '3', r_l: '9', resource_name: 'epochs' } }),
      spec: {
        ...experiment({ algorithm: 'hyperband' }).spec!,
        early_stopping: {
          algorithm_name: 'medianstop',
          algorithm_settings: [{ name: 'min_trials_required', value: '3' }],
        },
      },
    },
    [mixedTrial(3), mixedTrial(4)],
  ),
  'enas with a NAS config': request(NAS, [trial('nas-0', { architecture: '[[1], [0, 1]]' }, 'SUCCEEDED')], 2),
  'labels, empty and non-ASCII strings': request(
    experiment({ name: 'expérience-試験', algorithm: 'random', metric: '精度' }),
    [
      {
        ...trial('essai-é', { lr: '½', layers: '' }, 'SUCCEEDED', { 精度: '0.9', '': '' }),
        spec: {
          objective: null,
          parameter_assignments: { assignments: [{ name: 'lr', value: '0.1' }] },
          labels: { 'katib.kubeflow.org/trial': 'essai-é', '': 'no key', empty: '', 'clé 🙂': 'valeur' },
        },
      },
    ],
  ),
  'negative and extreme int32s': request(
    experiment({ algorithm: 'random', parallel: -1, max: -(2 ** 31) }),
    [],
    -3,
    2 ** 31 - 1,
  ),
  'enum numbers without names': {
    experiment: {
      name: 'unknown enums',
      spec: {
        parameter_specs: {
          parameters: [{ name: 'x', parameter_type: 9, feasible_space: { distribution: -1 } }],
        },
        objective: { type: 3 },
      },
    },
    trials: [{ name: 't', status: { condition: 42 } }],
  },
  'absent sub-messages': {
    experiment: {
      name: 'bare',
      spec: { parameter_specs: { parameters: [{ name: 'x', feasible_space: null }] } },
    },
    trials: [{ name: 'no spec, no status' }, { spec: { objective: null }, status: { observation: null } }],
  },
  'no experiment': { trials: [{ name: 't' }], current_request_number: 1 },
  'MIXED space, many metrics': request(experiment({ algorithm: 'cmaes', parameters: MIXED }), [
    trial('m', { lr: '0.01' }, 'EARLYSTOPPED', [
      ['accuracy', '0.5'],
      ['accuracy', '0.6'],
      ['loss', 'NaN'],
    ]),
  ]),
};

describe('GetSuggestionsRequest reader: what an encoder writes', () => {
  it('reads an empty request', () => {
    expect(check(Buffer.alloc(0))).toBe('read');
    expect(readSuggestionsRequest(Buffer.alloc(0))).toEqual({
      trials: [],
      experiment: null,
      current_request_number: 0,
      total_request_number: 0,
    });
  });

  for (const [name, value] of Object.entries(FIXTURES)) {
    it(`reads ${name} as the generic decoder does`, () => {
      expect(check(serialize(value))).toBe('read');
    });
  }

  it('leaves an enum number without a name a number, as toObject does', () => {
    const read = readSuggestionsRequest(serialize(FIXTURES['enum numbers without names']!));
    expect(read?.experiment?.spec?.parameter_specs?.parameters[0]?.parameter_type).toBe(9);
    expect(read?.trials[0]?.status?.condition).toBe(42);
  });

  it('reads bytes that are a view into a larger buffer, as grpc-js hands them over', () => {
    const bytes = serialize(FIXTURES['labels, empty and non-ASCII strings']!);
    const prefix = Buffer.from('prefix é');
    const view = Buffer.concat([prefix, bytes, Buffer.from([0xff])]).subarray(
      prefix.length,
      prefix.length + bytes.length,
    );
    expect(view.byteOffset).toBeGreaterThan(0);
    expect(check(view)).toBe('read');
  });

  it('reads several hundred random requests as the generic decoder does', () => {
    const random = createRng(20_260_101).next; // seeded, so a failure replays
    for (let i = 0; i < 400; i++) expect(check(serialize(randomRequest(random)))).toBe('read');
  });
});

describe('GetSuggestionsRequest reader: hand-built bytes', () => {
  const READ: Record<string, Buffer> = {
    'fields out of order': raw(
      int32(5, 9),
      trialField(field(1, 't1')),
      int32(4, 2),
      field(1, field(1, 'exp')),
      trialField(field(3, int32(3, 2)), field(1, 't2')),
    ),
    'a singular message twice: the last replaces the first, unmerged': raw(
      field(1, field(1, 'first'), field(2, int32(5, 3))),
      trialField(field(3, field(1, '2026-01-01T00:00:00Z'), int32(3, 1)), field(3, int32(3, 2))),
      field(1, field(1, 'second')),
    ),
    'scalars and strings twice: the last wins': raw(
      int32(4, 1),
      int32(4, 7),
      trialField(field(1, 'a'), field(1, 'b'), field(3, int32(3, 1), int32(3, 4))),
    ),
    'unknown fields of every wire type at every level': raw(
      int32(9, 150),
      fixed64(10, 1.5),
      fixed32(11),
      field(12, 'unknown'),
      field(
        1,
        field(
          2,
          field(2, int32(1, 1), field(5, field(1, 'accuracy'), int32(2, 2))), // as a metric_strategies = 5
          field(9, 'x'),
          int32(15, 1),
        ),
        fixed32(3),
      ),
      trialField(
        field(3, field(4, field(1, field(1, 'm'), fixed64(3, 2)), int32(2, 1)), int32(6, 0)),
        int32(4, 1),
      ),
    ),
    'reserved fields (an older request_number, experiment_name) skipped': raw(
      int32(3, 3),
      trialField(field(2, field(1, 'old-experiment'), field(3, field(1, field(1, 'x'), field(2, '1'))))),
    ),
    'packed and unpacked repeated int32s, negative ones in 10 bytes': raw(
      field(
        1,
        field(
          2,
          field(
            7,
            field(
              1,
              int32(1, -4),
              field(2, [...varint(1), ...varint(-2), ...varint(300)]),
              int32(2, 7),
              int32(3, -1),
            ),
          ),
        ),
      ),
    ),
    'a 10-byte int32 whose last five bytes protobufjs passes over unread': raw(
      [0x20, 0xff, 0xff, 0xff, 0xff, 0xff, 0x80, 0x80, 0x80, 0x80, 0x80],
      int32(5, 2),
    ),
    'a tag and a length written long (non-minimal varints)': raw(
      [0xa0, 0x00, 0x05], // current_request_number = 5
      [0x92, 0x80, 0x00, 0x83, 0x00, 0x0a, 0x01, 0x74], // a trial named 't'
    ),
    'doubles: -0, NaN, infinities, the smallest': raw(
      field(1, field(2, field(2, fixed64(2, -0)))),
      trialField(field(2, field(2, fixed64(2, Number.NaN)))),
      trialField(field(2, field(2, fixed64(2, -Infinity)))),
      trialField(field(2, field(2, fixed64(2, 5e-324)))),
    ),
    'invalid UTF-8, short and long': raw(
      trialField(field(1, [0xff, 0xfe])),
      trialField(field(1, [0xe8, 0xa9])),
      trialField(field(1, [0xc0, 0xaf, 0x41])),
      trialField(field(1, [0xed, 0xa0, 0x80])),
      trialField(field(1, 'a long ASCII start ', [0xf0, 0x9f, 0x98], ' then a cut emoji')),
    ),
    'labels: a key twice, a key or value left out, __proto__, numeric keys, an unknown field': raw(
      trialField(
        field(
          2,
          labelEntry(field(1, 'b'), field(2, '1')),
          labelEntry(field(1, '10'), field(2, 'ten')),
          labelEntry(field(1, 'b'), field(2, '2')),
          labelEntry(field(2, 'no key')),
          labelEntry(field(1, 'no value')),
          labelEntry(field(1, '__proto__'), field(2, 'own')),
          labelEntry(field(1, '2'), int32(3, 1), field(2, 'two')),
          labelEntry(field(2, 'value first'), field(1, 'a')),
        ),
      ),
    ),
  };
  for (const [name, bytes] of Object.entries(READ)) {
    it(`reads ${name} as the generic decoder does`, () => {
      expect(check(bytes)).toBe('read');
    });
  }

  it('replaces a message given twice rather than merging it, as protobufjs does', () => {
    const read = readSuggestionsRequest(
      READ['a singular message twice: the last replaces the first, unmerged']!,
    );
    expect(read?.experiment).toEqual({ name: 'second', spec: null });
    expect(read?.trials[0]?.status).toMatchObject({ start_time: '', condition: 'SUCCEEDED' });
  });

  const ASIDE: Record<string, Buffer> = {
    'a group in an unknown field': raw([0x4b, 0x08, 0x01, 0x4c], int32(4, 2)),
    'a known int32 written as fixed32 (protobufjs reads a varint there)': raw([0x25, 0x05]),
    'a repeated int32 written as fixed32': raw(field(1, field(2, field(7, field(1, [0x15, 0x00]))))),
    'a known string written as a varint': raw(trialField([0x08, 0x00])),
    'a known double written as a varint': raw(field(1, field(2, field(2, [0x10, 1, 2, 3, 4, 5, 6, 7, 8])))),
    'a map entry key written as a varint': raw(trialField(field(2, labelEntry([0x08, 0x01])))),
    'a string running past its message (protobufjs cuts it short)': raw(
      trialField([0x0a, 0x05, 0x61]),
      int32(4, 1),
    ),
    'field number 0': raw([0x00, 0x00], int32(4, 1)),
    'a tag beyond 31 bits': raw([0x80, 0x80, 0x80, 0x80, 0x08, 0x01], int32(4, 1)),
    'a tag of ten bytes': raw([0xa0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x01]),
  };
  for (const [name, bytes] of Object.entries(ASIDE)) {
    it(`leaves ${name} to the generic decoder`, () => {
      expect(readSuggestionsRequest(bytes)).toBeUndefined();
      expect(check(bytes)).not.toBe('read');
    });
  }

  const MALFORMED: Record<string, Buffer> = {
    'a truncated varint': raw([0x20, 0x80]),
    'a truncated tag': raw(int32(4, 1), [0x80]),
    'a truncated 10-byte int32': raw([0x20, 0xff, 0xff, 0xff, 0xff, 0xff, 0x80]),
    'a length past the end': raw([0x0a, 0x05, 0x0a]),
    'a length beyond 31 bits': raw([0x12, 0x80, 0x80, 0x80, 0x80, 0x08]),
    'a nested length past its message': raw(trialField(field(2), [0x1a, 0x09])),
    'a varint running past its message': raw([0x12, 0x02, 0x18, 0x80, 0x01]),
    'a double cut short': raw(field(1, field(2, field(2, [0x11, 1, 2, 3])))),
    'wire type 6': raw([0x4e, 0x01]),
    'wire type 7': raw(int32(4, 1), [0x4f]),
    'wire type 6 nested': raw(trialField([0x36])),
    'a stray end of group': raw([0x4c]),
  };
  for (const [name, bytes] of Object.entries(MALFORMED)) {
    it(`fails on ${name} with the generic decoder's error`, () => {
      expect(check(bytes)).toBe('rejected');
      expect(() => wrapped.requestDeserialize(bytes)).toThrow();
    });
  }

  it('agrees with the generic decoder on random mutations of random requests', () => {
    const random = createRng(7).next;
    const outcomes: Record<Outcome, number> = { read: 0, 'left to the generic decoder': 0, rejected: 0 };
    for (let i = 0; i < 300; i++) {
      const bytes = serialize(randomRequest(random));
      if (bytes.length === 0) continue;
      for (const mutated of mutations(bytes, random)) outcomes[check(mutated)]++;
    }
    // Every way out was taken.
    expect(outcomes.read).toBeGreaterThan(0);
    expect(outcomes['left to the generic decoder']).toBeGreaterThan(0);
    expect(outcomes.rejected).toBeGreaterThan(0);
  });
});

describe('StepAsideReader', () => {
  it('decodes a string outside any region on its own, ASCII or not', () => {
    const bytes = raw(field(1, 'hi'), field(1, 'é'), field(1, 'ASCII past thirteen'));
    const reader = new StepAsideReader(bytes);
    const strings: string[] = [];
    while (reader.at < bytes.length) strings.push(reader.string(reader.tag(bytes.length), bytes.length));
    expect(strings).toEqual(['hi', 'é', 'ASCII past thirteen']);
  });
});

describe('withSuggestionsRequestReader', () => {
  it('answers ordinary requests without the generic decoder, and hands it the rest', () => {
    const deserialize = vi.spyOn(Suggestion.service.GetSuggestions!, 'requestDeserialize');
    const ordinary = wrapped.requestDeserialize(serialize(FIXTURES['tpe, one trial']!));
    expect(deserialize).not.toHaveBeenCalled();
    expect(ordinary).toMatchObject({ trials: [{ name: 'trial-1' }] });
    wrapped.requestDeserialize(raw([0x4b, 0x08, 0x01, 0x4c])); // a group: left aside
    expect(deserialize).toHaveBeenCalledTimes(1);
  });

  it('hands a plain Uint8Array (not a Buffer) to the generic decoder', () => {
    const deserialize = vi.spyOn(Suggestion.service.GetSuggestions!, 'requestDeserialize');
    const bytes = new Uint8Array(serialize(FIXTURES['labels, empty and non-ASCII strings']!));
    const read = wrapped.requestDeserialize(bytes as Buffer);
    expect(deserialize).toHaveBeenCalledTimes(1);
    expect(read).toMatchObject({ experiment: { name: 'expérience-試験' } });
  });

  it('keeps the other method and everything else of the definition', () => {
    expect(wrappedDefinition.ValidateAlgorithmSettings).toBe(Suggestion.service.ValidateAlgorithmSettings);
    expect(wrapped.path).toBe(generic.path);
    expect(wrapped.requestSerialize).toBe(generic.requestSerialize);
    expect(wrapped.responseSerialize).toBe(generic.responseSerialize);
    expect(() => withSuggestionsRequestReader({})).toThrow(/no GetSuggestions/);
  });
});

const TEXTS = [
  '',
  'x1',
  'loss',
  'trial-00042',
  'hartmann6-0001',
  '0.30278553286452215',
  '2026-01-01T00:00:01Z',
  'é',
  'naïve café',
  '試行-七',
  '🙂 emoji',
  'nul \u0000 inside',
  'a lone \ud800 surrogate',
  'twelve chars',
  'thirteen char',
  'ASCII then é past thirteen',
  'a'.repeat(300),
];
const NUMBERS = [0, 1, -1, 127, 128, 16_383, 16_384, 2 ** 31 - 1, -(2 ** 31), -123_456];
const DOUBLES = [0, -0, 0.5, -1e-300, 5e-324, Number.MAX_VALUE, Number.NaN, Infinity, -Infinity];

/** A request of random shape and content, as a plain object for the encoder. */
function randomRequest(random: () => number): object {
  const below = (n: number) => Math.floor(random() * n);
  const pick = <T>(items: readonly T[]): T => items[below(items.length)]!;
  const list = <T>(max: number, make: () => T): T[] => Array.from({ length: below(max + 1) }, make);
  /** Present, or left out, or null (which proto3 does not write either). */
  const maybe = <T>(make: () => T): T | null | undefined => {
    const roll = random();
    return roll < 0.12 ? undefined : roll < 0.2 ? null : make();
  };
  const text = (): string => {
    if (random() < 0.6) return pick(TEXTS);
    const ranges = [0x20, 0x80, 0x800, 0x10000, 0x110000];
    return String.fromCodePoint(...list(20, () => below(pick(ranges))));
  };
  const int = () => (random() < 0.5 ? pick(NUMBERS) : Math.floor(random() * 2 ** 32) | 0);
  const real = () => (random() < 0.5 ? pick(DOUBLES) : random() * 2000 - 1000);
  const enumNumber = (count: number) =>
    random() < 0.85 ? below(count) : pick([count, count + 3, -1, 2 ** 31 - 1]);
  const nameValue = () => ({ name: text(), value: text() });
  const objective = () => ({
    type: enumNumber(3),
    goal: real(),
    objective_metric_name: text(),
    additional_metric_names: list(3, text),
  });
  const algorithm = () => ({ algorithm_name: text(), algorithm_settings: list(4, nameValue) });
  const parameterSpec = () => ({
    name: text(),
    parameter_type: enumNumber(5),
    feasible_space: maybe(() => ({
      max: text(),
      min: text(),
      list: list(4, text),
      step: text(),
      distribution: enumNumber(5),
    })),
  });
  const nasConfig = () => ({
    graph_config: maybe(() => ({ num_layers: int(), input_sizes: list(4, int), output_sizes: list(4, int) })),
    operations: maybe(() => ({
      operation: list(3, () => ({
        operation_type: text(),
        parameter_specs: maybe(() => ({ parameters: list(3, parameterSpec) })),
      })),
    })),
  });
  const trialOf = () => ({
    name: text(),
    spec: maybe(() => ({
      objective: maybe(objective),
      parameter_assignments: maybe(() => ({ assignments: list(6, nameValue) })),
      labels: Object.fromEntries(list(3, () => [random() < 0.1 ? '__proto__' : text(), text()])),
    })),
    status: maybe(() => ({
      start_time: text(),
      completion_time: text(),
      condition: enumNumber(8),
      observation: maybe(() => ({ metrics: list(3, nameValue) })),
    })),
  });
  return {
    experiment: maybe(() => ({
      name: text(),
      spec: maybe(() => ({
        parameter_specs: maybe(() => ({ parameters: list(5, parameterSpec) })),
        objective: maybe(objective),
        algorithm: maybe(algorithm),
        early_stopping: maybe(algorithm),
        parallel_trial_count: int(),
        max_trial_count: int(),
        nas_config: maybe(nasConfig),
      })),
    })),
    trials: list(6, trialOf),
    current_request_number: int(),
    total_request_number: int(),
  };
}

/** The bytes cut short, a byte changed, a byte inserted, a run dropped. */
function mutations(bytes: Buffer, random: () => number): Buffer[] {
  const at = () => Math.floor(random() * bytes.length);
  const changed = Buffer.from(bytes);
  changed[at()] = Math.floor(random() * 256);
  const inserted = at();
  const dropped = at();
  return [
    bytes.subarray(0, at()),
    changed,
    Buffer.concat([
      bytes.subarray(0, inserted),
      Buffer.from([Math.floor(random() * 256)]),
      bytes.subarray(inserted),
    ]),
    Buffer.concat([bytes.subarray(0, dropped), bytes.subarray(dropped + 1 + Math.floor(at() / 8))]),
  ];
}
