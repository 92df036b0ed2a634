import { describe, expect, it } from 'vitest';
import { configVersion, loadConfig } from '../../../../services/ratelimit/config/index.ts';
import { fixture, loadFixtures, loadText } from './helpers.ts';

// Reference §5.5: `/rlconfig` is one line per configured limit.
describe('dump', () => {
  it('lists every limit of basic_config.yaml with unit, requests, shadow and quota mode', () => {
    expect(loadFixtures(['basic_config.yaml']).dump()).toBe(
      [
        'test-domain.key1_value1.subkey1: unit=SECOND requests_per_unit=5, shadow_mode: false, quota_mode: false',
        'test-domain.key1_value1.subkey1_subvalue1: unit=SECOND requests_per_unit=10, shadow_mode: false, quota_mode: false',
        'test-domain.key2: unit=MINUTE requests_per_unit=20, shadow_mode: false, quota_mode: false',
        'test-domain.key2_value2: unit=MINUTE requests_per_unit=30, shadow_mode: false, quota_mode: false',
        'test-domain.key3: unit=HOUR requests_per_unit=1, shadow_mode: false, quota_mode: false',
        'test-domain.key4: unit=DAY requests_per_unit=1, shadow_mode: false, quota_mode: false',
        'test-domain.key5_value5: unit=DAY requests_per_unit=15, shadow_mode: false, quota_mode: false',
        'test-domain.key5_value5.subkey5_subvalue5: unit=DAY requests_per_unit=25, shadow_mode: false, quota_mode: false',
        'test-domain.key6: unit=UNKNOWN requests_per_unit=0, shadow_mode: false, quota_mode: false',
        'test-domain.key7: unit=MINUTE requests_per_unit=70, shadow_mode: false, quota_mode: false',
        '',
      ].join('\n'),
    );
  });

  it('shows shadow and quota mode, every domain, and the wildcard pattern', () => {
    const files = [
      {
        name: 'a.yaml',
        text: 'domain: a\ndescriptors:\n  - key: k\n    shadow_mode: true\n    quota_mode: true\n    rate_limit: {unit: week, requests_per_unit: 3}\n',
      },
      {
        name: 'b.yaml',
        text: 'domain: b\ndescriptors:\n  - key: w\n    value: x*\n    rate_limit: {unit: year, requests_per_unit: 4}\n',
      },
    ];
    expect(loadConfig(files, { mergeDomainConfig: false }).dump()).toBe(
      'a.k: unit=WEEK requests_per_unit=3, shadow_mode: true, quota_mode: true\nb.w_x*: unit=YEAR requests_per_unit=4, shadow_mode: false, quota_mode: false\n',
    );
  });

  it('is empty for a configuration without limits', () => {
    expect(loadText('domain: d\ndescriptors:\n  - key: k\n').dump()).toBe('');
    expect(loadConfig([], { mergeDomainConfig: false }).dump()).toBe('');
  });
});

describe('version', () => {
  const a = fixture('basic_config.yaml');
  const b = fixture('value_to_metric.yaml');

  it('is a sha256 hex digest, the same for the same files in any order', () => {
    const first = loadConfig([a, { ...b, name: 'other.yaml' }], { mergeDomainConfig: false });
    const second = loadConfig([{ ...b, name: 'other.yaml' }, a], { mergeDomainConfig: false });
    expect(first.version).toMatch(/^[0-9a-f]{64}$/);
    expect(first.version).toBe(second.version);
    expect(configVersion(first.files)).toBe(first.version);
  });

  it('changes with a file text or a file name', () => {
    const base = configVersion([a]);
    expect(configVersion([{ ...a, text: `${a.text}\n` }])).not.toBe(base);
    expect(configVersion([{ ...a, name: 'renamed.yaml' }])).not.toBe(base);
  });

  it('cannot be fooled by moving text between name and content', () => {
    expect(configVersion([{ name: 'ab', text: 'c' }])).not.toBe(configVersion([{ name: 'a', text: 'bc' }]));
  });

  it('keeps the loaded files, frozen, for the broadcast', () => {
    const config = loadConfig([a], { mergeDomainConfig: false });
    expect(config.files).toEqual([a]);
    expect(Object.isFrozen(config.files)).toBe(true);
    expect(loadConfig(config.files, { mergeDomainConfig: false }).version).toBe(config.version);
  });
});
