import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../../services/ratelimit/config/index.ts';
import { fixture, loadError, loadFixtures } from './helpers.ts';

// Reference §2.3: every fixture of envoyproxy/ratelimit test/config with its exact error string.
describe('configuration fixtures rejected with the reference message', () => {
  const cases: readonly { files: readonly string[]; merge?: boolean; message: string }[] = [
    { files: ['empty_domain.yaml'], message: 'empty_domain.yaml: config file cannot have empty domain' },
    {
      files: ['basic_config.yaml', 'duplicate_domain.yaml'],
      message: "duplicate_domain.yaml: duplicate domain 'test-domain' in config file",
    },
    { files: ['empty_key.yaml'], message: 'empty_key.yaml: descriptor has empty key' },
    {
      files: ['duplicate_key.yaml'],
      message: "duplicate_key.yaml: duplicate descriptor composite key 'test-domain.key1_value1'",
    },
    {
      files: ['merge_domain_key1.yaml', 'merge_domain_key1.yaml'],
      merge: true,
      message: "merge_domain_key1.yaml: duplicate descriptor composite key 'test-domain.key1_value1'",
    },
    { files: ['bad_limit_unit.yaml'], message: "bad_limit_unit.yaml: invalid rate limit unit 'foo'" },
    {
      files: ['replaces_self.yaml'],
      message: 'replaces_self.yaml: replaces should not contain name of same descriptor',
    },
    {
      files: ['replaces_empty.yaml'],
      message: 'replaces_empty.yaml: should not have an empty replaces entry',
    },
    {
      files: ['bad_yaml.yaml'],
      message: 'bad_yaml.yaml: error loading config file: yaml: line 2: found unexpected end of stream',
    },
    { files: ['misspelled_key.yaml'], message: "misspelled_key.yaml: config error, unknown key 'ratelimit'" },
    {
      files: ['misspelled_key2.yaml'],
      message: "misspelled_key2.yaml: config error, unknown key 'requestsperunit'",
    },
    {
      files: ['non_string_key.yaml'],
      message: 'non_string_key.yaml: config error, key is not of type string: 0.25',
    },
    {
      files: ['non_map_list.yaml'],
      message: 'non_map_list.yaml: config error, yaml file contains list of type other than map: a',
    },
    {
      files: ['unlimited_with_unit.yaml'],
      message: 'unlimited_with_unit.yaml: should not specify rate limit unit when unlimited',
    },
    {
      files: ['share_threshold_without_wildcard.yaml'],
      message:
        "share_threshold_without_wildcard.yaml: share_threshold can only be used with wildcard values (containing '*'), but found key 'files_report.pdf'",
    },
  ];

  for (const { files, merge = false, message } of cases) {
    it(`${files.join(' + ')}${merge ? ' (merge)' : ''}`, () => {
      expect(loadError(files.map(fixture), merge)).toBe(message);
    });
  }

  it('throws ConfigError naming the file and the problem apart', () => {
    const error = (() => {
      try {
        loadConfig([fixture('bad_limit_unit.yaml')], { mergeDomainConfig: false });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({
      fileName: 'bad_limit_unit.yaml',
      problem: "invalid rate limit unit 'foo'",
    });
  });
});

describe('positive fixtures load', () => {
  for (const name of [
    'basic_config.yaml',
    'shadowmode_config.yaml',
    'wildcard.yaml',
    'share_threshold.yaml',
    'metadata.yaml',
    'value_to_metric.yaml',
  ]) {
    it(name, () => {
      expect(loadFixtures([name]).domains.length).toBe(1);
    });
  }

  it('merges a domain spread over two files with MERGE_DOMAIN_CONFIG', () => {
    const config = loadFixtures(['merge_domain_key1.yaml', 'merge_domain_key2.yaml'], true);
    expect(config.domains).toEqual(['test-domain']);
  });

  it('rejects the same two files without MERGE_DOMAIN_CONFIG, blaming the later one', () => {
    expect(loadError([fixture('merge_domain_key1.yaml'), fixture('merge_domain_key2.yaml')])).toBe(
      "merge_domain_key2.yaml: duplicate domain 'test-domain' in config file",
    );
  });
});
