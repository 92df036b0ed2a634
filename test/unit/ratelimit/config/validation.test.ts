import { describe, expect, it } from 'vitest';
import { loadError, loadText, lookup, ruleOf, textError } from './helpers.ts';

// Reference §2.2 step B: rules beyond the fixtures, each with its exact message.
describe('domains', () => {
  it('names the later file of a duplicate domain', () => {
    const file = (name: string) => ({ name, text: 'domain: shared\ndescriptors:\n' });
    expect(loadError([file('config.a.yaml'), file('config.b.yaml')])).toBe(
      "config.b.yaml: duplicate domain 'shared' in config file",
    );
  });

  it('merges descriptors into the existing domain, still refusing a repeated descriptor', () => {
    const first = {
      name: 'a.yaml',
      text: 'domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: second, requests_per_unit: 1}\n',
    };
    const second = {
      name: 'b.yaml',
      text: 'domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 2}\n',
    };
    expect(loadError([first, second], true)).toBe("b.yaml: duplicate descriptor composite key 'd.k'");
  });

  it('checks the domain before the descriptors', () => {
    expect(textError('descriptors:\n  - value: v\n')).toBe('test.yaml: config file cannot have empty domain');
  });
});

describe('descriptors', () => {
  it('refuses an empty key, also a nested one', () => {
    expect(textError('domain: d\ndescriptors:\n  - key: a\n    descriptors:\n      - key: ""\n')).toBe(
      'test.yaml: descriptor has empty key',
    );
  });

  it('names the full path of a nested duplicate', () => {
    const text =
      'domain: d\ndescriptors:\n  - key: a\n    value: b\n    descriptors:\n      - key: c\n      - key: c\n';
    expect(textError(text)).toBe("test.yaml: duplicate descriptor composite key 'd.a_b.c'");
  });

  it('lets `key: a, value: b_c` collide with `key: a_b, value: c` (one composite key)', () => {
    const text = 'domain: d\ndescriptors:\n  - key: a\n    value: b_c\n  - key: a_b\n    value: c\n';
    expect(textError(text)).toBe("test.yaml: duplicate descriptor composite key 'd.a_b_c'");
  });

  it('refuses two limits with different units on the same key and value', () => {
    const text =
      'domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: second, requests_per_unit: 1}\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 9}\n';
    expect(textError(text)).toBe("test.yaml: duplicate descriptor composite key 'd.k'");
  });

  it('allows the same key at different levels and in different branches', () => {
    const config = loadText(
      'domain: d\ndescriptors:\n  - key: k\n    descriptors:\n      - key: k\n        rate_limit: {unit: second, requests_per_unit: 3}\n  - key: j\n    descriptors:\n      - key: k\n        rate_limit: {unit: second, requests_per_unit: 4}\n',
    );
    expect(ruleOf(lookup(config, 'd', ['k', 'x'], ['k', 'y'])).requestsPerUnit).toBe(3);
    expect(ruleOf(lookup(config, 'd', ['j', 'x'], ['k', 'y'])).requestsPerUnit).toBe(4);
  });
});

describe('rate limits', () => {
  const descriptorWith = (rateLimit: string) =>
    `domain: d\ndescriptors:\n  - key: k\n    rate_limit: ${rateLimit}\n`;

  it('accepts unlimited with requests_per_unit but no unit', () => {
    const rule = ruleOf(
      lookup(loadText(descriptorWith('{unlimited: true, requests_per_unit: 25}')), 'd', ['k', 'v']),
    );
    expect(rule).toMatchObject({ unlimited: true, requestsPerUnit: 25 });
  });

  it('accepts unlimited with an invalid unit (only a valid one is refused)', () => {
    expect(
      ruleOf(lookup(loadText(descriptorWith('{unlimited: true, unit: fortnight}')), 'd', ['k', 'v']))
        .unlimited,
    ).toBe(true);
    expect(textError(descriptorWith('{unlimited: true, unit: WEEK}'))).toBe(
      'test.yaml: should not specify rate limit unit when unlimited',
    );
  });

  it('checks the unit before the replaces entries', () => {
    expect(textError(descriptorWith('{unit: nope, replaces: [{name: ""}]}'))).toBe(
      "test.yaml: invalid rate limit unit 'nope'",
    );
  });

  it('refuses an empty replaces name before a self reference', () => {
    expect(textError(descriptorWith('{unit: second, name: n, replaces: [{name: ""}, {name: n}]}'))).toBe(
      'test.yaml: should not have an empty replaces entry',
    );
    expect(textError(descriptorWith('{unit: second, name: n, replaces: [{name: other}, {name: n}]}'))).toBe(
      'test.yaml: replaces should not contain name of same descriptor',
    );
  });

  it('refuses an empty replaces name even without a name of its own (it equals the empty name)', () => {
    expect(textError(descriptorWith('{unit: second, replaces: [{}]}'))).toBe(
      'test.yaml: should not have an empty replaces entry',
    );
  });

  it('accepts replacing a name that exists nowhere, and a replacing rule without a name', () => {
    const rule = ruleOf(
      lookup(loadText(descriptorWith('{unit: second, replaces: [{name: ghost}]}')), 'd', ['k', 'v']),
    );
    expect(rule).toMatchObject({ name: '', replaces: ['ghost'] });
  });

  it('checks the limit before share_threshold, and share_threshold before the children', () => {
    const text =
      'domain: d\ndescriptors:\n  - key: k\n    share_threshold: true\n    rate_limit: {unit: bad}\n';
    expect(textError(text)).toBe("test.yaml: invalid rate limit unit 'bad'");
    const withChild =
      'domain: d\ndescriptors:\n  - key: k\n    share_threshold: true\n    descriptors:\n      - key: ""\n';
    expect(textError(withChild)).toBe(
      "test.yaml: share_threshold can only be used with wildcard values (containing '*'), but found key 'k'",
    );
  });

  it('accepts share_threshold on a wildcard key without a value', () => {
    const config = loadText(
      'domain: d\ndescriptors:\n  - key: pre*\n    share_threshold: true\n    rate_limit: {unit: second, requests_per_unit: 1}\n',
    );
    expect(ruleOf(lookup(config, 'd', ['prefix', 'x'])).fullKey).toBe('d.pre*');
  });
});

describe('all or nothing', () => {
  it('rejects the whole set when any file is bad', () => {
    const good = { name: 'good.yaml', text: 'domain: good\ndescriptors:\n' };
    const bad = { name: 'bad.yaml', text: 'domain: bad\ndescriptors:\n  - value: v\n' };
    expect(loadError([good, bad])).toBe('bad.yaml: descriptor has empty key');
  });

  it('reports a file-level parse problem before a later file is looked at', () => {
    const broken = { name: 'broken.yaml', text: "'''\n" };
    const bad = { name: 'bad.yaml', text: 'domain: d\ndescriptors:\n  - value: v\n' };
    expect(loadError([broken, bad])).toBe(
      'broken.yaml: error loading config file: yaml: line 2: found unexpected end of stream',
    );
  });
});
