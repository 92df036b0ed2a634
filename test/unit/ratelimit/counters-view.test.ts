// GET /counters's view over an in-memory store on a simulated clock: keys found by scanning are
// matched back to the configured limit they count for (values with `_`, wildcards,
// share_threshold, nested descriptors), only keys in use are listed, pages follow a cursor, and a
// descriptor's own keys are read without scanning; every refusal with its message.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../services/ratelimit/config/index.ts';
import { createCountersView } from '../../../services/ratelimit/counters-view.ts';
import { ownerOfKey } from '../../../services/ratelimit/domain/counter-keys.ts';
import type { DecisionRequest } from '../../../services/ratelimit/domain/decision.ts';
import { createStatsStore } from '../../../services/ratelimit/domain/stats.ts';
import { createRateLimitService } from '../../../services/ratelimit/service.ts';
import { createMemoryCounterStore } from '../../helpers/memory-counter-store.ts';

const T0 = 1_699_963_200_000; // 12:00:00 UTC

const CONFIG = `domain: d
descriptors:
  - key: user
    rate_limit: {unit: hour, requests_per_unit: 10}
  - key: api
    value: read_only
    descriptors:
      - key: client
        rate_limits:
          - {unit: second, requests_per_unit: 5}
          - {unit: minute, unit_multiplier: 5, requests_per_unit: 100, algorithm: sliding_window, name: five}
  - key: path
    value: /v1/*
    share_threshold: true
    rate_limit: {unit: minute, requests_per_unit: 60, algorithm: token_bucket, burst: 6}
`;

function setup() {
  const config = loadConfig([{ name: 'c.yaml', text: CONFIG }], { mergeDomainConfig: false });
  const store = createMemoryCounterStore();
  let now = T0;
  const clock = { now: () => now };
  const service = createRateLimitService({
    config: () => config,
    store,
    localCache: undefined,
    stats: createStatsStore(),
    clock,
    options: {
      cacheKeyPrefix: 'p:',
      nearLimitRatio: 0.8,
      globalShadowMode: false,
      globalQuotaMode: false,
      headers: undefined,
    },
  });
  const ask = (...pairs: Array<[string, string]>) => {
    const request: DecisionRequest = {
      domain: 'd',
      hitsAddend: 1,
      descriptors: [{ entries: pairs.map(([key, value]) => ({ key, value })), hitsAddend: undefined }],
    };
    return service.shouldRateLimit(request);
  };
  const view = (options?: { scan?: boolean }) =>
    createCountersView({ config: () => config, reader: store.reader(options), cacheKeyPrefix: 'p:', clock });
  const get = (query: string, options?: { scan?: boolean }) => view(options)(new URLSearchParams(query));
  return { ask, get, store, at: (ms: number) => (now = T0 + ms) };
}

describe('GET /counters', () => {
  it('lists each key in use with its limit, count, remaining and reset', async () => {
    const { ask, get, at } = setup();
    at(30_000);
    for (let i = 0; i < 3; i++) await ask(['user', 'alice_b']);
    await ask(['api', 'read_only'], ['client', 'c_1']);
    await ask(['path', '/v1/users']);
    await ask(['path', '/v1/items']);
    const page = await get('domain=d');
    expect(page.cursor).toBeUndefined();
    expect(page.counters.toSorted((a, b) => a.key.localeCompare(b.key))).toEqual([
      {
        key: `p:d_api_read_only_client_c_1_f1_${T0 / 1000 + 30}`,
        descriptor: 'd.api_read_only.client',
        limit: {
          name: '',
          unit: 'SECOND',
          unit_multiplier: 1,
          requests_per_unit: 5,
          algorithm: 'fixed_window',
        },
        count: 1,
        remaining: 4,
        reset_seconds: 1,
      },
      {
        key: 'p:d_api_read_only_client_c_1_s300',
        descriptor: 'd.api_read_only.client',
        limit: {
          name: 'five',
          unit: 'MINUTE',
          unit_multiplier: 5,
          requests_per_unit: 100,
          algorithm: 'sliding_window',
        },
        count: 1,
        remaining: 99,
        reset_seconds: 330,
      },
      {
        key: 'p:d_path_/v1/*_t60',
        descriptor: 'd.path_/v1/*',
        limit: {
          name: '',
          unit: 'MINUTE',
          unit_multiplier: 1,
          requests_per_unit: 60,
          algorithm: 'token_bucket',
          burst: 6,
        },
        count: 2,
        remaining: 4,
        reset_seconds: 2,
      },
      {
        key: `p:d_user_alice_b_${T0 / 1000}`,
        descriptor: 'd.user',
        limit: {
          name: '',
          unit: 'HOUR',
          unit_multiplier: 1,
          requests_per_unit: 10,
          algorithm: 'fixed_window',
        },
        count: 3,
        remaining: 7,
        reset_seconds: 3_570,
      },
    ]);
  });

  it('leaves out keys of past windows, of other domains and of no configured limit', async () => {
    const { ask, get, at, store } = setup();
    await ask(['user', 'bob']);
    at(3_600_000);
    await ask(['user', 'carol']);
    store.counters.set('p:d_other_x_1699963200', 4);
    store.counters.set('p:dx_user_bob_1699963200', 4);
    expect((await get('domain=d')).counters.map((c) => c.key)).toEqual([
      `p:d_user_carol_${T0 / 1000 + 3600}`,
    ]);
  });

  it('pages with limit and cursor until the cursor is absent', async () => {
    const { ask, get } = setup();
    for (const name of ['a', 'b', 'c', 'd', 'e']) await ask(['user', name]);
    const first = await get('domain=d&limit=2');
    expect(first.counters.map((c) => c.key.split('_')[2])).toEqual(['a', 'b']);
    const second = await get(`domain=d&limit=2&cursor=${first.cursor}`);
    const third = await get(`domain=d&limit=2&cursor=${second.cursor}`);
    expect([...second.counters, ...third.counters].map((c) => c.key.split('_')[2])).toEqual(['c', 'd', 'e']);
    expect(third.cursor).toBeUndefined();
  });

  it("reads one descriptor's keys with key=, without scanning (memcached), absent keys counted 0", async () => {
    const { ask, get } = setup();
    await ask(['api', 'read_only'], ['client', 'z']);
    const page = await get('domain=d&key=api=read_only,client=z', { scan: false });
    expect(page.counters.map((c) => [c.descriptor, c.limit.algorithm, c.count, c.remaining])).toEqual([
      ['d.api_read_only.client', 'fixed_window', 1, 4],
      ['d.api_read_only.client', 'sliding_window', 1, 99],
    ]);
    expect((await get('domain=d&key=user=nobody')).counters).toMatchObject([{ count: 0, remaining: 10 }]);
    expect((await get('domain=d&key=unknown=x')).counters).toEqual([]);
  });

  it.each([
    ['', 'domain is required: /counters?domain=<domain>'],
    ['domain=nowhere', "domain 'nowhere' is not in the configuration in force"],
    ['domain=d&limit=0', "limit must be an integer from 1 to 1000, not '0'"],
    ['domain=d&limit=1001', "limit must be an integer from 1 to 1000, not '1001'"],
    ['domain=d&limit=ten', "limit must be an integer from 1 to 1000, not 'ten'"],
    ['domain=d&key=user', "key must be <key>=<value>[,<key>=<value>...], not 'user'"],
  ])('refuses ?%s', async (query, message) => {
    await expect(setup().get(query)).rejects.toThrow(message);
  });

  it('refuses to list without key= on a store that cannot list keys', async () => {
    await expect(setup().get('domain=d', { scan: false })).rejects.toMatchObject({
      code: 'UNIMPLEMENTED',
      message:
        'this store cannot list its keys (memcached): ask for one descriptor with key=<key>=<value>[,...]',
    });
  });
});

describe('ownerOfKey: the limit a stored key counts for', () => {
  const config = loadConfig(
    [
      {
        name: 'o.yaml',
        text: `domain: d
descriptors:
  - key: k
    rate_limit: {unit: hour, requests_per_unit: 1}
  - key: k
    value: v_w
    rate_limit: {unit: hour, requests_per_unit: 2}
  - key: k
    value: v*
    rate_limit: {unit: hour, requests_per_unit: 3, algorithm: sliding_window}
`,
      },
    ],
    { mergeDomainConfig: false },
  );
  const root = config.data.domains.get('d')!;
  const now = T0 / 1000;
  const owner = (key: string) => {
    const found = ownerOfKey(root, 'p:d_', key, now);
    return found === undefined ? undefined : [found.fullKey, found.spec.requestsPerUnit];
  };

  it('tries an exact value first, then wildcards, then the bare key, as matching does', () => {
    expect(owner(`p:d_k_v_w_${now}`)).toEqual(['d.k_v_w', 2]);
    expect(owner('p:d_k_v_x_s3600')).toEqual(['d.k_v*', 3]);
    expect(owner(`p:d_k_other_value_${now}`)).toEqual(['d.k', 1]);
  });

  it('finds no owner for another window, another domain, or a limit not configured', () => {
    expect(owner(`p:d_k_other_${now - 3600}`)).toBeUndefined();
    expect(owner(`p:e_k_other_${now}`)).toBeUndefined();
    expect(owner('p:d_k_other_t3600')).toBeUndefined();
    expect(owner(`p:d_j_other_${now}`)).toBeUndefined();
  });
});
