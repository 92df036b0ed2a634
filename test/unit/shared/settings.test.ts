import { describe, expect, it } from 'vitest';
import {
  bool,
  describeSettings,
  documented,
  type Env,
  type Field,
  hostPorts,
  int,
  list,
  num,
  oneOf,
  port,
  readSettings,
  SettingsError,
  str,
} from '../../../shared/settings.ts';

/** Reads one field from an env holding only `raw` (or nothing when raw is undefined). */
function read<T>(f: Field<T>, raw: string | undefined) {
  const env: Env = raw === undefined ? {} : { [f.variable]: raw };
  return f.read(env);
}

/** Asserts that `raw` parses to `expected`. */
function expectValue<T>(f: Field<T>, raw: string | undefined, expected: T): void {
  expect(read(f, raw)).toEqual({ ok: true, value: expected });
}

/** Asserts that `raw` is rejected with the exact "not allowed" message. */
function expectNotAllowed<T>(f: Field<T>, raw: string, allowed: string): void {
  expect(read(f, raw)).toEqual({
    ok: false,
    problem: `${f.variable}=${JSON.stringify(raw)} is not allowed: ${allowed}`,
  });
}

describe('str', () => {
  const withDefault = str('NAME', 'backbone');

  it.each([
    ['unset', undefined, 'backbone'],
    ['empty', '', 'backbone'],
    ['set', 'katib', 'katib'],
    ['kept verbatim, spaces included', '  two words  ', '  two words  '],
    ['any characters', 'a=b,"c"', 'a=b,"c"'],
  ] as const)('%s: %j gives %j', (_name, raw, expected) => {
    expectValue(withDefault, raw, expected);
  });

  it('is required without a default, with the default allowed text', () => {
    const f = str('NAME');
    expect(f.allowed).toBe('any text');
    expect(f.defaultText).toBeUndefined();
    expect(read(f, undefined)).toEqual({ ok: false, problem: 'NAME is required: any text' });
    expect(read(f, '')).toEqual({ ok: false, problem: 'NAME is required: any text' });
    expectValue(f, 'x', 'x');
  });

  it('uses a custom allowed text in the required message', () => {
    const f = str('TOPIC', undefined, 'a Kafka topic name');
    expect(read(f, undefined)).toEqual({ ok: false, problem: 'TOPIC is required: a Kafka topic name' });
  });

  it('accepts an empty default', () => {
    const f = str('PREFIX', '');
    expectValue(f, undefined, '');
    expect(f.defaultText).toBe('');
  });
});

describe('int', () => {
  const unbounded = int('COUNT', 5);
  const ranged = int('WORKERS', 2, { min: 1, max: 10 });

  it('states its range in the allowed text', () => {
    expect(ranged.allowed).toBe('an integer from 1 to 10');
    expect(unbounded.allowed).toBe(
      `an integer from ${Number.MIN_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`,
    );
    expect(int('ONLY_MIN', 0, { min: 0 }).allowed).toBe(`an integer from 0 to ${Number.MAX_SAFE_INTEGER}`);
    expect(ranged.defaultText).toBe('2');
  });

  it.each([
    [undefined, 5],
    ['', 5],
    ['42', 42],
    ['0', 0],
    ['-7', -7],
    ['+3', 3],
    [' 8 ', 8],
    ['007', 7],
    [String(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER],
  ] as const)('unbounded: %j gives %j', (raw, expected) => {
    expectValue(unbounded, raw, expected);
  });

  it.each([
    '4.2',
    '1e3',
    '0x10',
    '12abc',
    'abc',
    '- 1',
    '1 000',
    ' ',
    'Infinity',
    'NaN',
    '99999999999999999999',
  ])('unbounded: %j is not allowed', (raw) => {
    expectNotAllowed(unbounded, raw, unbounded.allowed);
  });

  it.each([
    ['1', 1],
    ['10', 10],
    ['5', 5],
  ] as const)('ranged: %j is inside the inclusive range', (raw, expected) => {
    expectValue(ranged, raw, expected);
  });

  it.each(['0', '11', '-1', '100'])('ranged: %j is outside the range', (raw) => {
    expectNotAllowed(ranged, raw, 'an integer from 1 to 10');
  });

  it('gives the exact message for a bad value', () => {
    expect(read(ranged, 'many')).toEqual({
      ok: false,
      problem: 'WORKERS="many" is not allowed: an integer from 1 to 10',
    });
  });

  it('is required when the default is undefined', () => {
    const f = int('SHARDS', undefined, { min: 1, max: 4 });
    expect(f.defaultText).toBeUndefined();
    expect(read(f, undefined)).toEqual({
      ok: false,
      problem: 'SHARDS is required: an integer from 1 to 4',
    });
    expectValue(f, '3', 3);
  });
});

describe('num', () => {
  const unbounded = num('RATIO', 0.5);
  const ranged = num('FRACTION', 0.25, { min: 0, max: 1 });

  it('states its range in the allowed text', () => {
    expect(unbounded.allowed).toBe('a number from -Infinity to Infinity');
    expect(ranged.allowed).toBe('a number from 0 to 1');
    expect(ranged.defaultText).toBe('0.25');
  });

  it.each([
    [undefined, 0.5],
    ['', 0.5],
    ['1.5', 1.5],
    ['-2', -2],
    ['0', 0],
    ['1e3', 1000],
    [' 2.5 ', 2.5],
    ['.5', 0.5],
  ] as const)('unbounded: %j gives %j', (raw, expected) => {
    expectValue(unbounded, raw, expected);
  });

  it.each(['abc', 'Infinity', '-Infinity', 'NaN', '1.2.3', '5ms', ' ', '\t'])(
    'unbounded: %j is not allowed',
    (raw) => {
      expectNotAllowed(unbounded, raw, 'a number from -Infinity to Infinity');
    },
  );

  it.each([
    ['0', 0],
    ['1', 1],
    ['0.999', 0.999],
  ] as const)('ranged: %j is inside the inclusive range', (raw, expected) => {
    expectValue(ranged, raw, expected);
  });

  it.each(['-0.001', '1.0001', '2'])('ranged: %j is outside the range', (raw) => {
    expectNotAllowed(ranged, raw, 'a number from 0 to 1');
  });

  it('is required when the default is undefined', () => {
    expect(read(num('RATE', undefined, { min: 1 }), undefined)).toEqual({
      ok: false,
      problem: 'RATE is required: a number from 1 to Infinity',
    });
  });
});

describe('bool', () => {
  const allowed = 'true or false (also 1/0, t/f, yes/no, on/off)';

  it('reports its default as text', () => {
    expect(bool('A', true).defaultText).toBe('true');
    expect(bool('A', false).defaultText).toBe('false');
    expect(bool('A', false).allowed).toBe(allowed);
  });

  it.each([
    [undefined, true, true],
    [undefined, false, false],
    ['', true, true],
    ['', false, false],
  ] as const)('%j with default %j gives the default', (raw, fallback, expected) => {
    expectValue(bool('FLAG', fallback), raw, expected);
  });

  it.each(['1', 't', 'true', 'yes', 'on', 'TRUE', 'True', 'T', 'YES', 'On', ' yes ', '\ttrue\n'])(
    '%j is true',
    (raw) => {
      expectValue(bool('FLAG', false), raw, true);
    },
  );

  it.each(['0', 'f', 'false', 'no', 'off', 'FALSE', 'False', 'F', 'NO', 'Off', ' off '])(
    '%j is false',
    (raw) => {
      expectValue(bool('FLAG', true), raw, false);
    },
  );

  it.each(['maybe', '2', 'y', 'n', 'enabled', '-1', 'truee', ' '])('%j is not allowed', (raw) => {
    expectNotAllowed(bool('FLAG', false), raw, allowed);
  });
});

describe('oneOf', () => {
  const level = oneOf('LOG_LEVEL', ['debug', 'info', 'warn'], 'info');

  it('lists its choices in the allowed text', () => {
    expect(level.allowed).toBe('one of debug, info, warn');
    expect(level.defaultText).toBe('info');
  });

  it.each([
    [undefined, 'info'],
    ['', 'info'],
    ['debug', 'debug'],
    ['warn', 'warn'],
    [' warn ', 'warn'],
  ] as const)('%j gives %j', (raw, expected) => {
    expectValue(level, raw, expected);
  });

  it.each(['INFO', 'Debug', 'error', 'inf', 'debug,info'])('%j is not allowed (case-sensitive)', (raw) => {
    expectNotAllowed(level, raw, 'one of debug, info, warn');
  });

  it('is required without a default', () => {
    const mode = oneOf('MODE', ['a', 'b']);
    expect(mode.defaultText).toBeUndefined();
    expect(read(mode, undefined)).toEqual({ ok: false, problem: 'MODE is required: one of a, b' });
    expectValue(mode, 'b', 'b');
  });
});

describe('list', () => {
  const topics = list('TOPICS', ['a', 'b']);

  it('describes its default and allowed values', () => {
    expect(topics.allowed).toBe('comma-separated values');
    expect(topics.defaultText).toBe('a,b');
  });

  it.each([
    [undefined, ['a', 'b']],
    ['', ['a', 'b']],
    ['x', ['x']],
    ['x,y,z', ['x', 'y', 'z']],
    [' x , y ', ['x', 'y']],
    ['x,,y,', ['x', 'y']],
    [',x', ['x']],
  ] as const)('%j gives %j', (raw, expected) => {
    expectValue(topics, raw, expected);
  });

  it.each([',', ' , , ', ' '])('%j has no values and is not allowed', (raw) => {
    expectNotAllowed(topics, raw, 'comma-separated values');
  });

  it('freezes both parsed values and the default', () => {
    const parsed = read(topics, 'x,y');
    const fallback = read(topics, undefined);
    if (!parsed.ok || !fallback.ok) throw new Error('expected values');
    expect(Object.isFrozen(parsed.value)).toBe(true);
    expect(Object.isFrozen(fallback.value)).toBe(true);
  });

  it('does not share the caller’s default array', () => {
    const defaults = ['a'];
    const f = list('L', defaults);
    defaults.push('b');
    expectValue(f, undefined, ['a']);
  });

  it('checks every item with a custom validator', () => {
    const digits = list('IDS', undefined, {
      allowed: 'comma-separated digits',
      valid: (v) => /^\d+$/.test(v),
    });
    expect(digits.defaultText).toBeUndefined();
    expectValue(digits, '1, 22,333', ['1', '22', '333']);
    expectNotAllowed(digits, '1,x,3', 'comma-separated digits');
    expect(read(digits, undefined)).toEqual({
      ok: false,
      problem: 'IDS is required: comma-separated digits',
    });
  });
});

describe('hostPorts', () => {
  const allowed = 'comma-separated host:port pairs, port from 1 to 65535';
  const brokers = hostPorts('KAFKA_BROKERS', ['localhost:9092']);

  it('describes its default and allowed values', () => {
    expect(brokers.allowed).toBe(allowed);
    expect(brokers.defaultText).toBe('localhost:9092');
  });

  it.each([
    [undefined, ['localhost:9092']],
    ['', ['localhost:9092']],
    ['kafka:29092', ['kafka:29092']],
    ['a:1,b:65535', ['a:1', 'b:65535']],
    [' a:1 , b:2 ', ['a:1', 'b:2']],
    ['10.0.0.1:9092', ['10.0.0.1:9092']],
    ['[::1]:9092', ['[::1]:9092']],
  ] as const)('%j gives %j', (raw, expected) => {
    expectValue(brokers, raw, expected);
  });

  it.each([
    'localhost',
    ':9092',
    'host:',
    'host:0',
    'host:65536',
    'host:port',
    'host:-1',
    'a:1,b',
    'a:1,b:99999',
    ',',
  ])('%j is not allowed', (raw) => {
    expectNotAllowed(brokers, raw, allowed);
  });
});

describe('port', () => {
  const p = port('HTTP_PORT', 8080);

  it('is an integer from 0 to 65535 with a default', () => {
    expect(p.allowed).toBe('an integer from 0 to 65535');
    expect(p.defaultText).toBe('8080');
  });

  it.each([
    [undefined, 8080],
    ['', 8080],
    ['0', 0],
    ['1', 1],
    ['65535', 65535],
    ['9092', 9092],
  ] as const)('%j gives %j', (raw, expected) => {
    expectValue(p, raw, expected);
  });

  it.each(['-1', '65536', '80.5', 'http', '1e3'])('%j is not allowed', (raw) => {
    expectNotAllowed(p, raw, 'an integer from 0 to 65535');
  });
});

describe('readSettings', () => {
  const spec = {
    name: str('SERVICE_NAME', 'api'),
    workers: int('WORKERS', 2, { min: 1, max: 8 }),
    ratio: num('RATIO', 0.5, { min: 0, max: 1 }),
    verbose: bool('VERBOSE', false),
    level: oneOf('LOG_LEVEL', ['debug', 'info'], 'info'),
    brokers: hostPorts('BROKERS', ['localhost:9092']),
    port: port('PORT', 8080),
    topic: str('TOPIC'),
  };

  it('reads every field, with defaults for what is unset', () => {
    const settings = readSettings(spec, { TOPIC: 'events', WORKERS: '4', VERBOSE: 'yes' });
    expect(settings).toEqual({
      name: 'api',
      workers: 4,
      ratio: 0.5,
      verbose: true,
      level: 'info',
      brokers: ['localhost:9092'],
      port: 8080,
      topic: 'events',
    });
  });

  it('ignores variables that are not in the spec', () => {
    const settings = readSettings({ topic: str('TOPIC') }, { TOPIC: 't', OTHER: 'x' });
    expect(settings).toEqual({ topic: 't' });
  });

  it('returns a frozen object: assigning throws', () => {
    const settings = readSettings(spec, { TOPIC: 'events' });
    expect(Object.isFrozen(settings)).toBe(true);
    expect(Object.isFrozen(settings.brokers)).toBe(true);
    expect(() => {
      (settings as Record<string, unknown>).workers = 99;
    }).toThrow(TypeError);
    expect(() => {
      (settings as Record<string, unknown>).extra = 1;
    }).toThrow(TypeError);
    expect(() => {
      (settings.brokers as string[]).push('other:1');
    }).toThrow(TypeError);
    expect(settings.workers).toBe(2);
  });

  it('reports every bad variable in one SettingsError, in spec order', () => {
    const env: Env = {
      WORKERS: '0',
      RATIO: 'half',
      VERBOSE: 'perhaps',
      LOG_LEVEL: 'trace',
      BROKERS: 'nohost',
      PORT: '70000',
    };
    const expected = [
      'WORKERS="0" is not allowed: an integer from 1 to 8',
      'RATIO="half" is not allowed: a number from 0 to 1',
      'VERBOSE="perhaps" is not allowed: true or false (also 1/0, t/f, yes/no, on/off)',
      'LOG_LEVEL="trace" is not allowed: one of debug, info',
      'BROKERS="nohost" is not allowed: comma-separated host:port pairs, port from 1 to 65535',
      'PORT="70000" is not allowed: an integer from 0 to 65535',
      'TOPIC is required: any text',
    ];
    let caught: unknown;
    try {
      readSettings(spec, env);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SettingsError);
    expect(caught).toBeInstanceOf(Error);
    const error = caught as SettingsError;
    expect(error.name).toBe('SettingsError');
    expect(error.problems).toEqual(expected);
    expect(error.message).toBe(`invalid settings:\n${expected.map((p) => `  - ${p}`).join('\n')}`);
  });

  it('reports a single problem the same way', () => {
    expect(() => readSettings(spec, { TOPIC: 't', PORT: 'x' })).toThrow(
      'invalid settings:\n  - PORT="x" is not allowed: an integer from 0 to 65535',
    );
  });

  it('JSON-quotes awkward raw values in messages', () => {
    const f = { n: int('N', 1) };
    expect(() => readSettings(f, { N: 'a "b"\n' })).toThrow(
      new SettingsError([
        'N="a \\"b\\"\\n" is not allowed: an integer from -9007199254740991 to 9007199254740991',
      ]),
    );
  });

  it('handles an empty spec', () => {
    const settings = readSettings({}, { ANY: 'x' });
    expect(settings).toEqual({});
    expect(Object.isFrozen(settings)).toBe(true);
  });
});

describe('SettingsError', () => {
  it('keeps its problems and formats one line per problem', () => {
    const error = new SettingsError(['A is required: any text', 'B="x" is not allowed: one of y']);
    expect(error.problems).toEqual(['A is required: any text', 'B="x" is not allowed: one of y']);
    expect(error.message).toBe(
      'invalid settings:\n  - A is required: any text\n  - B="x" is not allowed: one of y',
    );
  });
});

describe('describeSettings', () => {
  it('gives one row per field, in spec order, with "(required)" for fields without a default', () => {
    const rows = describeSettings({
      name: str('SERVICE_NAME', 'api'),
      topic: str('TOPIC', undefined, 'a topic name'),
      workers: int('WORKERS', 2, { min: 1, max: 8 }),
      ratio: num('RATIO', undefined, { min: 0, max: 1 }),
      verbose: bool('VERBOSE', false),
      level: oneOf('LOG_LEVEL', ['debug', 'info'], 'info'),
      mode: oneOf('MODE', ['a', 'b']),
      tags: list('TAGS', ['x', 'y']),
      brokers: hostPorts('BROKERS', ['k1:9092', 'k2:9092']),
      port: port('PORT', 0),
      prefix: str('PREFIX', ''),
    });
    expect(rows).toEqual([
      { variable: 'SERVICE_NAME', default: 'api', allowed: 'any text' },
      { variable: 'TOPIC', default: '(required)', allowed: 'a topic name' },
      { variable: 'WORKERS', default: '2', allowed: 'an integer from 1 to 8' },
      { variable: 'RATIO', default: '(required)', allowed: 'a number from 0 to 1' },
      { variable: 'VERBOSE', default: 'false', allowed: 'true or false (also 1/0, t/f, yes/no, on/off)' },
      { variable: 'LOG_LEVEL', default: 'info', allowed: 'one of debug, info' },
      { variable: 'MODE', default: '(required)', allowed: 'one of a, b' },
      { variable: 'TAGS', default: 'x,y', allowed: 'comma-separated values' },
      {
        variable: 'BROKERS',
        default: 'k1:9092,k2:9092',
        allowed: 'comma-separated host:port pairs, port from 1 to 65535',
      },
      { variable: 'PORT', default: '0', allowed: 'an integer from 0 to 65535' },
      { variable: 'PREFIX', default: '', allowed: 'any text' },
    ]);
  });

  it('gives no rows for an empty spec', () => {
    expect(describeSettings({})).toEqual([]);
  });
});

describe('documented', () => {
  it('attaches each meaning to its field and reads as before', () => {
    const plain = { port: port('A_PORT', 80), name: str('A_NAME', 'x') };
    const spec = documented(plain, { port: 'the port' });
    expect(spec.port.doc).toBe('the port');
    expect(spec.name.doc).toBeUndefined();
    const env = { A_PORT: '81' };
    expect(readSettings(spec, env)).toEqual(readSettings(plain, env));
    expect(() => readSettings(spec, { A_PORT: 'no' })).toThrow('A_PORT="no" is not allowed');
    expect(describeSettings(spec)[0]).toEqual({
      variable: 'A_PORT',
      default: '80',
      allowed: 'an integer from 0 to 65535',
      doc: 'the port',
    });
  });
});
