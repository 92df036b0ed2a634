import { describe, expect, it } from 'vitest';
import { loadText, lookup, ruleOf, textError } from './helpers.ts';

/** One descriptor `k` under domain `d` whose rate_limit block is given as YAML lines. */
function withRateLimit(...lines: string[]): string {
  return [
    'domain: d',
    'descriptors:',
    '  - key: k',
    '    rate_limit:',
    ...lines.map((line) => `      ${line}`),
    '',
  ].join('\n');
}

function ruleFor(text: string) {
  return ruleOf(lookup(loadText(text), 'd', ['k', 'v']));
}

// gopkg.in/yaml.v2 decodes YAML 1.1: the reference's behaviour depends on it (§2.1, §9).
describe('YAML 1.1 booleans', () => {
  for (const word of ['yes', 'Yes', 'YES', 'on', 'On', 'ON', 'true', 'True', 'TRUE', 'y', 'Y']) {
    it(`${word} is true`, () => {
      expect(
        ruleFor(`${withRateLimit('unit: second', 'requests_per_unit: 1')}    shadow_mode: ${word}\n`)
          .shadowMode,
      ).toBe(true);
    });
  }
  for (const word of ['no', 'No', 'NO', 'off', 'Off', 'OFF', 'false', 'n', 'N', '~', '']) {
    it(`${JSON.stringify(word)} is false`, () => {
      expect(
        ruleFor(`${withRateLimit('unit: second', 'requests_per_unit: 1')}    shadow_mode: ${word}\n`)
          .shadowMode,
      ).toBe(false);
    });
  }

  it('accepts unlimited: yes without a unit', () => {
    expect(ruleFor(withRateLimit('unlimited: yes')).unlimited).toBe(true);
  });

  it('keeps a boolean-looking value as its text in a string field', () => {
    const config = loadText(
      'domain: d\ndescriptors:\n  - key: k\n    value: yes\n    rate_limit: {unit: second, requests_per_unit: 1}\n',
    );
    expect(ruleOf(lookup(config, 'd', ['k', 'yes'])).fullKey).toBe('d.k_yes');
  });

  it('rejects a quoted "true" in a boolean field', () => {
    expect(textError(`${withRateLimit('unit: second')}    shadow_mode: "true"\n`)).toBe(
      'test.yaml: error loading config file: yaml: unmarshal errors:\n  line 6: cannot unmarshal !!str `true` into bool',
    );
  });

  it('rejects a number in a boolean field', () => {
    expect(textError(withRateLimit('unit: second', 'unlimited: 1'))).toBe(
      'test.yaml: error loading config file: yaml: unmarshal errors:\n  line 6: cannot unmarshal !!int `1` into bool',
    );
  });

  it('reads a boolean key as a non-string key', () => {
    expect(textError('domain: d\nyes: 1\n')).toBe('test.yaml: config error, key is not of type string: true');
    expect(textError('domain: d\noff: 1\n')).toBe(
      'test.yaml: config error, key is not of type string: false',
    );
  });

  it('treats a quoted boolean word as a string key', () => {
    expect(textError('domain: d\n"yes": 1\n')).toBe("test.yaml: config error, unknown key 'yes'");
  });
});

describe('requests_per_unit is a uint32', () => {
  const cases: readonly [string, number][] = [
    ['0', 0],
    ['4294967295', 4294967295],
    ['010', 8],
    ['0x10', 16],
    ['0o17', 15],
    ['0b101', 5],
    ['1_000', 1000],
    ['+7', 7],
    ['~', 0],
  ];
  for (const [text, value] of cases) {
    it(`${text} is ${value}`, () => {
      expect(ruleFor(withRateLimit('unit: second', `requests_per_unit: ${text}`)).requestsPerUnit).toBe(
        value,
      );
    });
  }

  for (const [text, tag] of [
    ['-1', '!!int `-1`'],
    ['4294967296', '!!int `4294967296`'],
    ['"5"', '!!str `5`'],
    ['five', '!!str `five`'],
    ['true', '!!bool `true`'],
    ['2001-12-14', '!!timestamp `2001-12-14`'],
    ['123456789012345', '!!int `1234567...`'],
  ] as const) {
    it(`rejects ${text}`, () => {
      expect(textError(withRateLimit('unit: second', `requests_per_unit: ${text}`))).toBe(
        `test.yaml: error loading config file: yaml: unmarshal errors:\n  line 6: cannot unmarshal ${tag} into uint32`,
      );
    });
  }

  it('rejects a float anywhere before decoding', () => {
    expect(textError(withRateLimit('unit: second', 'requests_per_unit: 5.0'))).toBe(
      'test.yaml: error checking config',
    );
    expect(textError(withRateLimit('unit: second', 'requests_per_unit: 1e3'))).toBe(
      'test.yaml: error checking config',
    );
    expect(textError('domain: d\ndescriptors:\n  - key: k\n    value: 1.5\n')).toBe(
      'test.yaml: error checking config',
    );
    // `08` is not octal, so yaml.v2 falls back to a float.
    expect(textError('domain: d\ndescriptors:\n  - key: k\n    value: 08\n')).toBe(
      'test.yaml: error checking config',
    );
  });

  it('rejects an integer above int64 (a uint64 leaf)', () => {
    expect(textError(withRateLimit('unit: second', 'requests_per_unit: 18446744073709551615'))).toBe(
      'test.yaml: error checking config',
    );
  });

  it('keeps a number too large for a float64 as a string', () => {
    expect(textError(withRateLimit('unit: second', 'requests_per_unit: 1e400'))).toBe(
      'test.yaml: error loading config file: yaml: unmarshal errors:\n  line 6: cannot unmarshal !!str `1e400` into uint32',
    );
  });

  it('reports every type error of a file, in document order', () => {
    const text = `${withRateLimit('unit: second', 'requests_per_unit: -5')}    detailed_metric: maybe\n`;
    expect(textError(text)).toBe(
      [
        'test.yaml: error loading config file: yaml: unmarshal errors:',
        '  line 6: cannot unmarshal !!int `-5` into uint32',
        '  line 7: cannot unmarshal !!str `maybe` into bool',
      ].join('\n'),
    );
  });
});

describe('unit is case-insensitive', () => {
  for (const [text, unit] of [
    ['second', 'SECOND'],
    ['Minute', 'MINUTE'],
    ['HOUR', 'HOUR'],
    ['dAy', 'DAY'],
    ['week', 'WEEK'],
    ['month', 'MONTH'],
    ['year', 'YEAR'],
  ] as const) {
    it(`${text} is ${unit}`, () => {
      expect(ruleFor(withRateLimit(`unit: ${text}`, 'requests_per_unit: 3')).unit).toBe(unit);
    });
  }

  it('rejects UNKNOWN, an empty and a missing unit with the raw text', () => {
    expect(textError(withRateLimit('unit: unknown', 'requests_per_unit: 3'))).toBe(
      "test.yaml: invalid rate limit unit 'unknown'",
    );
    expect(textError(withRateLimit('unit: ""', 'requests_per_unit: 3'))).toBe(
      "test.yaml: invalid rate limit unit ''",
    );
    expect(textError(withRateLimit('requests_per_unit: 3'))).toBe("test.yaml: invalid rate limit unit ''");
    expect(textError(withRateLimit('unit: seconds', 'requests_per_unit: 3'))).toBe(
      "test.yaml: invalid rate limit unit 'seconds'",
    );
  });
});

describe('duplicate keys: the last one wins', () => {
  it('in a rate_limit block', () => {
    const rule = ruleFor(
      withRateLimit('unit: second', 'requests_per_unit: 1', 'requests_per_unit: 9', 'unit: hour'),
    );
    expect(rule).toMatchObject({ requestsPerUnit: 9, unit: 'HOUR' });
  });

  it('for the domain', () => {
    const config = loadText('domain: first\ndomain: second\ndescriptors:\n');
    expect(config.domains).toEqual(['second']);
  });

  it('for non-string keys too (reported once)', () => {
    expect(textError('domain: d\n1: a\n1: b\n')).toBe(
      'test.yaml: config error, key is not of type string: 1',
    );
  });
});

describe('Go %v of a non-string key or list element', () => {
  for (const [key, printed] of [
    ['0.25', '0.25'],
    ['1e6', '1e+06'],
    ['123456.0', '123456'],
    ['0.00001', '1e-05'],
    ['.inf', '+Inf'],
    ['~', '<nil>'],
    ['0x1F', '31'],
  ] as const) {
    it(`${key} prints as ${printed}`, () => {
      expect(textError(`${key}: x\n`)).toBe(`test.yaml: config error, key is not of type string: ${printed}`);
    });
  }

  it('prints a nested list element as Go does', () => {
    expect(textError('descriptors:\n  - [a, 1]\n')).toBe(
      'test.yaml: config error, yaml file contains list of type other than map: [a 1]',
    );
    expect(textError('descriptors: [~]\n')).toBe(
      'test.yaml: config error, yaml file contains list of type other than map: <nil>',
    );
  });
});

describe('the whitelist is flat', () => {
  it('accepts a known key at any depth, and ignores it where the struct has no such field', () => {
    const config = loadText(
      'domain: d\nunit: second\ndescriptors:\n  - key: k\n    domain: other\n    rate_limit: {unit: second, requests_per_unit: 2, key: x}\n',
    );
    expect(ruleOf(lookup(config, 'd', ['k', 'v'])).requestsPerUnit).toBe(2);
  });

  it('checks keys inside nested descriptors and replaces', () => {
    expect(
      textError(
        'domain: d\ndescriptors:\n  - key: k\n    descriptors:\n      - key: j\n        rate_limit: {units: second}\n',
      ),
    ).toBe("test.yaml: config error, unknown key 'units'");
    expect(textError(withRateLimit('unit: second', 'replaces: [{nam: x}]'))).toBe(
      "test.yaml: config error, unknown key 'nam'",
    );
  });

  it('does not inspect metadata', () => {
    const config = loadText(`${withRateLimit('unit: second')}    metadata: {anything: 1.5, 7: [x]}\n`);
    expect(ruleOf(lookup(config, 'd', ['k', 'v'])).metadata).toEqual({ anything: 1.5, 7: ['x'] });
  });
});

describe('documents and types', () => {
  it('treats an empty document as a file without a domain', () => {
    expect(textError('')).toBe('test.yaml: config file cannot have empty domain');
    expect(textError('# only a comment\n')).toBe('test.yaml: config file cannot have empty domain');
    expect(textError('domain: ~\n')).toBe('test.yaml: config file cannot have empty domain');
  });

  it('rejects a document that is not a mapping', () => {
    expect(textError('just text\n')).toBe(
      'test.yaml: error loading config file: yaml: unmarshal errors:\n  line 1: cannot unmarshal !!str `just text` into map[interface {}]interface {}',
    );
    expect(textError('- domain: d\n')).toBe(
      'test.yaml: error loading config file: yaml: unmarshal errors:\n  line 1: cannot unmarshal !!seq into map[interface {}]interface {}',
    );
  });

  it('rejects a scalar where a list or a struct is expected', () => {
    expect(textError('domain: d\ndescriptors: none\n')).toBe(
      'test.yaml: error loading config file: yaml: unmarshal errors:\n  line 2: cannot unmarshal !!str `none` into []config.YamlDescriptor',
    );
    expect(textError('domain: d\ndescriptors:\n  - key: k\n    rate_limit: 5\n')).toBe(
      'test.yaml: error loading config file: yaml: unmarshal errors:\n  line 4: cannot unmarshal !!int `5` into config.YamlRateLimit',
    );
    expect(textError('domain: d\ndescriptors:\n  key: k\n')).toBe(
      'test.yaml: error loading config file: yaml: unmarshal errors:\n  line 3: cannot unmarshal !!map into []config.YamlDescriptor',
    );
    expect(textError('domain: [a]\n')).toBe(
      'test.yaml: config error, yaml file contains list of type other than map: a',
    );
    expect(textError('domain: [{key: x}]\n')).toBe(
      'test.yaml: error loading config file: yaml: unmarshal errors:\n  line 1: cannot unmarshal !!seq into string',
    );
  });

  it('reads numbers and timestamps into string fields as written', () => {
    const config = loadText(
      'domain: 2024-01-02\ndescriptors:\n  - key: 10\n    value: 0x1F\n    rate_limit: {unit: second, requests_per_unit: 1}\n',
    );
    expect(ruleOf(lookup(config, '2024-01-02', ['10', '0x1F'])).fullKey).toBe('2024-01-02.10_0x1F');
  });

  it('treats a null rate_limit as none (whitelisted)', () => {
    const config = loadText('domain: d\ndescriptors:\n  - key: k\n    rate_limit: ~\n');
    expect(lookup(config, 'd', ['k', 'v'])).toEqual({ kind: 'no-limit' });
  });

  it('treats an empty rate_limit mapping as a limit without a unit', () => {
    expect(textError('domain: d\ndescriptors:\n  - key: k\n    rate_limit: {}\n')).toBe(
      "test.yaml: invalid rate limit unit ''",
    );
  });

  it('reads only the first document of a stream', () => {
    const config = loadText('domain: first\n---\ndomain: second\n');
    expect(config.domains).toEqual(['first']);
  });

  it('follows anchors, aliases and merge keys', () => {
    const config = loadText(
      [
        'domain: d',
        'descriptors:',
        '  - key: a',
        '    rate_limit: &limit {unit: minute, requests_per_unit: 4}',
        '  - key: b',
        '    rate_limit:',
        '      <<: *limit',
        '      requests_per_unit: 9',
        '',
      ].join('\n'),
    );
    expect(ruleOf(lookup(config, 'd', ['a', 'x']))).toMatchObject({ unit: 'MINUTE', requestsPerUnit: 4 });
    expect(ruleOf(lookup(config, 'd', ['b', 'x']))).toMatchObject({ unit: 'MINUTE', requestsPerUnit: 9 });
  });

  it('refuses an alias bomb as yaml.v2 does, without expanding it', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (const [name, previous] of [
      ['b', 'a'],
      ['c', 'b'],
      ['d', 'c'],
      ['e', 'd'],
      ['f', 'e'],
      ['g', 'f'],
    ]) {
      levels.push(`${name}: &${name} [${Array(10).fill(`*${previous}`).join(', ')}]`);
    }
    expect(textError(`${levels.join('\n')}\n`)).toBe(
      'test.yaml: error loading config file: yaml: document contains excessive aliasing',
    );
  });

  it('rejects a merge of something other than maps', () => {
    expect(textError('domain: d\nx:\n  <<: 5\n')).toBe(
      'test.yaml: error loading config file: yaml: map merge requires map or sequence of maps as the value',
    );
  });
});

describe('syntax errors in yaml.v2 words', () => {
  it('an unterminated quoted scalar without a final newline has no line', () => {
    expect(textError("'''")).toBe(
      'test.yaml: error loading config file: yaml: found unexpected end of stream',
    );
    expect(textError('domain: "abc\n\n')).toBe(
      'test.yaml: error loading config file: yaml: line 3: found unexpected end of stream',
    );
  });

  it('an unknown alias', () => {
    expect(textError('domain: *nowhere\n')).toBe(
      "test.yaml: error loading config file: yaml: unknown anchor 'nowhere' referenced",
    );
  });

  it('a tab used as indentation', () => {
    expect(textError('domain: d\ndescriptors:\n\t- key: k\n')).toBe(
      'test.yaml: error loading config file: yaml: line 3: found character that cannot start any token',
    );
  });
});
