import { describe, expect, it } from 'vitest';
import { parseGoDuration } from '../../../services/ratelimit/settings/fields.ts';
import { readRatelimitSettings } from '../../../services/ratelimit/settings/index.ts';
import { parseKeyValueList } from '../../../services/ratelimit/settings/key-value-list.ts';
import { redisConnection } from '../../../services/ratelimit/settings/redis-connection.ts';
import { SettingsError } from '../../../shared/settings.ts';

describe('rate limit settings', () => {
  it('has the reference defaults', () => {
    const s = readRatelimitSettings({});
    expect(s).toMatchObject({
      host: '0.0.0.0',
      port: 8080,
      grpcPort: 8081,
      debugPort: 6070,
      logLevel: 'warn',
      logFormat: 'text',
      configType: 'FILE',
      runtimeRoot: '/srv/runtime_data/current',
      runtimeAppDirectory: 'config',
      runtimeWatchRoot: true,
      runtimeIgnoreDotFiles: false,
      useStatsd: true,
      statsdHost: 'localhost',
      statsdPort: 8125,
      statsFlushIntervalMs: 10_000,
      expirationJitterMaxSeconds: 300,
      localCacheSizeInBytes: 0,
      nearLimitRatio: 0.8,
      backendType: 'redis',
      redisSocketType: 'unix',
      redisType: 'single',
      redisUrl: '/var/run/nutcracker/ratelimit.sock',
      redisPoolSize: 10,
      redisTimeoutMs: 10_000,
      grpcMaxConnectionAgeMs: 86_400_000,
      limitLimitHeader: 'RateLimit-Limit',
    });
    expect(redisConnection(s, true).url).toBe('/var/run/nutcracker/ratelimitpersecond.sock');
  });

  it('reads Go durations', () => {
    expect(parseGoDuration('150us')).toBe(0.15);
    expect(parseGoDuration('1h30m')).toBe(5_400_000);
    expect(parseGoDuration('0')).toBe(0);
    expect(parseGoDuration('10')).toBeUndefined();
    expect(parseGoDuration('1x')).toBeUndefined();
  });

  it('accepts case-insensitive choices and EXTRA_TAGS pairs', () => {
    const s = readRatelimitSettings({
      REDIS_TYPE: 'SENTINEL',
      REDIS_URL: 'mymaster,h:1',
      LOG_LEVEL: 'DEBUG',
      EXTRA_TAGS: 'foo:bar,a:b',
    });
    expect([s.redisType, s.logLevel, s.extraTags]).toEqual(['sentinel', 'debug', { foo: 'bar', a: 'b' }]);
  });

  it('names every bad variable in one error', () => {
    let error: unknown;
    try {
      readRatelimitSettings({
        PORT: 'x',
        NEAR_LIMIT_RATIO: '2',
        REDIS_PIPELINE_WINDOW: 'soon',
        BACKEND_TYPE: 'mongo',
        EXTRA_TAGS: 'novalue',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as SettingsError).problems.map((p) => p.split('=')[0])).toEqual([
      'PORT',
      'EXTRA_TAGS',
      'BACKEND_TYPE',
      'NEAR_LIMIT_RATIO',
      'REDIS_PIPELINE_WINDOW',
    ]);
  });

  it('checks the rules that tie settings together', () => {
    expect(() => readRatelimitSettings({ REDIS_TYPE: 'sentinel', REDIS_URL: 'mymaster' })).toThrow(
      'Expected master name and a list of urls for the sentinels',
    );
    expect(() =>
      readRatelimitSettings({
        BACKEND_TYPE: 'memcache',
        MEMCACHE_HOST_PORT: 'a:1',
        MEMCACHE_SRV: '_m._tcp.x',
      }),
    ).toThrow('Both MEMCACHE_HOST_PORT and MEMCACHE_SRV are set');
    expect(() => readRatelimitSettings({ BACKEND_TYPE: 'memcache' })).toThrow(
      'needs MEMCACHE_HOST_PORT or MEMCACHE_SRV',
    );
  });
});

describe('key/value lists', () => {
  it('reads settings lists: trimmed, blank items skipped, split at the first separator, keyless items bad', () => {
    expect(parseKeyValueList(' a : b ,, c:d:e ,x, :y', ':')).toEqual({
      pairs: [
        ['a', 'b'],
        ['c', 'd:e'],
      ],
      bad: ['x', ' :y'],
    });
  });

  it('reads the client descriptors as Go does: every item as written, exactly one separator each', () => {
    expect(parseKeyValueList('a=b,=c, d = e', '=', { exact: true })).toEqual({
      pairs: [
        ['a', 'b'],
        ['', 'c'],
        [' d ', ' e'],
      ],
      bad: [],
    });
    expect(parseKeyValueList('a=b=c,,d', '=', { exact: true }).bad).toEqual(['a=b=c', '', 'd']);
  });
});
