// unit_multiplier, algorithm, burst and rate_limits: what loads, what the reference's limit stays,
// and every refusal with its exact message naming the descriptor's path.
import { describe, expect, it } from 'vitest';
import { loadText, lookup, ruleOf, textError } from './helpers.ts';

const withLimit = (rateLimit: string) =>
  `domain: d\ndescriptors:\n  - key: k\n    rate_limit: ${rateLimit}\n`;
const withList = (...entries: string[]) =>
  `domain: d\ndescriptors:\n  - key: k\n    rate_limits:\n${entries.map((e) => `      - ${e}\n`).join('')}`;
const ruleFor = (text: string) => ruleOf(lookup(loadText(text), 'd', ['k', 'v']));

describe('limits beyond the reference', () => {
  it('leaves a limit that spells out the defaults the reference fixed window, key and dump line included', () => {
    const text = withLimit(
      '{unit: minute, requests_per_unit: 5, unit_multiplier: 1, algorithm: fixed_window}',
    );
    expect(ruleFor(text).limits).toBeUndefined();
    expect(loadText(text).dump()).toBe(
      'd.k: unit=MINUTE requests_per_unit=5, shadow_mode: false, quota_mode: false\n',
    );
  });

  it('keeps a window of unit × unit_multiplier, a sliding window, a token bucket (burst defaults to requests_per_unit)', () => {
    expect(ruleFor(withLimit('{unit: minute, unit_multiplier: 5, requests_per_unit: 100}')).limits).toEqual([
      {
        requestsPerUnit: 100,
        unit: 'MINUTE',
        unitMultiplier: 5,
        algorithm: 'fixed_window',
        burst: 0,
        name: '',
        replaces: [],
        windowSeconds: 300,
        keyTag: 'f300',
      },
    ]);
    expect(
      ruleFor(withLimit('{unit: hour, requests_per_unit: 9, algorithm: sliding_window}')).limits,
    ).toMatchObject([{ algorithm: 'sliding_window', windowSeconds: 3600, keyTag: 's3600', burst: 0 }]);
    expect(
      ruleFor(withLimit('{unit: second, requests_per_unit: 9, algorithm: token_bucket}')).limits,
    ).toMatchObject([{ algorithm: 'token_bucket', windowSeconds: 1, keyTag: 't1', burst: 9 }]);
    expect(
      ruleFor(withLimit('{unit: second, requests_per_unit: 9, algorithm: token_bucket, burst: 20}')).limits,
    ).toMatchObject([{ burst: 20 }]);
  });

  it('keeps several limits of one descriptor, each with its name; the rule carries every replaces', () => {
    const rule = ruleFor(
      withList(
        '{unit: second, requests_per_unit: 10, name: burst}',
        '{unit: day, requests_per_unit: 1000, algorithm: sliding_window, name: daily, replaces: [{name: other}]}',
      ),
    );
    expect(rule.limits?.map((l) => [l.keyTag, l.name])).toEqual([
      ['f1', 'burst'],
      ['s86400', 'daily'],
    ]);
    expect(rule).toMatchObject({ requestsPerUnit: 10, unit: 'SECOND', name: 'burst', replaces: ['other'] });
  });

  it('dumps a line per limit with its window and algorithm (/rlconfig)', () => {
    const config = loadText(
      withList(
        '{unit: minute, unit_multiplier: 5, requests_per_unit: 100, algorithm: sliding_window}',
        '{unit: second, requests_per_unit: 10, algorithm: token_bucket, burst: 20}',
      ),
    );
    expect(config.dump()).toBe(
      [
        'd.k: unit=MINUTE unit_multiplier=5 requests_per_unit=100 algorithm=sliding_window, shadow_mode: false, quota_mode: false',
        'd.k: unit=SECOND unit_multiplier=1 requests_per_unit=10 algorithm=token_bucket burst=20, shadow_mode: false, quota_mode: false',
        '',
      ].join('\n'),
    );
  });

  it('takes the new keys in YAML of any spelling yaml.v2 reads (flow, block, quoted numbers refused)', () => {
    const block =
      'domain: d\ndescriptors:\n  - key: k\n    rate_limit:\n      unit: MINUTE\n      unit_multiplier: 0x2\n      requests_per_unit: 7\n';
    expect(ruleFor(block).limits).toMatchObject([{ unitMultiplier: 2, windowSeconds: 120 }]);
    expect(textError(withLimit('{unit: minute, requests_per_unit: 1, unit_multiplier: "2"}'))).toBe(
      'test.yaml: error loading config file: yaml: unmarshal errors:\n  line 4: cannot unmarshal !!str `2` into uint32',
    );
  });
});

describe('refusals name the descriptor', () => {
  const nested = (rateLimit: string) =>
    `domain: d\ndescriptors:\n  - key: a\n    value: v\n    descriptors:\n      - key: b\n        rate_limit: ${rateLimit}\n`;

  it.each([
    [
      'a window key on the descriptor itself',
      'domain: d\ndescriptors:\n  - key: k\n    algorithm: token_bucket\n    rate_limit: {unit: second, requests_per_unit: 1}\n',
      "algorithm can only be used inside rate_limit or rate_limits, but found it on descriptor 'd.k'",
    ],
    [
      'rate_limit and rate_limits together',
      'domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: second, requests_per_unit: 1}\n    rate_limits:\n      - {unit: minute, requests_per_unit: 1}\n',
      "rate_limit and rate_limits cannot both be used, but found both on descriptor 'd.k'",
    ],
    [
      'an empty rate_limits',
      'domain: d\ndescriptors:\n  - key: k\n    rate_limits: []\n',
      "rate_limits needs at least one limit, but found none on descriptor 'd.k'",
    ],
    [
      'a rate_limits without value',
      'domain: d\ndescriptors:\n  - key: k\n    rate_limits:\n',
      "rate_limits needs at least one limit, but found none on descriptor 'd.k'",
    ],
    [
      'unlimited in rate_limits',
      withList('{unit: second, requests_per_unit: 1}', '{unlimited: true}'),
      "unlimited cannot be used in rate_limits, but found it in rate_limits[1] of descriptor 'd.k'",
    ],
    [
      'a bad unit in rate_limits',
      withList('{unit: fortnight, requests_per_unit: 1}'),
      "invalid rate limit unit 'fortnight' in rate_limits[0] of descriptor 'd.k'",
    ],
    [
      'an empty replaces entry in rate_limits',
      withList('{unit: second, requests_per_unit: 1, replaces: [{name: ""}]}'),
      "should not have an empty replaces entry in rate_limits[0] of descriptor 'd.k'",
    ],
    [
      'a limit replacing another of its descriptor',
      withList(
        '{unit: second, requests_per_unit: 1, name: x}',
        '{unit: hour, requests_per_unit: 9, replaces: [{name: x}]}',
      ),
      "replaces should not contain name of same descriptor in rate_limits[1] of descriptor 'd.k'",
    ],
    [
      'two limits with one window and algorithm (one cache key)',
      withList(
        '{unit: minute, requests_per_unit: 1}',
        '{unit: second, unit_multiplier: 60, requests_per_unit: 9}',
      ),
      "duplicate rate limit (fixed_window over 60 seconds) in rate_limits[1] of descriptor 'd.k'",
    ],
    [
      'unit_multiplier 0',
      nested('{unit: minute, unit_multiplier: 0, requests_per_unit: 1}'),
      "unit_multiplier must be at least 1, but found 0 on descriptor 'd.a_v.b'",
    ],
    [
      'a window beyond 2^32 - 1 seconds',
      withLimit('{unit: year, unit_multiplier: 1000, requests_per_unit: 1}'),
      "a window (unit × unit_multiplier) must be at most 4294967295 seconds, but found 31536000000 on descriptor 'd.k'",
    ],
    [
      'an unknown algorithm',
      withLimit('{unit: minute, requests_per_unit: 1, algorithm: leaky_bucket}'),
      "invalid rate limit algorithm 'leaky_bucket' (fixed_window, sliding_window, token_bucket) on descriptor 'd.k'",
    ],
    [
      'an algorithm in other case',
      withLimit('{unit: minute, requests_per_unit: 1, algorithm: Sliding_Window}'),
      "invalid rate limit algorithm 'Sliding_Window' (fixed_window, sliding_window, token_bucket) on descriptor 'd.k'",
    ],
    [
      'burst on a fixed window (the default algorithm)',
      withLimit('{unit: minute, requests_per_unit: 1, burst: 5}'),
      "burst can only be used with algorithm token_bucket, but found algorithm 'fixed_window' on descriptor 'd.k'",
    ],
    [
      'burst on a sliding window in rate_limits',
      withList('{unit: minute, requests_per_unit: 1, algorithm: sliding_window, burst: 5}'),
      "burst can only be used with algorithm token_bucket, but found algorithm 'sliding_window' in rate_limits[0] of descriptor 'd.k'",
    ],
    [
      'burst 0',
      withLimit('{unit: minute, requests_per_unit: 1, algorithm: token_bucket, burst: 0}'),
      "burst must be at least 1, but found 0 on descriptor 'd.k'",
    ],
    [
      'a token bucket that never refills',
      withLimit('{unit: minute, requests_per_unit: 0, algorithm: token_bucket, burst: 3}'),
      "token_bucket needs requests_per_unit of at least 1, but found 0 on descriptor 'd.k'",
    ],
    [
      'a token bucket too large to count exactly',
      withLimit('{unit: day, requests_per_unit: 1000, algorithm: token_bucket, burst: 4000000000}'),
      "token_bucket cannot count exactly with burst 4000000000 over 86400 seconds (burst × period in ms must stay below 2^53) on descriptor 'd.k'",
    ],
    [
      'unlimited with an algorithm',
      withLimit('{unlimited: true, algorithm: sliding_window, unit_multiplier: 2}'),
      "unlimited cannot be used with unit_multiplier, algorithm or burst, but found unit_multiplier, algorithm on descriptor 'd.k'",
    ],
  ])('refuses %s', (_, text, message) => {
    expect(textError(text)).toBe(`test.yaml: ${message}`);
  });

  it('keeps the reference messages for the reference checks of a single rate_limit', () => {
    expect(textError(withLimit('{unit: fortnight, requests_per_unit: 1, algorithm: sliding_window}'))).toBe(
      "test.yaml: invalid rate limit unit 'fortnight'",
    );
    expect(textError(withLimit('{unlimited: true, unit: day, algorithm: sliding_window}'))).toBe(
      'test.yaml: should not specify rate limit unit when unlimited',
    );
  });

  it('refuses in document order: the first bad descriptor is named', () => {
    const text =
      'domain: d\ndescriptors:\n  - key: first\n    rate_limit: {unit: minute, requests_per_unit: 1, burst: 1}\n  - key: second\n    rate_limit: {unit: minute, requests_per_unit: 1, unit_multiplier: 0}\n';
    expect(textError(text)).toBe(
      "test.yaml: burst can only be used with algorithm token_bucket, but found algorithm 'fixed_window' on descriptor 'd.first'",
    );
  });
});
