import { describe, expect, it } from 'vitest';
import { loadFixtures, loadText, lookup, ruleOf } from './helpers.ts';

const NO_LIMIT = { kind: 'no-limit' };

// Reference §2.3 (TestBasicConfig) and §3.
describe('getLimit on basic_config.yaml', () => {
  const config = loadFixtures(['basic_config.yaml']);

  it('reports an unknown domain, with or without a request override', () => {
    expect(lookup(config, 'foo_domain', ['key1', 'value1'])).toEqual({ kind: 'domain-not-found' });
    expect(
      config.getLimit('foo_domain', {
        entries: [{ key: 'k', value: 'v' }],
        limit: { requestsPerUnit: 10, unit: 'DAY' },
      }),
    ).toEqual({ kind: 'domain-not-found' });
  });

  it('finds no limit for a descriptor without entries', () => {
    expect(config.getLimit('test-domain', { entries: [] })).toEqual(NO_LIMIT);
  });

  it('finds no limit where the config has none (depth rule, unmatched values)', () => {
    expect(lookup(config, 'test-domain', ['key1', 'something'])).toEqual(NO_LIMIT);
    // key1/value1 only holds limits one level deeper.
    expect(lookup(config, 'test-domain', ['key1', 'value1'])).toEqual(NO_LIMIT);
    // key2/value2 has a limit, but the request is deeper than the config.
    expect(lookup(config, 'test-domain', ['key2', 'value2'], ['subkey', 'subvalue'])).toEqual(NO_LIMIT);
    expect(lookup(config, 'test-domain', ['key5', 'value5'], ['subkey5', 'subvalue'])).toEqual(NO_LIMIT);
  });

  it('takes a value-less default at the second level', () => {
    expect(ruleOf(lookup(config, 'test-domain', ['key1', 'value1'], ['subkey1', 'something']))).toMatchObject(
      {
        requestsPerUnit: 5,
        unit: 'SECOND',
        fullKey: 'test-domain.key1_value1.subkey1',
        statsKey: 'test-domain.key1_value1.subkey1',
        cacheKeyEntries: [
          { key: 'key1', value: 'value1' },
          { key: 'subkey1', value: 'something' },
        ],
      },
    );
  });

  it('prefers the exact value over the default', () => {
    expect(ruleOf(lookup(config, 'test-domain', ['key1', 'value1'], ['subkey1', 'subvalue1']))).toMatchObject(
      {
        requestsPerUnit: 10,
        unit: 'SECOND',
        statsKey: 'test-domain.key1_value1.subkey1_subvalue1',
      },
    );
    expect(ruleOf(lookup(config, 'test-domain', ['key2', 'something']))).toMatchObject({
      requestsPerUnit: 20,
      unit: 'MINUTE',
      statsKey: 'test-domain.key2',
    });
    expect(ruleOf(lookup(config, 'test-domain', ['key2', 'value2']))).toMatchObject({
      requestsPerUnit: 30,
      unit: 'MINUTE',
      statsKey: 'test-domain.key2_value2',
    });
  });

  it('whitelists an entry with neither limit nor children, even over a default', () => {
    expect(lookup(config, 'test-domain', ['key2', 'value3'])).toEqual(NO_LIMIT);
  });

  it('applies an intermediate limit only when the request stops there', () => {
    expect(ruleOf(lookup(config, 'test-domain', ['key5', 'value5'])).requestsPerUnit).toBe(15);
    expect(
      ruleOf(lookup(config, 'test-domain', ['key5', 'value5'], ['subkey5', 'subvalue5'])).requestsPerUnit,
    ).toBe(25);
  });

  it('carries the limit name, empty when none', () => {
    expect(ruleOf(lookup(config, 'test-domain', ['key3', 'foo']))).toMatchObject({
      requestsPerUnit: 1,
      unit: 'HOUR',
      name: '',
    });
    expect(ruleOf(lookup(config, 'test-domain', ['key4', 'foo']))).toMatchObject({
      requestsPerUnit: 1,
      unit: 'DAY',
      name: 'key4_rate_limit',
    });
  });

  it('marks unlimited entries', () => {
    expect(ruleOf(lookup(config, 'test-domain', ['key6', 'foo']))).toMatchObject({
      unlimited: true,
      fullKey: 'test-domain.key6',
    });
  });

  it('counts detailed_metric stats per request value', () => {
    expect(ruleOf(lookup(config, 'test-domain', ['key7', 'unspecified_value']))).toMatchObject({
      requestsPerUnit: 70,
      unit: 'MINUTE',
      fullKey: 'test-domain.key7',
      statsKey: 'test-domain.key7_unspecified_value',
    });
    expect(ruleOf(lookup(config, 'test-domain', ['key7', 'another_value'])).statsKey).toBe(
      'test-domain.key7_another_value',
    );
    expect(ruleOf(lookup(config, 'test-domain', ['key7', ''])).statsKey).toBe('test-domain.key7_');
  });

  it('is case-sensitive on keys and values', () => {
    expect(lookup(config, 'test-domain', ['KEY3', 'foo'])).toEqual(NO_LIMIT);
    expect(ruleOf(lookup(config, 'test-domain', ['key2', 'VALUE2'])).requestsPerUnit).toBe(20);
  });
});

describe('request limit override (reference §3.2, TestConfigLimitOverride)', () => {
  const config = loadFixtures(['basic_config.yaml']);

  it('replaces the configured limit, keyed by the request', () => {
    const rule = ruleOf(
      config.getLimit('test-domain', {
        entries: [
          { key: 'key1', value: 'value1' },
          { key: 'subkey1', value: 'something' },
        ],
        limit: { requestsPerUnit: 10, unit: 'DAY' },
      }),
    );
    expect(rule).toEqual({
      fullKey: 'test-domain.key1_value1.subkey1_something',
      statsKey: 'test-domain.key1_value1.subkey1_something',
      requestsPerUnit: 10,
      unit: 'DAY',
      unlimited: false,
      shadowMode: false,
      quotaMode: false,
      name: '',
      replaces: [],
      cacheKeyEntries: [
        { key: 'key1', value: 'value1' },
        { key: 'subkey1', value: 'something' },
      ],
    });
  });

  it('applies even where the config has no such descriptor, and omits empty values from the key', () => {
    const rule = ruleOf(
      config.getLimit('test-domain', {
        entries: [
          { key: 'nothing', value: '' },
          { key: 'here', value: 'x' },
        ],
        limit: { requestsPerUnit: 42, unit: 'HOUR' },
      }),
    );
    expect(rule).toMatchObject({ fullKey: 'test-domain.nothing.here_x', requestsPerUnit: 42, unit: 'HOUR' });
  });

  it('overrides a whitelist and is never shadowed', () => {
    const shadowed = loadFixtures(['shadowmode_config.yaml']);
    const override = { requestsPerUnit: 1, unit: 'SECOND' } as const;
    expect(
      ruleOf(config.getLimit('test-domain', { entries: [{ key: 'key2', value: 'value3' }], limit: override }))
        .requestsPerUnit,
    ).toBe(1);
    expect(
      ruleOf(shadowed.getLimit('test-domain', { entries: [{ key: 'key2', value: 'x' }], limit: override }))
        .shadowMode,
    ).toBe(false);
  });
});

describe('wildcards (reference §3.3b, TestWildcardConfig)', () => {
  const config = loadFixtures(['wildcard.yaml']);

  it('a value-less entry matches any value with one rule, each value its own counter', () => {
    const first = ruleOf(lookup(config, 'test-domain', ['noVal', 'foo1']));
    const second = ruleOf(lookup(config, 'test-domain', ['noVal', 'foo2']));
    expect({ ...first, cacheKeyEntries: [] }).toEqual({ ...second, cacheKeyEntries: [] });
    expect(first.statsKey).toBe('test-domain.noVal');
    expect(first.cacheKeyEntries).not.toEqual(second.cacheKeyEntries);
  });

  it('a trailing * matches any suffix, under the pattern key', () => {
    const first = ruleOf(lookup(config, 'test-domain', ['wild', 'foo1']));
    expect(first).toMatchObject({ fullKey: 'test-domain.wild_foo*', statsKey: 'test-domain.wild_foo*' });
    expect(first.cacheKeyEntries).toEqual([{ key: 'wild', value: 'foo1' }]);
    expect(ruleOf(lookup(config, 'test-domain', ['wild', 'foo2'])).fullKey).toBe('test-domain.wild_foo*');
    expect(ruleOf(lookup(config, 'test-domain', ['wild', 'foo'])).fullKey).toBe('test-domain.wild_foo*');
    expect(lookup(config, 'test-domain', ['wild', 'bar'])).toEqual(NO_LIMIT);
  });

  it('a value without * does not match by prefix', () => {
    expect(lookup(config, 'test-domain', ['noWild', 'foo1'])).toEqual(NO_LIMIT);
    expect(ruleOf(lookup(config, 'test-domain', ['noWild', 'foo'])).fullKey).toBe('test-domain.noWild_foo');
  });

  it('a * in the middle matches zero or more characters', () => {
    expect(ruleOf(lookup(config, 'test-domain', ['midWild', 'barab'])).fullKey).toBe(
      'test-domain.midWild_bar*b',
    );
    expect(ruleOf(lookup(config, 'test-domain', ['midWild', 'barb'])).fullKey).toBe(
      'test-domain.midWild_bar*b',
    );
    expect(lookup(config, 'test-domain', ['midWild', 'bar'])).toEqual(NO_LIMIT);
    expect(lookup(config, 'test-domain', ['midWild', 'barbx'])).toEqual(NO_LIMIT);
    expect(lookup(config, 'test-domain', ['midWildcard', 'barab'])).toEqual(NO_LIMIT);
  });

  it('several * match their fixed parts in order', () => {
    expect(ruleOf(lookup(config, 'test-domain', ['multiWild', 'abc'])).fullKey).toBe(
      'test-domain.multiWild_a*b*c',
    );
    expect(ruleOf(lookup(config, 'test-domain', ['multiWild', 'a-x-b-y-c'])).fullKey).toBe(
      'test-domain.multiWild_a*b*c',
    );
    expect(lookup(config, 'test-domain', ['multiWild', 'acb'])).toEqual(NO_LIMIT);
    expect(lookup(config, 'test-domain', ['multiWild', 'ac'])).toEqual(NO_LIMIT);
  });

  it('matches on the concatenated key_value, so `key: foo, value: "*"` also takes key foo_bar', () => {
    const star = loadText(
      'domain: d\ndescriptors:\n  - key: foo\n    value: "*"\n    rate_limit: {unit: second, requests_per_unit: 1}\n',
    );
    expect(ruleOf(lookup(star, 'd', ['foo', 'anything'])).fullKey).toBe('d.foo_*');
    expect(ruleOf(lookup(star, 'd', ['foo', ''])).fullKey).toBe('d.foo_*');
    expect(ruleOf(lookup(star, 'd', ['foo_bar', 'x'])).fullKey).toBe('d.foo_*');
    expect(lookup(star, 'd', ['fo', 'o_x'])).toEqual(NO_LIMIT);
  });
});

describe('precedence: exact > wildcard (first listed) > value-less key', () => {
  const config = loadText(`
domain: d
descriptors:
  - key: k
    rate_limit: {unit: second, requests_per_unit: 1}
  - key: k
    value: ab*
    rate_limit: {unit: second, requests_per_unit: 2}
  - key: k
    value: a*
    rate_limit: {unit: second, requests_per_unit: 3}
  - key: k
    value: abc
    rate_limit: {unit: second, requests_per_unit: 4}
`);
  const limitOf = (value: string) => ruleOf(lookup(config, 'd', ['k', value])).requestsPerUnit;

  it('takes the exact value first', () => expect(limitOf('abc')).toBe(4));
  it('then the first wildcard in config order, not the longest', () => {
    expect(limitOf('abd')).toBe(2);
    expect(limitOf('axe')).toBe(3);
  });
  it('then the value-less key', () => expect(limitOf('zzz')).toBe(1));

  it('descends through a wildcard placeholder to its children', () => {
    const nested = loadText(`
domain: d
descriptors:
  - key: path
    value: /api/*
    descriptors:
      - key: method
        value: GET
        rate_limit: {unit: minute, requests_per_unit: 6}
`);
    expect(ruleOf(lookup(nested, 'd', ['path', '/api/users'], ['method', 'GET'])).fullKey).toBe(
      'd.path_/api/*.method_GET',
    );
    expect(lookup(nested, 'd', ['path', '/api/users'])).toEqual(NO_LIMIT);
    expect(lookup(nested, 'd', ['path', '/api/users'], ['method', 'POST'])).toEqual(NO_LIMIT);
  });

  it('does not fall back to the value-less sibling when the exact match is a dead end', () => {
    const deadEnd = loadText(`
domain: d
descriptors:
  - key: a
    rate_limit: {unit: second, requests_per_unit: 1}
    descriptors:
      - key: b
        rate_limit: {unit: second, requests_per_unit: 2}
  - key: a
    value: x
    descriptors:
      - key: c
        rate_limit: {unit: second, requests_per_unit: 3}
`);
    expect(lookup(deadEnd, 'd', ['a', 'x'], ['b', 'y'])).toEqual(NO_LIMIT);
    expect(ruleOf(lookup(deadEnd, 'd', ['a', 'y'], ['b', 'y'])).requestsPerUnit).toBe(2);
  });
});

describe('rule attributes', () => {
  it('per-rule shadow mode (shadowmode_config.yaml)', () => {
    const config = loadFixtures(['shadowmode_config.yaml']);
    expect(
      ruleOf(lookup(config, 'test-domain', ['key1', 'value1'], ['subkey1', 'something'])).shadowMode,
    ).toBe(true);
    expect(
      ruleOf(lookup(config, 'test-domain', ['key1', 'value1'], ['subkey1', 'subvalue1'])).shadowMode,
    ).toBe(false);
    expect(ruleOf(lookup(config, 'test-domain', ['key2', 'something'])).shadowMode).toBe(true);
    expect(ruleOf(lookup(config, 'test-domain', ['key2', 'value2'])).shadowMode).toBe(false);
  });

  it('quota_mode, replaces and unlimited with requests_per_unit', () => {
    const config = loadText(`
domain: d
descriptors:
  - key: service
    quota_mode: true
    rate_limit: {unit: minute, requests_per_unit: 2, name: quota}
  - key: banned
    rate_limit: {unit: minute, requests_per_unit: 0, name: banned_limit}
  - key: override
    rate_limit: {unit: minute, requests_per_unit: 2, replaces: [{name: banned_limit}, {name: missing}]}
  - key: free
    rate_limit: {unlimited: true, requests_per_unit: 25, replaces: [{name: quota}]}
`);
    expect(ruleOf(lookup(config, 'd', ['service', 's1']))).toMatchObject({
      quotaMode: true,
      name: 'quota',
      replaces: [],
    });
    expect(ruleOf(lookup(config, 'd', ['banned', 'x']))).toMatchObject({
      requestsPerUnit: 0,
      name: 'banned_limit',
    });
    expect(ruleOf(lookup(config, 'd', ['override', 'x']))).toMatchObject({
      name: '',
      replaces: ['banned_limit', 'missing'],
    });
    expect(ruleOf(lookup(config, 'd', ['free', 'x']))).toMatchObject({
      unlimited: true,
      requestsPerUnit: 25,
      replaces: ['quota'],
    });
  });

  it('metadata of the matched descriptor (metadata.yaml)', () => {
    const config = loadFixtures(['metadata.yaml']);
    expect(ruleOf(lookup(config, 'test-domain', ['key1', 'value1'], ['subkey1', 'x'])).metadata).toEqual({
      name: 'service_1',
    });
    expect(
      ruleOf(lookup(config, 'test-domain', ['key1', 'value1'], ['subkey1', 'subvalue1'])).metadata,
    ).toBeUndefined();
    expect(ruleOf(lookup(config, 'test-domain', ['key2', 'x'])).metadata).toEqual({
      service_with_quota: { name: 'service_2', weight: 3, tags: ['a', true] },
    });
  });
});

describe('MERGE_DOMAIN_CONFIG (TestDomainMerge)', () => {
  it('answers from both files', () => {
    const config = loadFixtures(['merge_domain_key1.yaml', 'merge_domain_key2.yaml'], true);
    expect(lookup(config, 'foo_domain', ['key1', 'value1'])).toEqual({ kind: 'domain-not-found' });
    expect(config.getLimit('test-domain', { entries: [] })).toEqual(NO_LIMIT);
    expect(ruleOf(lookup(config, 'test-domain', ['key1', 'value1'])).requestsPerUnit).toBe(10);
    expect(ruleOf(lookup(config, 'test-domain', ['key2', 'value2'])).requestsPerUnit).toBe(20);
  });
});
