// The instance's /stats and /metrics from its decision units' reports (plain data from each
// thread): counters summed, a limit's counters labelled by domain and keys again, one response-time
// histogram, Redis round trips and local-cache gauges summed, the configuration version once.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createResponseTimeSink } from '../../../services/ratelimit/adapters/telemetry/response-times.ts';
import { sumStatsLines } from '../../../services/ratelimit/domain/stats.ts';
import type { UnitReport } from '../../../services/ratelimit/wiring/decision-unit.ts';
import { createInstanceStats } from '../../../services/ratelimit/wiring/instance-stats.ts';

const report = (lines: Array<[string, number]>, roundTrips: number, times: number[]): UnitReport => {
  const sink = createResponseTimeSink();
  for (const ms of times) sink.record('ShouldRateLimit', ms);
  return { lines, redisRoundTrips: roundTrips, responseTimes: sink.snapshot() };
};

describe('the instance stats', () => {
  const own = report(
    [
      ['ratelimit.service.rate_limit.edge.user_u1.total_hits', 3],
      ['ratelimit.service.rate_limit.edge.user_u1.over_limit', 1],
      ['ratelimit.service.config_load_success', 1],
      ['ratelimit.localcache.hitCount', 2],
      ['ratelimit.worker.0.total_requests', 3],
    ],
    3,
    [0.2, 3, 40],
  );
  const thread = report(
    [
      ['ratelimit.service.rate_limit.edge.user_u1.total_hits', 4],
      ['ratelimit.service.rate_limit.edge.domain_not_found', 2],
      ['ratelimit.localcache.hitCount', 5],
      ['ratelimit.worker.1.total_requests', 4],
    ],
    4,
    [0.7, 2_000],
  );
  const instance = createInstanceStats({
    own: () => own,
    threads: async () => [thread],
    registry: new Registry(),
    configVersion: () => 'abc',
  });

  it('sums every unit for /stats, keeping each unit lines and counting the units', async () => {
    const lines = new Map(await instance.collect());
    expect(lines.get('ratelimit.service.rate_limit.edge.user_u1.total_hits')).toBe(7);
    expect(lines.get('ratelimit.worker.0.total_requests')).toBe(3);
    expect(lines.get('ratelimit.worker.1.total_requests')).toBe(4);
    expect(lines.get('ratelimit.workers')).toBe(2);
  });

  it('gives /metrics the sums, a limit counter labelled by domain and keys', async () => {
    const text = await instance.metrics();
    expect(text).toContain('ratelimit_service_rate_limit_total_hits{domain="edge",key1="user_u1",key2=""} 7');
    expect(text).toContain('ratelimit_service_rate_limit_over_limit{domain="edge",key1="user_u1",key2=""} 1');
    expect(text).toContain('ratelimit_service_rate_limit_domain_not_found{domain="edge"} 2');
    expect(text).toContain('ratelimit_service_config_load_success 1');
    expect(text).toContain('ratelimit_config_version_info{version="abc"} 1');
    expect(text).toContain('ratelimit_redis_round_trips 7');
    expect(text).toContain('ratelimit_localcache{stat="hitCount"} 7');
    expect(text).toContain(
      'ratelimit_service_response_time_seconds_bucket{le="0.0005",grpc_method="ShouldRateLimit"} 1',
    );
    expect(text).toContain(
      'ratelimit_service_response_time_seconds_bucket{le="0.001",grpc_method="ShouldRateLimit"} 2',
    );
    expect(text).toContain(
      'ratelimit_service_response_time_seconds_bucket{le="0.05",grpc_method="ShouldRateLimit"} 4',
    );
    expect(text).toContain(
      'ratelimit_service_response_time_seconds_bucket{le="1",grpc_method="ShouldRateLimit"} 4',
    );
    expect(text).toContain(
      'ratelimit_service_response_time_seconds_bucket{le="+Inf",grpc_method="ShouldRateLimit"} 5',
    );
    expect(text).toContain('ratelimit_service_response_time_seconds_count{grpc_method="ShouldRateLimit"} 5');
    expect(text).toMatch(
      /ratelimit_service_response_time_seconds_sum\{grpc_method="ShouldRateLimit"\} 2\.0439/,
    );
  });

  it('reads a limit counter line back as that limit counter', () => {
    const store = sumStatsLines([
      ['ratelimit.service.rate_limit.d.k1_v1.k2_v2.near_limit', 2],
      ['ratelimit.service.rate_limit.d.k1_v1.k2_v2.near_limit', 3],
      ['ratelimit.service.rate_limit.d.constructor', 1],
    ]);
    expect([...store.ruleCounters()].find((c) => c.stat === 'near_limit')).toMatchObject({
      value: 5,
      domain: 'd',
      key1: 'k1_v1',
      key2: 'k2_v2',
    });
    expect(store.counter('ratelimit.service.rate_limit.d.constructor').value).toBe(1);
  });
});
