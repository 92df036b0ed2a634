import { describe, expect, it } from 'vitest';
import type { RequestEntry } from '../../../../services/ratelimit/config/index.ts';
import { loadFixtures, loadText, lookup, ruleOf } from './helpers.ts';

const entries = (...pairs: [string, string][]): RequestEntry[] =>
  pairs.map(([key, value]) => ({ key, value }));

// Reference §3.4 (stats key) and §3.5 (share_threshold cache key).
describe('share_threshold (share_threshold.yaml)', () => {
  const config = loadFixtures(['share_threshold.yaml']);
  const cases: readonly {
    name: string;
    request: [string, string][];
    limit: number;
    statsKey: string;
    cacheKey: [string, string][];
  }[] = [
    {
      name: 'a shared trailing wildcard',
      request: [['files', 'files/a.pdf']],
      limit: 100,
      statsKey: 'test-domain.files_files/*',
      cacheKey: [['files', 'files/*']],
    },
    {
      name: 'below a plain level',
      request: [
        ['nested', 'parent'],
        ['files', 'nested/x'],
      ],
      limit: 200,
      statsKey: 'test-domain.nested_parent.files_nested/*',
      cacheKey: [
        ['nested', 'parent'],
        ['files', 'nested/*'],
      ],
    },
    {
      name: 'the same key shared at two levels, limit on the deeper one',
      request: [
        ['files', 'top/a'],
        ['files', 'nested/b'],
      ],
      limit: 300,
      statsKey: 'test-domain.files_top/*.files_nested/*',
      cacheKey: [
        ['files', 'top/*'],
        ['files', 'nested/*'],
      ],
    },
    {
      name: 'with value_to_metric the pattern still wins',
      request: [
        ['route', 'api/v1'],
        ['method', 'GET'],
      ],
      limit: 60,
      statsKey: 'test-domain.route_api/*.method',
      cacheKey: [
        ['route', 'api/*'],
        ['method', 'GET'],
      ],
    },
    {
      name: 'with detailed_metric below: request values except the shared level',
      request: [
        ['service', 'svc/a'],
        ['endpoint', 'e1'],
      ],
      limit: 80,
      statsKey: 'test-domain.service_svc/*.endpoint_e1',
      cacheKey: [
        ['service', 'svc/*'],
        ['endpoint', 'e1'],
      ],
    },
    {
      name: 'a shared wildcard above an unshared one',
      request: [
        ['path', 'path/a'],
        ['file', 'file/b'],
        ['type', 'pdf'],
      ],
      limit: 120,
      statsKey: 'test-domain.path_path/*.file_file/*.type',
      cacheKey: [
        ['path', 'path/*'],
        ['file', 'file/b'],
        ['type', 'pdf'],
      ],
    },
    {
      name: 'two shared wildcards on one path',
      request: [
        ['user', 'user/1'],
        ['resource', 'res/2'],
        ['action', 'read'],
      ],
      limit: 150,
      statsKey: 'test-domain.user_user/*.resource_res/*.action',
      cacheKey: [
        ['user', 'user/*'],
        ['resource', 'res/*'],
        ['action', 'read'],
      ],
    },
    {
      name: 'an exact value beats the shared wildcard',
      request: [['file', 'test1']],
      limit: 50,
      statsKey: 'test-domain.file_test1',
      cacheKey: [['file', 'test1']],
    },
    {
      name: 'the shared wildcard beside the exact value',
      request: [['file', 'test2']],
      limit: 100,
      statsKey: 'test-domain.file_test*',
      cacheKey: [['file', 'test*']],
    },
    {
      name: 'a middle wildcard',
      request: [['midpath', '/api/users/v1']],
      limit: 100,
      statsKey: 'test-domain.midpath_/api*v1',
      cacheKey: [['midpath', '/api*v1']],
    },
    {
      name: 'several wildcards',
      request: [['multiroute', 'svc-a-ep-b-rpc']],
      limit: 50,
      statsKey: 'test-domain.multiroute_svc*ep*rpc',
      cacheKey: [['multiroute', 'svc*ep*rpc']],
    },
    {
      name: 'a middle wildcard with value_to_metric',
      request: [['midroute', '/api/x/v2']],
      limit: 80,
      statsKey: 'test-domain.midroute_/api*v2',
      cacheKey: [['midroute', '/api*v2']],
    },
    {
      name: 'nested middle wildcards',
      request: [
        ['tenant', 't1prod'],
        ['resource', 'res9v2'],
      ],
      limit: 60,
      statsKey: 'test-domain.tenant_t*prod.resource_res*v2',
      cacheKey: [
        ['tenant', 't*prod'],
        ['resource', 'res*v2'],
      ],
    },
  ];

  for (const { name, request, limit, statsKey, cacheKey } of cases) {
    it(name, () => {
      const rule = ruleOf(lookup(config, 'test-domain', ...request));
      expect(rule.requestsPerUnit).toBe(limit);
      expect(rule.statsKey).toBe(statsKey);
      expect(rule.cacheKeyEntries).toEqual(entries(...cacheKey));
    });
  }

  it('gives every matching value the same cache key, unlike a wildcard without it (§6.1 scenario)', () => {
    const scenario = loadText(`
domain: share-threshold-test
descriptors:
  - key: files
    value: files/*
    share_threshold: true
    rate_limit: {unit: hour, requests_per_unit: 10}
  - key: files_no_share
    value: files_no_share/*
    rate_limit: {unit: hour, requests_per_unit: 10}
`);
    const shared = (value: string) =>
      ruleOf(lookup(scenario, 'share-threshold-test', ['files', value])).cacheKeyEntries;
    expect(shared('files/a.pdf')).toEqual(shared('files/b.csv'));
    const unshared = (value: string) =>
      ruleOf(lookup(scenario, 'share-threshold-test', ['files_no_share', value])).cacheKeyEntries;
    expect(unshared('files_no_share/a')).toEqual(entries(['files_no_share', 'files_no_share/a']));
    expect(unshared('files_no_share/a')).not.toEqual(unshared('files_no_share/b'));
  });
});

describe('value_to_metric (value_to_metric.yaml)', () => {
  const config = loadFixtures(['value_to_metric.yaml']);

  it('puts request values into the stats key where asked, the bare key elsewhere', () => {
    const rule = ruleOf(
      lookup(config, 'domain', ['route', 'draw'], ['http_method', 'GET'], ['subject_id', '123']),
    );
    expect(rule.statsKey).toBe('domain.route_draw.http_method_GET.subject_id');
    expect(rule.fullKey).toBe('domain.route.http_method.subject_id');
    expect(ruleOf(lookup(config, 'domain', ['k1', 'A'], ['k2', 'B'])).statsKey).toBe('domain.k1_A.k2');
  });

  it('on a wildcard shows the request value instead of the pattern', () => {
    const rule = ruleOf(
      lookup(config, 'domain', ['user', 'alice'], ['action', 'readfile'], ['resource', 'r']),
    );
    expect(rule.statsKey).toBe('domain.user_alice.action_readfile.resource');
    expect(rule.fullKey).toBe('domain.user.action_read*.resource');
  });

  it('changes nothing on an exact match, and a wildcard without it keeps its pattern', () => {
    const rule = ruleOf(
      lookup(config, 'domain', ['plain', 'exact'], ['wildchild', 'prefix1'], ['leaf', 'z']),
    );
    expect(rule.statsKey).toBe('domain.plain_exact.wildchild_pre*.leaf');
    expect(rule.statsKey).toBe(rule.fullKey);
  });

  it('omits an empty request value', () => {
    expect(ruleOf(lookup(config, 'domain', ['k1', ''], ['k2', 'B'])).statsKey).toBe('domain.k1.k2');
  });

  it('does not change the cache key', () => {
    expect(ruleOf(lookup(config, 'domain', ['k1', 'A'], ['k2', 'B'])).cacheKeyEntries).toEqual(
      entries(['k1', 'A'], ['k2', 'B']),
    );
  });
});

describe('detailed_metric', () => {
  const config = loadText(`
domain: d
descriptors:
  - key: key1
    value: value1
    descriptors:
      - key: sub
        detailed_metric: true
        rate_limit: {unit: second, requests_per_unit: 1}
  - key: wild
    value: x*
    detailed_metric: true
    rate_limit: {unit: second, requests_per_unit: 2}
  - key: exact
    value: v
    detailed_metric: true
    value_to_metric: true
    rate_limit: {unit: second, requests_per_unit: 3}
`);

  it('uses every level of the request', () => {
    expect(ruleOf(lookup(config, 'd', ['key1', 'value1'], ['sub', 's'])).statsKey).toBe(
      'd.key1_value1.sub_s',
    );
  });

  it('shows the request value on a wildcard match', () => {
    expect(ruleOf(lookup(config, 'd', ['wild', 'xyz'])).statsKey).toBe('d.wild_xyz');
  });

  it('wins over value_to_metric and keeps an empty value as `key_`', () => {
    expect(ruleOf(lookup(config, 'd', ['exact', 'v'])).statsKey).toBe('d.exact_v');
    expect(ruleOf(lookup(config, 'd', ['key1', 'value1'], ['sub', ''])).statsKey).toBe('d.key1_value1.sub_');
  });
});
