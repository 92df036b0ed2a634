// Every setting of the rate limit service, under envoyproxy/ratelimit's names and defaults
// (reference 5.7), plus the Kafka broadcast. Read once, checked all at once, frozen.
import { availableParallelism } from 'node:os';
import { kafkaSettings } from '../../shared/bus/kafka-settings.ts';
import {
  bool,
  type Env,
  type Field,
  int,
  num,
  port,
  readSettings,
  SettingsError,
  type SettingsOf,
  str,
} from '../../shared/settings.ts';
import { readRatelimitExtensions } from './settings-extensions.ts';

const UNITS_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

/** Go's time.ParseDuration (`300ms`, `1h30m`, `150us`, `0`), in milliseconds; undefined when invalid. */
export function parseGoDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '0') return 0;
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  while (at < trimmed.length) {
    part.lastIndex = at;
    const match = part.exec(trimmed);
    if (match === null) return undefined;
    total += Number(match[1]) * UNITS_MS[match[2]!]!;
    at = part.lastIndex;
  }
  return at > 0 ? total : undefined;
}

/** A Go duration setting, as milliseconds. */
export function duration(variable: string, fallback: string): Field<number> {
  const allowed = 'a duration such as 300ms, 10s, 1h30m (units ns, us, ms, s, m, h) or 0';
  const fallbackMs = parseGoDuration(fallback)!;
  return {
    variable,
    allowed,
    defaultText: fallback,
    read(env) {
      const raw = env[variable];
      if (raw === undefined || raw === '') return { ok: true, value: fallbackMs };
      const value = parseGoDuration(raw);
      return value === undefined
        ? { ok: false, problem: `${variable}=${JSON.stringify(raw)} is not allowed: ${allowed}` }
        : { ok: true, value };
    },
  };
}

/** A choice compared without case, as envoyproxy/ratelimit does for REDIS_TYPE and LOG_LEVEL. */
function choice<const T extends string>(variable: string, choices: readonly T[], fallback: T): Field<T> {
  return {
    variable,
    allowed: `one of ${choices.join(', ')} (any case)`,
    defaultText: fallback,
    read(env) {
      const raw = env[variable];
      if (raw === undefined || raw === '') return { ok: true, value: fallback };
      const found = choices.find((c) => c.toLowerCase() === raw.trim().toLowerCase());
      return found === undefined
        ? {
            ok: false,
            problem: `${variable}=${JSON.stringify(raw)} is not allowed: one of ${choices.join(', ')}`,
          }
        : { ok: true, value: found };
    },
  };
}

/** `k1:v1,k2:v2` pairs (EXTRA_TAGS). */
function tags(variable: string): Field<Readonly<Record<string, string>>> {
  const allowed = 'comma-separated key:value pairs';
  return {
    variable,
    allowed,
    defaultText: '',
    read(env) {
      const raw = env[variable] ?? '';
      const out: Record<string, string> = {};
      for (const pair of raw.split(',')) {
        if (pair.trim() === '') continue;
        const colon = pair.indexOf(':');
        if (colon <= 0)
          return { ok: false, problem: `${variable}=${JSON.stringify(raw)} is not allowed: ${allowed}` };
        out[pair.slice(0, colon).trim()] = pair.slice(colon + 1).trim();
      }
      return { ok: true, value: Object.freeze(out) };
    },
  };
}

const SOCKET_TYPES = ['unix', 'tcp'] as const;
const REDIS_TYPES = ['single', 'sentinel', 'cluster'] as const;
const REDIS_URL_ALLOWED =
  'host:port (tcp), a socket path (unix); sentinel: master,host:port,...; cluster: host:port,...';

export const LOG_LEVEL_NAMES = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'panic'] as const;

export const ratelimitSettingsSpec = {
  // Processes
  ratelimitWorkers: int('RATELIMIT_WORKERS', availableParallelism(), { min: 1, max: 256 }),
  // V8 lets a busy worker's heap grow to ~250 MB of mostly garbage by default (a 16 MB semi-space
  // and a fast-growing old generation); these keep it near 120-130 MB at 100 callers.
  // --optimize-for-size keeps it lower still but costs about 1.5-2x the CPU per decision (bench).
  ratelimitWorkerNodeOptions: str(
    'RATELIMIT_WORKER_NODE_OPTIONS',
    '--max-semi-space-size=8 --heap-growing-percent=20',
    'node/V8 options for the decision workers, such as --max-semi-space-size=8',
  ),
  // Listeners
  host: str('HOST', '0.0.0.0', 'an address for the HTTP listener (/json, /healthcheck)'),
  port: port('PORT', 8080),
  grpcHost: str('GRPC_HOST', '0.0.0.0', 'an address for the gRPC listener'),
  grpcPort: port('GRPC_PORT', 8081),
  debugHost: str('DEBUG_HOST', '0.0.0.0', 'an address for the debug listener'),
  debugPort: port('DEBUG_PORT', 6070),
  grpcMaxConnectionAgeMs: duration('GRPC_MAX_CONNECTION_AGE', '24h'),
  grpcMaxConnectionAgeGraceMs: duration('GRPC_MAX_CONNECTION_AGE_GRACE', '1h'),
  // Logging
  logLevel: choice('LOG_LEVEL', LOG_LEVEL_NAMES, 'warn'),
  logFormat: choice('LOG_FORMAT', ['text', 'json'] as const, 'text'),
  // Configuration
  configType: choice('CONFIG_TYPE', ['FILE', 'KAFKA', 'GRPC_XDS_SOTW'] as const, 'FILE'),
  configKafkaPublish: bool('CONFIG_KAFKA_PUBLISH', true),
  configKafkaKey: str(
    'CONFIG_KAFKA_KEY',
    'default',
    'the fleet: instances apply only configurations published under this key',
  ),
  forceStartWithoutInitialConfig: bool('FORCE_START_WITHOUT_INITIAL_CONFIG', false),
  runtimeRoot: str(
    'RUNTIME_ROOT',
    '/srv/runtime_data/current',
    'a folder (often a symlink swapped on deploy)',
  ),
  runtimeSubdirectory: str('RUNTIME_SUBDIRECTORY', '', 'a folder under RUNTIME_ROOT'),
  runtimeAppDirectory: str('RUNTIME_APPDIRECTORY', 'config', 'the folder of configuration files'),
  runtimeIgnoreDotFiles: bool('RUNTIME_IGNOREDOTFILES', false),
  runtimeWatchRoot: bool('RUNTIME_WATCH_ROOT', true),
  mergeDomainConfig: bool('MERGE_DOMAIN_CONFIG', false),
  healthyWithAtLeastOneConfigLoaded: bool('HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED', false),
  ...kafkaSettings,
  // Stats
  useStatsd: bool('USE_STATSD', true),
  statsdHost: str('STATSD_HOST', 'localhost', 'a host name or address (UDP)'),
  statsdPort: port('STATSD_PORT', 8125),
  statsFlushIntervalMs: duration('STATS_FLUSH_INTERVAL', '10s'),
  extraTags: tags('EXTRA_TAGS'),
  useDogStatsd: bool('USE_DOG_STATSD', false),
  useDogStatsdMogrifiers: str(
    'USE_DOG_STATSD_MOGRIFIERS',
    '',
    'comma-separated mogrifier names; each reads DOG_STATSD_MOGRIFIERS_<NAME>_PATTERN, _NAME and _TAGS',
  ),
  disableStats: bool('DISABLE_STATS', false),
  usePrometheus: bool('USE_PROMETHEUS', false),
  prometheusAddr: str('PROMETHEUS_ADDR', ':9090', '[host]:port'),
  prometheusPath: str('PROMETHEUS_PATH', '/metrics', 'an HTTP path'),
  // Limiting
  backendType: choice('BACKEND_TYPE', ['redis', 'memcache'] as const, 'redis'),
  expirationJitterMaxSeconds: int('EXPIRATION_JITTER_MAX_SECONDS', 300, { min: 0, max: 86_400 }),
  localCacheSizeInBytes: int('LOCAL_CACHE_SIZE_IN_BYTES', 0, { min: 0, max: 2 ** 40 }),
  nearLimitRatio: num('NEAR_LIMIT_RATIO', 0.8, { min: 0, max: 1 }),
  cacheKeyPrefix: str('CACHE_KEY_PREFIX', '', 'text put before every cache key'),
  stopCacheKeyIncrementWhenOverlimit: bool('STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT', false),
  responseDynamicMetadata: bool('RESPONSE_DYNAMIC_METADATA', false),
  shadowMode: bool('SHADOW_MODE', false),
  quotaMode: bool('QUOTA_MODE', false),
  limitResponseHeadersEnabled: bool('LIMIT_RESPONSE_HEADERS_ENABLED', false),
  limitLimitHeader: str('LIMIT_LIMIT_HEADER', 'RateLimit-Limit', 'a header name'),
  limitRemainingHeader: str('LIMIT_REMAINING_HEADER', 'RateLimit-Remaining', 'a header name'),
  limitResetHeader: str('LIMIT_RESET_HEADER', 'RateLimit-Reset', 'a header name'),
  // Redis (REDIS_PERSECOND_*: the store of SECOND limits when REDIS_PERSECOND is true)
  redisSocketType: choice('REDIS_SOCKET_TYPE', SOCKET_TYPES, 'unix'),
  redisType: choice('REDIS_TYPE', REDIS_TYPES, 'single'),
  redisUrl: str('REDIS_URL', '/var/run/nutcracker/ratelimit.sock', REDIS_URL_ALLOWED),
  redisPoolSize: int('REDIS_POOL_SIZE', 10, { min: 1, max: 1_000 }),
  redisAuth: str('REDIS_AUTH', '', 'password or user:password'),
  redisSentinelAuth: str('REDIS_SENTINEL_AUTH', '', 'password or user:password for the sentinels'),
  redisTls: bool('REDIS_TLS', false),
  redisPipelineWindowMs: duration('REDIS_PIPELINE_WINDOW', '0'),
  redisPipelineLimit: int('REDIS_PIPELINE_LIMIT', 0, { min: 0, max: 1_000_000 }),
  redisTimeoutMs: duration('REDIS_TIMEOUT', '10s'),
  redisPerSecond: bool('REDIS_PERSECOND', false),
  redisPerSecondSocketType: choice('REDIS_PERSECOND_SOCKET_TYPE', SOCKET_TYPES, 'unix'),
  redisPerSecondType: choice('REDIS_PERSECOND_TYPE', REDIS_TYPES, 'single'),
  redisPerSecondUrl: str(
    'REDIS_PERSECOND_URL',
    '/var/run/nutcracker/ratelimitpersecond.sock',
    REDIS_URL_ALLOWED,
  ),
  redisPerSecondPoolSize: int('REDIS_PERSECOND_POOL_SIZE', 10, { min: 1, max: 1_000 }),
  redisPerSecondAuth: str('REDIS_PERSECOND_AUTH', '', 'password or user:password'),
  redisPerSecondSentinelAuth: str('REDIS_PERSECOND_SENTINEL_AUTH', '', 'password or user:password'),
  redisPerSecondTls: bool('REDIS_PERSECOND_TLS', false),
  redisPerSecondPipelineWindowMs: duration('REDIS_PERSECOND_PIPELINE_WINDOW', '0'),
  redisPerSecondPipelineLimit: int('REDIS_PERSECOND_PIPELINE_LIMIT', 0, { min: 0, max: 1_000_000 }),
  redisPerSecondTimeoutMs: duration('REDIS_PERSECOND_TIMEOUT', '10s'),
  redisTlsClientCert: str('REDIS_TLS_CLIENT_CERT', '', 'a PEM file'),
  redisTlsClientKey: str('REDIS_TLS_CLIENT_KEY', '', 'a PEM file'),
  redisTlsCaCert: str('REDIS_TLS_CACERT', '', 'a PEM file'),
  redisTlsSkipHostnameVerification: bool('REDIS_TLS_SKIP_HOSTNAME_VERIFICATION', false),
  redisHealthCheckActiveConnection: bool('REDIS_HEALTH_CHECK_ACTIVE_CONNECTION', false),
  redisStartupInitialIntervalMs: duration('REDIS_STARTUP_INITIAL_INTERVAL', '1s'),
  redisStartupMaxIntervalMs: duration('REDIS_STARTUP_MAX_INTERVAL', '30s'),
  redisStartupMaxElapsedTimeMs: duration('REDIS_STARTUP_MAX_ELAPSED_TIME', '0'),
  // Memcached
  memcacheHostPort: str('MEMCACHE_HOST_PORT', '', 'comma-separated host:port list'),
  memcacheSrv: str('MEMCACHE_SRV', '', 'an SRV record name such as _memcache._tcp.example.com'),
  memcacheSrvRefreshMs: duration('MEMCACHE_SRV_REFRESH', '0'),
  memcacheSrvDnsServer: str(
    'MEMCACHE_SRV_DNS_SERVER',
    '',
    "host:port of the DNS server asked for MEMCACHE_SRV (ours, not the reference's); empty: the system resolver",
  ),
  memcacheMaxIdleConns: int('MEMCACHE_MAX_IDLE_CONNS', 2, { min: 1, max: 1_000 }),
  shutdownDeadlineMs: int('SHUTDOWN_DEADLINE_MS', 10_000, { min: 100, max: 600_000 }),
};

export type RatelimitSettings = ReturnType<typeof readRatelimitSettings>;

/** Reads every setting, then the rules that tie several together; all problems in one SettingsError. */
export function readRatelimitSettings(env: Env) {
  // xDS, gRPC TLS and tracing (./settings-extensions.ts): their problems join the others'.
  const extensions = readRatelimitExtensions(env, env.CONFIG_TYPE?.trim().toUpperCase());
  let settings: SettingsOf<typeof ratelimitSettingsSpec>;
  try {
    settings = readSettings(ratelimitSettingsSpec, env);
  } catch (error) {
    if (error instanceof SettingsError) throw new SettingsError([...error.problems, ...extensions.problems]);
    throw error;
  }
  const problems: string[] = [...extensions.problems];
  const sentinel = (variable: string, type: string, url: string): void => {
    if (type === 'sentinel' && url.split(',').filter((p) => p.trim() !== '').length < 2)
      problems.push(
        `${variable}=${JSON.stringify(url)} is not allowed: Expected master name and a list of urls for the sentinels, in the format: <redis master name>,<sentinel1>,...,<sentineln>`,
      );
  };
  sentinel('REDIS_URL', settings.redisType, settings.redisUrl);
  if (settings.redisPerSecond)
    sentinel('REDIS_PERSECOND_URL', settings.redisPerSecondType, settings.redisPerSecondUrl);
  if (settings.backendType === 'memcache') {
    if (settings.memcacheHostPort !== '' && settings.memcacheSrv !== '')
      problems.push(
        'MEMCACHE_HOST_PORT and MEMCACHE_SRV are both set: Both MEMCACHE_HOST_PORT and MEMCACHE_SRV are set',
      );
    if (settings.memcacheHostPort === '' && settings.memcacheSrv === '')
      problems.push('BACKEND_TYPE=memcache needs MEMCACHE_HOST_PORT or MEMCACHE_SRV');
  }
  if (settings.configType === 'KAFKA' && settings.configKafkaKey === '')
    problems.push('CONFIG_KAFKA_KEY must not be empty when CONFIG_TYPE=KAFKA');
  const dogStatsdMogrifiers = readMogrifiers(env, settings.useDogStatsdMogrifiers, problems);
  if (problems.length > 0) throw new SettingsError(problems);
  return Object.freeze({ ...settings, ...extensions.values!, dogStatsdMogrifiers });
}

/** A DogStatsD mogrifier: a stat name matching `pattern` is sent as `name` with `tags` ($1.. from the match). */
export interface Mogrifier {
  readonly pattern: RegExp;
  readonly name: string;
  readonly tags: ReadonlyArray<readonly [string, string]>;
}

/** USE_DOG_STATSD_MOGRIFIERS=A,B and DOG_STATSD_MOGRIFIERS_A_{PATTERN,NAME,TAGS} (envoyproxy/ratelimit godogstats). */
function readMogrifiers(env: Env, names: string, problems: string[]): readonly Mogrifier[] {
  const mogrifiers: Mogrifier[] = [];
  for (const name of names
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '')) {
    const variable = (part: string) => `DOG_STATSD_MOGRIFIERS_${name}_${part}`;
    const patternText = env[variable('PATTERN')] ?? '';
    const target = env[variable('NAME')] ?? '';
    const tagsText = env[variable('TAGS')] ?? '';
    let pattern: RegExp | undefined;
    if (patternText === '')
      problems.push(
        `${variable('PATTERN')} must be set: mogrifier ${name} is listed in USE_DOG_STATSD_MOGRIFIERS`,
      );
    else {
      try {
        pattern = new RegExp(patternText);
      } catch (error) {
        problems.push(
          `${variable('PATTERN')}=${JSON.stringify(patternText)} is not allowed: a regular expression (${(error as Error).message})`,
        );
      }
    }
    if (target === '')
      problems.push(
        `${variable('NAME')} must be set: mogrifier ${name} is listed in USE_DOG_STATSD_MOGRIFIERS`,
      );
    const tags: Array<[string, string]> = [];
    for (const pair of tagsText.split(',').filter((p) => p.trim() !== '')) {
      const colon = pair.indexOf(':');
      if (colon <= 0)
        problems.push(
          `${variable('TAGS')}=${JSON.stringify(tagsText)} is not allowed: comma-separated key:value pairs`,
        );
      else tags.push([pair.slice(0, colon).trim(), pair.slice(colon + 1).trim()]);
    }
    if (pattern !== undefined && target !== '')
      mogrifiers.push(Object.freeze({ pattern, name: target, tags }));
  }
  return Object.freeze(mogrifiers);
}

/** One Redis connection's settings: the main store's, or the per-second store's. */
export interface RedisConnectionSettings {
  readonly name: 'redis' | 'redis_per_second';
  readonly socketType: 'unix' | 'tcp';
  readonly type: 'single' | 'sentinel' | 'cluster';
  readonly url: string;
  readonly poolSize: number;
  readonly auth: string;
  readonly sentinelAuth: string;
  readonly tls: boolean;
  readonly pipelineWindowMs: number;
  readonly pipelineLimit: number;
  readonly timeoutMs: number;
}

export function redisConnection(settings: RatelimitSettings, perSecond: boolean): RedisConnectionSettings {
  return perSecond
    ? {
        name: 'redis_per_second',
        socketType: settings.redisPerSecondSocketType,
        type: settings.redisPerSecondType,
        url: settings.redisPerSecondUrl,
        poolSize: settings.redisPerSecondPoolSize,
        auth: settings.redisPerSecondAuth,
        sentinelAuth: settings.redisPerSecondSentinelAuth,
        tls: settings.redisPerSecondTls,
        pipelineWindowMs: settings.redisPerSecondPipelineWindowMs,
        pipelineLimit: settings.redisPerSecondPipelineLimit,
        timeoutMs: settings.redisPerSecondTimeoutMs,
      }
    : {
        name: 'redis',
        socketType: settings.redisSocketType,
        type: settings.redisType,
        url: settings.redisUrl,
        poolSize: settings.redisPoolSize,
        auth: settings.redisAuth,
        sentinelAuth: settings.redisSentinelAuth,
        tls: settings.redisTls,
        pipelineWindowMs: settings.redisPipelineWindowMs,
        pipelineLimit: settings.redisPipelineLimit,
        timeoutMs: settings.redisTimeoutMs,
      };
}
