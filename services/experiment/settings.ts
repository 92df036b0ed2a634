import { kafkaSettings, topicPrefix } from '../../shared/bus/kafka-settings.ts';
import { LOG_LEVELS } from '../../shared/logger.ts';
import {
  bool,
  documented,
  type Env,
  type Field,
  int,
  list,
  oneOf,
  optionalBool,
  port,
  readSettings,
  SettingsError,
  str,
} from '../../shared/settings.ts';

/** The gRPC services one experiment server can host; each can also run alone. */
export const EXPERIMENT_SERVICES = ['dbmanager', 'suggestion', 'earlystopping'] as const;
export type ExperimentServiceName = (typeof EXPERIMENT_SERVICES)[number];

/** Every setting of the experiment service, with its default; their meanings are below (docs/settings/experiment.md). */
const declarations = {
  ...kafkaSettings,
  kafkaTopicPrefix: topicPrefix('KAFKA_TOPIC_PREFIX'),
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
  /** The trial controller: runs submitted experiments (one instance of a deployment). */
  trialController: bool('TRIAL_CONTROLLER', false),
  trialLeaseMs: int('TRIAL_LEASE_MS', 15_000, { min: 1_000, max: 3_600_000 }),
  trialPickupTimeoutMs: int('TRIAL_PICKUP_TIMEOUT_MS', 60_000, { min: 1_000, max: 86_400_000 }),
  trialMaxRuns: int('TRIAL_MAX_RUNS', 3, { min: 1, max: 100 }),
  trialCallDeadlineMs: int('TRIAL_CALL_DEADLINE_MS', 60_000, { min: 100, max: 600_000 }),
  trialControllerTickMs: int('TRIAL_CONTROLLER_TICK_MS', 200, { min: 10, max: 10_000 }),
  /** `experiment runner`: the processes that run trials (read by the runner command, not the server). */
  runnerGroup: str('RUNNER_GROUP', 'experiment-runners', 'a Kafka consumer group id'),
  runnerSlots: int('RUNNER_SLOTS', 4, { min: 0, max: 1_024 }),
  runnerDbManager: str('RUNNER_DB_MANAGER_ADDRESS', '127.0.0.1:6789', 'host:port of a DBManager (gRPC)'),
  runnerHeartbeatMs: int('RUNNER_HEARTBEAT_MS', 2_000, { min: 100, max: 60_000 }),
  runnerStopGraceMs: int('RUNNER_STOP_GRACE_MS', 5_000, { min: 0, max: 600_000 }),
  runnerFilePollMs: int('RUNNER_FILE_POLL_MS', 200, { min: 10, max: 60_000 }),
};

/** What each setting means: `npm run docs:settings` writes docs/settings/experiment.md from these. */
export const experimentSettingsSpec = documented(declarations, {
  kafkaTopicPrefix:
    "put before the name of every topic (`experiment.observations` becomes `<prefix>experiment.observations`, its dead-letter topic `<prefix>experiment.observations.dlq`) and every consumer group (`PERSISTENCE_GROUP`, `EARLY_STOPPING_GROUP`, `RUNNER_GROUP`) this service and its `experiment` CLI use, so that several deployments share one Kafka cluster without meeting: each sees only its own experiments. Every instance of one deployment, and its runners, must have the same prefix. The ratelimit and kvupgrade topics are not the experiment service's and keep their names",
  services:
    "which Katib services this server hosts (any subset runs alone, and runs only what it needs: see [In place of Katib's pieces](../experiment.md#in-place-of-katibs-pieces))",
  grpcHost: "gRPC listener's address (`0.0.0.0` in a container); the HTTP and metrics listeners use it too",
  grpcPort: "gRPC listener's port (Katib's db-manager port)",
  grpcMaxMessageBytes:
    "largest request, gRPC or HTTP body (16 MiB is ~400,000 logs in one report; four times what Katib's own gRPC servers take). A larger one is refused from its length, before it is read: RESOURCE_EXHAUSTED (HTTP 413). Replies may reach 256 MiB ([memory measured](../performance.md#experiment-settings-measured))",
  metricsPort: 'Prometheus `GET /metrics`',
  http: 'run the HTTP listener: the web page, the gateway, the read endpoints and the live streams',
  httpPort: 'its port (on `EXPERIMENT_GRPC_HOST`; `0` picks a free one)',
  readModelRebuild:
    'when the read model is empty at start, replay the topics the persistence group already committed into it',
  sseMaxBufferedBytes:
    'unsent bytes a live stream may hold before it is closed (a browser that stops reading is cut off, never waited for)',
  logLevel: '`trace`…`fatal`, `silent`; JSON lines on stdout',
  store: '`sqlite` (embedded, one file, no server) or `postgres`',
  sqliteFile: 'the SQLite file (its folder is created)',
  postgresUrl: 'PostgreSQL, for shared or large deployments',
  postgresSchema: 'schema (created if missing)',
  postgresPoolSize: 'connections to PostgreSQL',
  persistenceConsumer:
    'run the persistence consumer (applies `experiment.observations` and `experiment.trial-status` to the store, keeps the read model) in this process',
  persistenceGroup:
    "its consumer group, after `KAFKA_TOPIC_PREFIX`; the read barrier reads this group's offsets",
  persistenceThread:
    'run the persistence consumer on a thread of its own (`worker_threads`, with its own Kafka client, store connection and read model), so the request thread keeps only the requests; `false` runs it on the request thread: less memory, fewer logs/s under bulk load ([measured](../performance.md#experiment-settings-measured))',
  persistenceBatchWaitMs:
    "after a batch that reached a partition's end, how long the persistence consumer waits before it fetches again: the events arriving meanwhile (on every partition) are applied in one transaction and committed in one request. A read right after a write waits up to this much more; nothing changes while idle (an empty fetch does not wait) or while catching up",
  reportLagBudgetMs:
    "back-pressure for `ReportObservationLog`: a report waits before it is published while this instance's persistence consumer has not applied a report acknowledged longer ago than this, so acknowledged reports stay readable within about this much (the read barrier's wait) when reports come faster than the store takes them. Only partitions this instance applies count; `0` never waits",
  reportLagMaxWaitMs:
    'the longest a report waits for that; then it goes anyway (Kafka holds it). Reports never wait while the store is lost or the persistence consumer is not running',
  consumerSessionTimeoutMs:
    "how long Kafka waits for a silent consumer before giving its partitions to another (a crashed instance's reads stall this long)",
  earlyStoppingThread:
    'run the early-stopping judge on a thread of its own (its own Kafka client): it reads every report back; `false` keeps it on the request thread: less memory, less CPU a report at light load, more at heavy load ([measured](../performance.md#experiment-settings-measured))',
  earlyStoppingJudge: 'run the early-stopping judge in this process',
  earlyStoppingGroup:
    'its consumer group, after `KAFKA_TOPIC_PREFIX` (instances share `experiment.observations` by trial partition)',
  earlyStoppingLookbackMs:
    'how far back in `experiment.observations` the judge starts when it starts (the default is 7 days; `0`: the beginning); bounds restart work',
  dbManagerDeadlineMs: 'deadline of each GetObservationLog sent to a `db_manager_address`',
  readBarrierTimeoutMs:
    'how long GetObservationLog (and SetTrialStatus, GetEarlyStoppingRules) wait for the persistence consumer, and enas GetSuggestions waits to read `experiment.nas-controller-state` to its end, before UNAVAILABLE (at once when the store is known lost)',
  suggestionThreads:
    'suggestion threads (`worker_threads`) that compute the suggestions of the algorithms that fit a model to every trial (`bayesianoptimization`), so a long fit never holds other calls; 0 computes them on the event loop. A thread starts on the first such call and stops after 60 s without one (each holds ~27 MiB)',
  nasStateCacheMb:
    'MiB of NAS controller states (enas, up to 12 MiB each) kept in memory, the most recently used (states replayed at start are not kept); one not in memory is read back from `experiment.nas-controller-state` when its experiment asks, within `READ_BARRIER_TIMEOUT_MS`',
  shutdownDeadlineMs: 'SIGTERM: stop everything within this time',
  trialController:
    'run the trial controller in this instance: it runs the experiments submitted on `experiment.experiments` (`POST /api/experiments`, `experiment run`), asks GetSuggestions, hands trials to runners and ends experiments as Katib does. Needs `dbmanager` and `suggestion` in `EXPERIMENT_SERVICES` (and `earlystopping` for experiments that stop early); one instance of a deployment runs it',
  trialLeaseMs:
    "how long a run stays its runner's after the controller last read its start or a heartbeat naming it; then the runner is taken as gone and the trial is run again or failed (`TRIAL_MAX_RUNS`)",
  trialPickupTimeoutMs: 'how long an assignment waits for a runner before it is cancelled and assigned again',
  trialMaxRuns:
    'runs a trial may lose with their runner (lease ran out, runner killed) before it is FAILED with reason RunnerLost; each run again starts with its observation log deleted',
  trialCallDeadlineMs:
    "deadline of the controller's GetSuggestions, GetObservationLog and GetEarlyStoppingRules (made in process)",
  trialControllerTickMs:
    'how soon the controller acts on an event; every unfinished experiment is also looked at once a second',
  runnerGroup:
    '`experiment runner`: the consumer group of `experiment.trial-assignments` that every runner joins, on any machine (after `KAFKA_TOPIC_PREFIX`); runners of one group share the trials',
  runnerSlots:
    '`experiment runner`: trials one runner runs at once (`0`: no limit); a full runner reads no further assignment, so the others take them',
  runnerDbManager:
    "`experiment runner`: the DBManager the trials' metrics are reported to (ReportObservationLog, as Katib's metrics collector does)",
  runnerHeartbeatMs:
    "`experiment runner`: how often it says on `experiment.runners` which runs it holds; the trial controller's lease on a run is renewed by each",
  runnerStopGraceMs:
    "`experiment runner`: a trial told to stop (early-stopped, killed) gets SIGTERM on its process group, then SIGKILL after this (the kubelet's grace period)",
  runnerFilePollMs: '`experiment runner`: how often a `File` collector reads the metrics file for new lines',
});

export type ExperimentSettings = ReturnType<typeof readExperimentSettings>;
export type RunnerSettings = ReturnType<typeof readRunnerSettings>;

/** The runner's settings, and the environment its trials inherit (the container's env is added to it). */
export function readRunnerSettings(env: Env) {
  return Object.freeze({ ...readExperimentSettings(env), trialEnv: Object.freeze({ ...env }) });
}

/**
 * An instance runs only what the services it hosts need, so each can stand in for one of Katib's
 * pods: dbmanager brings the persistence consumer and the page, earlystopping the judge.
 */
export function readExperimentSettings(env: Env) {
  const read = readSettings(experimentSettingsSpec, env);
  const hosts = (service: ExperimentServiceName) => read.services.includes(service);
  if (read.trialController && !(hosts('dbmanager') && hosts('suggestion')))
    throw new SettingsError([
      `TRIAL_CONTROLLER=true needs dbmanager and suggestion in EXPERIMENT_SERVICES (it calls them in process), got ${JSON.stringify(read.services.join(','))}`,
    ]);
  if (read.trialController && read.trialLeaseMs < 2 * read.runnerHeartbeatMs)
    throw new SettingsError([
      `TRIAL_LEASE_MS (${read.trialLeaseMs}) must be at least twice RUNNER_HEARTBEAT_MS (${read.runnerHeartbeatMs}): one late heartbeat would lose a run`,
    ]);
  return Object.freeze({
    ...read,
    http: read.http ?? hosts('dbmanager'),
    persistenceConsumer: read.persistenceConsumer ?? hosts('dbmanager'),
    earlyStoppingJudge: read.earlyStoppingJudge ?? hosts('earlystopping'),
  });
}
