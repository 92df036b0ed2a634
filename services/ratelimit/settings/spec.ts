// The rate limit service's own settings under envoyproxy/ratelimit's names and defaults
// (reference 5.7), plus the Kafka broadcast's; TLS, xDS and tracing are in ./xds-tls-tracing.ts.
import { availableParallelism } from 'node:os';
import { kafkaSettings } from '../../../shared/bus/kafka-settings.ts';
import { bool, documented, int, num, port, str } from '../../../shared/settings.ts';
import { choice, duration, keyValuePairs } from './fields.ts';

const SOCKET_TYPES = ['unix', 'tcp'] as const;
const REDIS_TYPES = ['single', 'sentinel', 'cluster'] as const;
const REDIS_URL_ALLOWED =
  'host:port (tcp), a socket path (unix); sentinel: master,host:port,...; cluster: host:port,...';

export const LOG_LEVEL_NAMES = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'panic'] as const;

const declarations = {
  // Decision units: the main thread's and RATELIMIT_WORKERS - 1 worker threads, one process
  decisionUnits: {
    ...int('RATELIMIT_WORKERS', availableParallelism(), { min: 1, max: 256 }),
    defaultText: 'the cores available (`os.availableParallelism()`)',
  },
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

const REDIS_URL_DOC =
  '`tcp`: `host:port`; `unix`: a socket path; sentinel `master,host:port,...`; cluster `host:port,...`';
const PERSECOND = 'for the second Redis (SECOND limits, with `REDIS_PERSECOND=true`): as';

/** What each setting means: `npm run docs:settings` writes docs/settings/ratelimit.md from these. */
export const ratelimitSettingsSpec = documented(declarations, {
  decisionUnits:
    "decision units of the one process: the main thread's and `RATELIMIT_WORKERS - 1` worker threads, each with its own counter-store connections and its own gRPC and HTTP listeners on the same ports (SO_REUSEPORT; `1`: the main thread alone); the main thread also loads the configuration (once) and serves the debug port. `/stats` sums the units, `ratelimit.workers` counting those that answered within 2 s, and lists each one's `ratelimit.worker.<n>.thread_id`, `.heap_bytes` (V8 heap in use) and `.total_requests`; `/metrics` shows their sum",
  instanceNodeOptions:
    "node options of the instance (every thread). V8 sizes a heap only as it makes it, so a process started without them starts itself again with them (`process.execve`: same pid, arguments and environment), and with `MALLOC_ARENA_MAX=2` unless set. V8's default lets a busy thread's young generation grow to 128 MB",
  host: "HTTP listener's address: `/json`, `/healthcheck`",
  port: "HTTP listener's port",
  grpcHost: "gRPC listener's address: RLS v3 and health",
  grpcPort: "gRPC listener's port",
  debugHost: "debug listener's address (`/rlconfig`, `/stats`, `/metrics`, profiles)",
  debugPort: "debug listener's port",
  grpcMaxConnectionAgeMs: 'GoAway after this age (±10% jitter)',
  grpcMaxConnectionAgeGraceMs: 'then close the connection after this grace',
  logLevel: '`trace`…`panic`',
  logFormat: '`text` (logrus `time= level= msg=`) or `json` (`@timestamp`, `@message`, `level`)',
  configType:
    '`FILE`: read the files (and publish them); `KAFKA`: apply what is published on `ratelimit.config` only; `GRPC_XDS_SOTW`: from an xDS management server (and publish them)',
  configKafkaPublish:
    'with `FILE`, publish every configuration that loads cleanly (in the background; a Kafka outage never holds decisions)',
  configKafkaKey: 'the fleet: the message key, and the only key a `KAFKA` instance applies',
  configKafkaGiveUpMs:
    '`KAFKA`: how long the configuration follower may stay down (started again with backoff) before the process exits 1',
  forceStartWithoutInitialConfig: '`false`: listeners open after the first configuration is applied',
  runtimeRoot: 'files are `<ROOT>/<SUBDIRECTORY>/<APPDIRECTORY>/**`',
  runtimeSubdirectory: 'the `<SUBDIRECTORY>` of that path',
  runtimeAppDirectory: 'the `<APPDIRECTORY>` of that path',
  runtimeIgnoreDotFiles: 'skip files and folders starting with `.` (Kubernetes `..data`)',
  runtimeWatchRoot:
    'file names `config.<file>` relative to `ROOT/SUBDIRECTORY` (`false`: `<file>`); reloads on changes inside the folder and on a symlink swap of `RUNTIME_ROOT`',
  mergeDomainConfig: 'several files may add to one domain',
  healthyWithAtLeastOneConfigLoaded: 'unhealthy until a configuration with a domain is applied',
  useStatsd: 'statsd over UDP',
  statsdHost: 'statsd host',
  statsdPort: 'statsd port',
  statsFlushIntervalMs: 'counters are sent as deltas, this often',
  extraTags: '`k:v,k:v` appended as `.__k=v` (a pair with a blank key is refused, naming the pair)',
  useDogStatsd: 'statsd lines in DogStatsD form to `STATSD_HOST:STATSD_PORT` (`EXTRA_TAGS` as `|#k:v` tags)',
  useDogStatsdMogrifiers:
    'each listed mogrifier `X` reads `DOG_STATSD_MOGRIFIERS_X_PATTERN` (a regex on the stat name), `_NAME` and `_TAGS` (`k:$1,...`): the first that matches renames the stat and adds its tags',
  disableStats: 'no stats at all',
  usePrometheus:
    "read and checked as the reference's setting, and not used: the Prometheus counters are always on the debug listener's `/metrics`",
  prometheusAddr: 'as `USE_PROMETHEUS`: read, not used',
  prometheusPath: 'as `USE_PROMETHEUS`: read, not used',
  backendType: '`redis` or `memcache`',
  expirationJitterMaxSeconds: 'counters expire after their window plus up to this',
  localCacheSizeInBytes: 'in-process cache of over-limit keys (`0`: off)',
  nearLimitRatio: 'near-limit threshold',
  cacheKeyPrefix: 'text before every cache key',
  stopCacheKeyIncrementWhenOverlimit:
    'Redis: counters are read first; when a request would take some limits over, only those counters are added to (one more round trip per decision)',
  responseDynamicMetadata:
    "answers carry `dynamic_metadata`: the domain, each descriptor's `key=value` entries (limit override, hits_addend when set), the request's hits_addend when not 0, and the merged YAML `metadata` of the descriptors under their limit",
  shadowMode: 'global shadow mode (answers OK, counts `global_shadow_mode`)',
  quotaMode: 'every descriptor in quota mode',
  limitResponseHeadersEnabled: 'response headers with the limit, the remaining and the reset',
  limitLimitHeader: 'the limit header',
  limitRemainingHeader: 'the remaining header',
  limitResetHeader: 'the reset header',
  redisSocketType: '`tcp` or `unix`',
  redisType: '`single`, `sentinel`, `cluster`',
  redisUrl: REDIS_URL_DOC,
  redisPoolSize:
    'connections (the decisions of one event-loop turn share one connection and one write; the next turn takes the next connection)',
  redisAuth: '`password` or `user:password`',
  redisSentinelAuth: '`password` or `user:password` for the sentinels',
  redisTls: 'TLS to Redis',
  redisPipelineWindowMs:
    'implicit pipelining: send the commands of concurrent decisions together after the window (below 1 ms: at the end of the event-loop turn)',
  redisPipelineLimit: '… or once this many commands wait (`0`: no limit)',
  redisTimeoutMs: 'connecting, and the longest a pipeline may wait before the connection is dropped',
  redisPerSecond: 'a second Redis for SECOND limits (the `REDIS_PERSECOND_*` settings below)',
  redisPerSecondSocketType: `${PERSECOND} \`REDIS_SOCKET_TYPE\``,
  redisPerSecondType: `${PERSECOND} \`REDIS_TYPE\``,
  redisPerSecondUrl: `${PERSECOND} \`REDIS_URL\``,
  redisPerSecondPoolSize: `${PERSECOND} \`REDIS_POOL_SIZE\``,
  redisPerSecondAuth: `${PERSECOND} \`REDIS_AUTH\``,
  redisPerSecondSentinelAuth: `${PERSECOND} \`REDIS_SENTINEL_AUTH\``,
  redisPerSecondTls: `${PERSECOND} \`REDIS_TLS\``,
  redisPerSecondPipelineWindowMs: `${PERSECOND} \`REDIS_PIPELINE_WINDOW\``,
  redisPerSecondPipelineLimit: `${PERSECOND} \`REDIS_PIPELINE_LIMIT\``,
  redisPerSecondTimeoutMs: `${PERSECOND} \`REDIS_TIMEOUT\``,
  redisTlsClientCert: 'TLS to Redis: client certificate',
  redisTlsClientKey: 'TLS to Redis: client key',
  redisTlsCaCert: "TLS to Redis: the CA of Redis's certificate",
  redisTlsSkipHostnameVerification: "TLS to Redis: do not check the certificate's host name",
  redisHealthCheckActiveConnection: 'health fails while no Redis connection is up',
  redisStartupInitialIntervalMs: 'start-up waits for PING with backoff: the first interval',
  redisStartupMaxIntervalMs: 'the longest interval',
  redisStartupMaxElapsedTimeMs:
    '`0`: wait forever; `npm run ratelimit` uses `3s`; past it the start fails naming Redis and its address (exit 1)',
  memcacheHostPort: 'memcached nodes (this or `MEMCACHE_SRV`)',
  memcacheSrv: 'an SRV record naming the memcached nodes',
  memcacheSrvRefreshMs: 'SRV refresh (`0`: never)',
  memcacheSrvDnsServer:
    '`host:port` of the DNS server asked for `MEMCACHE_SRV` (ours; empty: the system resolver)',
  memcacheMaxIdleConns: 'connections per memcached node',
  shutdownDeadlineMs: 'SIGTERM: health fails first, then listeners drain',
});
