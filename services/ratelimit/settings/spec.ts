// The rate limit service's own settings under envoyproxy/ratelimit's names and defaults
// (reference 5.7), plus the Kafka broadcast's; TLS, xDS and tracing are in ./xds-tls-tracing.ts.
import { availableParallelism } from 'node:os';
import { kafkaSettings } from '../../../shared/bus/kafka-settings.ts';
import { bool, int, num, port, str } from '../../../shared/settings.ts';
import { choice, duration, keyValuePairs } from './fields.ts';

const SOCKET_TYPES = ['unix', 'tcp'] as const;
const REDIS_TYPES = ['single', 'sentinel', 'cluster'] as const;
const REDIS_URL_ALLOWED =
  'host:port (tcp), a socket path (unix); sentinel: master,host:port,...; cluster: host:port,...';

export const LOG_LEVEL_NAMES = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'panic'] as const;

export const ratelimitSettingsSpec = {
  // Decision units: the main thread's and RATELIMIT_WORKERS - 1 worker threads, one process
  decisionUnits: int('RATELIMIT_WORKERS', availableParallelism(), { min: 1, max: 256 }),
  // Node options of the instance (the process starts itself again with them). V8 lets a busy
  // thread's young generation grow to 128 MB by default; a 4 MB semi-space and slower heap growth
  // keep the instance near 92 MB idle and 125-150 MB at 100 callers (bench), for ~5% more GC.
  instanceNodeOptions: str(
    'RATELIMIT_WORKER_NODE_OPTIONS',
    '--max-semi-space-size=4 --heap-growing-percent=20',
    'node options for the instance, such as --max-semi-space-size=4',
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
  // CONFIG_TYPE=KAFKA: how long the follower may stay down (started again with backoff) before the process exits 1
  configKafkaGiveUpMs: duration('CONFIG_KAFKA_GIVE_UP', '2m'),
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
  extraTags: keyValuePairs('EXTRA_TAGS', ':'),
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
