import { kafkaSettings } from '../../shared/bus/kafka-settings.ts';
import { LOG_LEVELS } from '../../shared/logger.ts';
import {
  bool,
  type Env,
  type Field,
  int,
  list,
  oneOf,
  optionalBool,
  port,
  readSettings,
  str,
} from '../../shared/settings.ts';

/** The gRPC services one experiment server can host; each can also run alone. */
export const EXPERIMENT_SERVICES = ['dbmanager', 'suggestion', 'earlystopping'] as const;
export type ExperimentServiceName = (typeof EXPERIMENT_SERVICES)[number];

/** Every setting of the experiment service, with its default; the README table mirrors this. */
export const experimentSettingsSpec = {
  ...kafkaSettings,
  services: list('EXPERIMENT_SERVICES', EXPERIMENT_SERVICES, {
    allowed: `comma-separated, from ${EXPERIMENT_SERVICES.join(', ')}`,
    valid: (value) => (EXPERIMENT_SERVICES as readonly string[]).includes(value),
  }) as Field<readonly ExperimentServiceName[]>,
  grpcHost: str('EXPERIMENT_GRPC_HOST', '127.0.0.1', 'an address to listen on (0.0.0.0 for every interface)'),
  grpcPort: port('EXPERIMENT_GRPC_PORT', 6789),
  /**
   * Largest request (gRPC or HTTP body), refused before it is read: a 200 MB report under a 256 MiB
   * limit took the process to 2.7 GiB; under 16 MiB it is refused at +17 MiB. 16 MiB is ~400,000
   * logs in one report, four times what Katib's own gRPC servers take.
   */
  grpcMaxMessageBytes: int('EXPERIMENT_GRPC_MAX_MESSAGE_BYTES', 16 * 1024 * 1024, {
    min: 4 * 1024 * 1024,
    max: 2 ** 31 - 1,
  }),
  metricsPort: port('EXPERIMENT_METRICS_PORT', 9101),
  /** Default: on when the instance hosts dbmanager (the page and read endpoints are its data). */
  http: optionalBool('EXPERIMENT_HTTP', 'true when EXPERIMENT_SERVICES has dbmanager'),
  httpPort: port('EXPERIMENT_HTTP_PORT', 8686),
  readModelRebuild: bool('READ_MODEL_REBUILD', true),
  sseMaxBufferedBytes: int('SSE_MAX_BUFFERED_BYTES', 1024 * 1024, { min: 4096, max: 1024 * 1024 * 1024 }),
  /** `own`: HTTP/2 of our own (shared/grpc-server), cheaper per call; `grpc-js`: @grpc/grpc-js's server on node:http2. */
  logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
  store: oneOf('OBSERVATION_STORE', ['sqlite', 'postgres'] as const, 'sqlite'),
  sqliteFile: str('SQLITE_FILE', 'data/experiment/observations.db', 'a file path (its folder is created)'),
  postgresUrl: str(
    'POSTGRES_URL',
    'postgres://backbone:backbone@127.0.0.1:5432/backbone',
    'postgres://user:password@host:port/database',
  ),
  postgresSchema: str('POSTGRES_SCHEMA', 'public', 'a schema name (created if missing)'),
  postgresPoolSize: int('POSTGRES_POOL_SIZE', 10, { min: 1, max: 200 }),
  /** The persistence consumer: applies the observation and trial-status topics to the store. */
  persistenceConsumer: optionalBool('PERSISTENCE_WORKER', 'true when EXPERIMENT_SERVICES has dbmanager'),
  persistenceGroup: str('PERSISTENCE_GROUP', 'experiment-persistence', 'a Kafka consumer group id'),
  /** The persistence consumer on a thread of its own (false: on the request thread, ~30 MiB less). */
  persistenceThread: bool('PERSISTENCE_THREAD', true),
  /** After each batch, how long the persistence consumer waits before it fetches again (events arriving meanwhile go in one transaction). */
  persistenceBatchWaitMs: int('PERSISTENCE_BATCH_WAIT_MS', 20, { min: 0, max: 1_000 }),
  /**
   * Reports wait while this process's persistence consumer has not applied a report acknowledged
   * longer ago than this (ms; 0: never), so acknowledged reports stay readable within about it.
   */
  reportLagBudgetMs: int('REPORT_LAG_BUDGET_MS', 500, { min: 0, max: 600_000 }),
  /** The longest a report waits for that (ms); then it goes anyway (Kafka holds it). */
  reportLagMaxWaitMs: int('REPORT_LAG_MAX_WAIT_MS', 1_000, { min: 1, max: 600_000 }),
  consumerSessionTimeoutMs: int('WORKER_SESSION_TIMEOUT_MS', 10_000, { min: 6_000, max: 300_000 }),
  /** The early-stopping judge on a thread of its own (false: on the request thread, less memory). */
  earlyStoppingThread: bool('EARLY_STOPPING_THREAD', true),
  /** The early-stopping judge: judges running trials and publishes their stops. */
  earlyStoppingJudge: optionalBool(
    'EARLY_STOPPING_WORKER',
    'true when EXPERIMENT_SERVICES has earlystopping',
  ),
  earlyStoppingGroup: str('EARLY_STOPPING_GROUP', 'experiment-early-stopping', 'a Kafka consumer group id'),
  earlyStoppingLookbackMs: int('EARLY_STOPPING_LOOKBACK_MS', 7 * 24 * 3_600_000, { min: 0, max: 2 ** 52 }),
  dbManagerDeadlineMs: int('DB_MANAGER_DEADLINE_MS', 60_000, { min: 100, max: 600_000 }),
  readBarrierTimeoutMs: int('READ_BARRIER_TIMEOUT_MS', 5_000, { min: 1, max: 600_000 }),
  /** Threads that compute the model-fitting algorithms' suggestions (0: on the event loop). */
  suggestionThreads: int('SUGGESTION_WORKER_THREADS', 1, { min: 0, max: 64 }),
  /** MiB of enas/darts controller states kept in memory; others are read back from their topic. */
  nasStateCacheMb: int('NAS_STATE_CACHE_MB', 64, { min: 1, max: 65_536 }),
  shutdownDeadlineMs: int('SHUTDOWN_DEADLINE_MS', 15_000, { min: 100, max: 600_000 }),
};

export type ExperimentSettings = ReturnType<typeof readExperimentSettings>;

/**
 * An instance runs only what the services it hosts need, so each can stand in for one of Katib's
 * pods: dbmanager brings the persistence consumer and the page, earlystopping the judge.
 */
export function readExperimentSettings(env: Env) {
  const read = readSettings(experimentSettingsSpec, env);
  const hosts = (service: ExperimentServiceName) => read.services.includes(service);
  return Object.freeze({
    ...read,
    http: read.http ?? hosts('dbmanager'),
    persistenceConsumer: read.persistenceConsumer ?? hosts('dbmanager'),
    earlyStoppingJudge: read.earlyStoppingJudge ?? hosts('earlystopping'),
  });
}
