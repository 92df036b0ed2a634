import { describe, expect, it } from 'vitest';
import { loadConfig, type RateLimitRule } from '../../../services/ratelimit/config/index.ts';
import { cacheKey } from '../../../services/ratelimit/domain/cache-key.ts';
import {
  assembleDecision,
  type Check,
  type DecisionOptions,
  type DecisionRequest,
  NO_LIMIT_STATUS,
  nearLimitThreshold,
  planChecks,
  statusFromCount,
  statusFromLocalCache,
  UNLIMITED_STATUS,
  validateRequest,
} from '../../../services/ratelimit/domain/decision.ts';
import { createStatsStore } from '../../../services/ratelimit/domain/stats.ts';
import { secondsUntilReset, windowStart } from '../../../services/ratelimit/domain/window.ts';

const rule = (overrides: Partial<RateLimitRule> = {}): RateLimitRule => ({
  fullKey: 'domain.key',
  statsKey: 'domain.key',
  requestsPerUnit: 15,
  unit: 'MINUTE',
  unlimited: false,
  shadowMode: false,
  quotaMode: false,
  name: '',
  replaces: [],
  cacheKeyEntries: [{ key: 'key', value: 'value' }],
  ...overrides,
});

const OPTIONS: DecisionOptions = {
  cacheKeyPrefix: '',
  nearLimitRatio: 0.8,
  globalShadowMode: false,
  globalQuotaMode: false,
  headers: undefined,
};

const limitCheck = (r: RateLimitRule, addend = 1) => {
  const stats = createStatsStore();
  const check = {
    kind: 'limit' as const,
    rule: r,
    stats: stats.rule(r.statsKey),
    key: cacheKey('', 'domain', r, 1234),
    addend,
  };
  return { check, stats: check.stats };
};

describe('fixed windows (limiter/cache_key.go, utils.CalculateReset)', () => {
  it('aligns windows on the epoch', () => {
    expect(windowStart('SECOND', 1234)).toBe(1234);
    expect(windowStart('MINUTE', 1234)).toBe(1200);
    expect(windowStart('HOUR', 1_000_000)).toBe(997_200);
    expect(windowStart('DAY', 1_000_000)).toBe(950_400);
    expect(windowStart('WEEK', 1_000_000)).toBe(604_800);
    expect(windowStart('MONTH', 3_000_000)).toBe(2_592_000);
    expect(windowStart('YEAR', 40_000_000)).toBe(31_536_000);
  });

  it('never gives 0 seconds until reset', () => {
    expect(secondsUntilReset('MINUTE', 1200)).toBe(60);
    expect(secondsUntilReset('MINUTE', 1202)).toBe(58);
    expect(secondsUntilReset('SECOND', 99)).toBe(1);
  });

  it('builds the reference cache keys', () => {
    expect(cacheKey('', 'domain', rule({ unit: 'SECOND' }), 1234).key).toBe('domain_key_value_1234');
    const nested = rule({
      cacheKeyEntries: [
        { key: 'key2', value: 'value2' },
        { key: 'subkey2', value: 'subvalue2' },
      ],
    });
    expect(cacheKey('', 'domain', nested, 1234).key).toBe('domain_key2_value2_subkey2_subvalue2_1200');
    expect(cacheKey('', 'domain', rule({ unit: 'HOUR' }), 1_000_000).key).toBe('domain_key_value_997200');
    expect(cacheKey('prefix:', 'domain', rule({ unit: 'DAY' }), 1_000_000).key).toBe(
      'prefix:domain_key_value_950400',
    );
    expect(cacheKey('', 'd', rule({ unit: 'SECOND' }), 1).perSecond).toBe(true);
    expect(cacheKey('', 'd', rule({ unit: 'WEEK' }), 1).windowSeconds).toBe(604_800);
  });
});

describe('statusFromCount (limiter/base_limiter.go)', () => {
  it('computes near limit in float32 as Go does', () => {
    expect(nearLimitThreshold(15, 0.8)).toBe(12);
    expect(nearLimitThreshold(10, 0.8)).toBe(8);
    expect(nearLimitThreshold(1_000_000_000, 0.8)).toBe(800_000_000);
  });

  it('follows TestNearLimit: limit 15, ratio 0.8', () => {
    const { check, stats } = limitCheck(rule());
    expect(statusFromCount(check, 11, 0.8, 1234)).toEqual({
      code: 'OK',
      currentLimit: { requestsPerUnit: 15, unit: 'MINUTE', name: '' },
      limitRemaining: 4,
      secondsUntilReset: 26,
    });
    expect(stats.nearLimit.value).toBe(0);
    statusFromCount(check, 13, 0.8, 1234);
    expect(stats.nearLimit.value).toBe(1);
    expect(statusFromCount(check, 16, 0.8, 1234)).toMatchObject({ code: 'OVER_LIMIT', limitRemaining: 0 });
    expect([stats.overLimit.value, stats.withinLimit.value]).toEqual([1, 2]);
  });

  it('splits a multi-hit addend across near and over limit', () => {
    const { check, stats } = limitCheck(rule({ requestsPerUnit: 10 }), 5);
    // before 7, after 12: near from 8, over above 10.
    statusFromCount(check, 12, 0.8, 1234);
    expect([stats.overLimit.value, stats.nearLimit.value]).toEqual([2, 2]);
    statusFromCount(check, 17, 0.8, 1234);
    expect(stats.overLimit.value).toBe(7);
  });

  it('answers OK with remaining 0 for hits_addend 0 at the limit, OVER_LIMIT above it', () => {
    const { check } = limitCheck(rule({ requestsPerUnit: 3 }), 0);
    expect(statusFromCount(check, 3, 0.8, 1234)).toMatchObject({ code: 'OK', limitRemaining: 0 });
    expect(statusFromCount(check, 4, 0.8, 1234)).toMatchObject({ code: 'OVER_LIMIT' });
  });

  it('rejects everything for a 0 limit', () => {
    const { check } = limitCheck(rule({ requestsPerUnit: 0 }));
    expect(statusFromCount(check, 1, 0.8, 1234).code).toBe('OVER_LIMIT');
  });

  it('shadow mode answers OK over the limit and counts it', () => {
    const { check, stats } = limitCheck(rule({ requestsPerUnit: 1, shadowMode: true }));
    expect(statusFromCount(check, 2, 0.8, 1234)).toMatchObject({ code: 'OK', limitRemaining: 0 });
    expect([stats.shadowMode.value, stats.overLimit.value]).toEqual([1, 1]);
  });

  it('counts a local cache hit as over limit with local cache', () => {
    const { check, stats } = limitCheck(rule(), 2);
    expect(statusFromLocalCache(check, 1234)).toMatchObject({ code: 'OVER_LIMIT', limitRemaining: 0 });
    expect([stats.overLimit.value, stats.overLimitWithLocalCache.value]).toEqual([2, 2]);
  });
});

describe('assembleDecision (service/ratelimit.go)', () => {
  const over = (r: RateLimitRule) => statusFromCount(limitCheck(r).check, r.requestsPerUnit + 1, 0.8, 1202);
  const ok = (r: RateLimitRule, after: number) => statusFromCount(limitCheck(r).check, after, 0.8, 1202);
  const checkOf = (r: RateLimitRule): Check => limitCheck(r).check;

  it('is OVER_LIMIT when any descriptor is, with headers of that descriptor', () => {
    const ten = rule({ requestsPerUnit: 10 });
    const counter = { value: 0 };
    const decision = assembleDecision(
      [checkOf(rule()), checkOf(ten)],
      [ok(rule(), 1), over(ten)],
      { ...OPTIONS, headers: { limit: 'L', remaining: 'R', reset: 'T' } },
      counter,
    );
    expect(decision.overallCode).toBe('OVER_LIMIT');
    expect(decision.headers).toEqual([
      { key: 'L', value: '10' },
      { key: 'R', value: '0' },
      { key: 'T', value: '58' },
    ]);
  });

  it('picks the descriptor closest to its limit for the headers, and none without limits', () => {
    const decision = assembleDecision(
      [checkOf(rule()), checkOf(rule({ requestsPerUnit: 100 })), { kind: 'none' }],
      [ok(rule(), 14), ok(rule({ requestsPerUnit: 100 }), 1), NO_LIMIT_STATUS],
      { ...OPTIONS, headers: { limit: 'L', remaining: 'R', reset: 'T' } },
      { value: 0 },
    );
    expect(decision.headers[1]).toEqual({ key: 'R', value: '1' });
    const none = assembleDecision(
      [{ kind: 'unlimited' }],
      [UNLIMITED_STATUS],
      { ...OPTIONS, headers: { limit: 'L', remaining: 'R', reset: 'T' } },
      { value: 0 },
    );
    expect(none.headers).toEqual([]);
  });

  it('global shadow mode answers OK, keeps the statuses, and counts it', () => {
    const counter = { value: 0 };
    const decision = assembleDecision(
      [checkOf(rule())],
      [over(rule())],
      { ...OPTIONS, globalShadowMode: true },
      counter,
    );
    expect([decision.overallCode, decision.statuses[0]!.code, counter.value]).toEqual([
      'OK',
      'OVER_LIMIT',
      1,
    ]);
  });

  it('quota mode: OVER_LIMIT only when every quota descriptor is over', () => {
    const quota = rule({ quotaMode: true });
    const one = assembleDecision([checkOf(quota), checkOf(quota)], [over(quota), ok(quota, 1)], OPTIONS, {
      value: 0,
    });
    expect(one.overallCode).toBe('OK');
    const all = assembleDecision([checkOf(quota), checkOf(quota)], [over(quota), over(quota)], OPTIONS, {
      value: 0,
    });
    expect(all.overallCode).toBe('OVER_LIMIT');
    const global = assembleDecision(
      [checkOf(rule()), { kind: 'none' }],
      [over(rule()), NO_LIMIT_STATUS],
      { ...OPTIONS, globalQuotaMode: true },
      { value: 0 },
    );
    expect(global.overallCode).toBe('OK');
  });
});

describe('validateRequest and planChecks (service/ratelimit.go)', () => {
  const config = loadConfig(
    [
      {
        name: 'config.test.yaml',
        text: `domain: d
descriptors:
  - key: a
    rate_limit: { unit: minute, requests_per_unit: 5, name: a_limit }
  - key: b
    rate_limit: { unit: minute, requests_per_unit: 7, replaces: [{ name: a_limit }] }
  - key: u
    rate_limit: { unlimited: true }
`,
      },
    ],
    { mergeDomainConfig: false },
  );
  const request = (domain: string, ...keys: string[]): DecisionRequest => ({
    domain,
    descriptors: keys.map((key) => ({ entries: [{ key, value: 'x' }], hitsAddend: undefined })),
    hitsAddend: 0,
  });

  it('refuses in the reference order, then entries without a key', () => {
    expect(() => validateRequest(request('', 'a'), undefined)).toThrow('rate limit domain must not be empty');
    expect(() => validateRequest(request('d'), undefined)).toThrow(
      'rate limit descriptor list must not be empty',
    );
    expect(() => validateRequest(request('d', ''), config)).toThrow(
      'descriptors[0].entries[0].key must not be empty',
    );
    expect(() => validateRequest(request('d', 'a'), undefined)).toThrow('no rate limit configuration loaded');
    expect(validateRequest(request('d', 'a'), config)).toBe(config);
  });

  it('drops a replaced limit, answers unlimited locally, counts total_hits and domain_not_found', () => {
    const stats = createStatsStore();
    const checks = planChecks(request('d', 'a', 'b', 'u', 'zz'), config, stats, OPTIONS, 1234);
    expect(checks.map((c) => c.kind)).toEqual(['none', 'limit', 'unlimited', 'none']);
    expect(stats.rule('d.b').totalHits.value).toBe(1);
    expect(stats.rule('d.a').totalHits.value).toBe(0);
    planChecks(request('nope', 'a', 'b'), config, stats, OPTIONS, 1234);
    expect(stats.domainNotFound('nope').value).toBe(2);
  });

  it('uses a descriptor hits_addend (0 included) over the request one, which counts at least 1', () => {
    const stats = createStatsStore();
    const req: DecisionRequest = {
      domain: 'd',
      descriptors: [
        { entries: [{ key: 'b', value: '1' }], hitsAddend: 0 },
        { entries: [{ key: 'b', value: '2' }], hitsAddend: undefined },
      ],
      hitsAddend: 4,
    };
    const checks = planChecks(req, config, stats, OPTIONS, 1234);
    expect(checks.map((c) => (c.kind === 'limit' ? c.addend : -1))).toEqual([0, 4]);
    expect(stats.rule('d.b').totalHits.value).toBe(4);
  });
});
