// The real experiment service in a child process (so a test can SIGKILL it), and typed
// promise-based clients for its DBManager and health services.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { type ChannelOptions, credentials, type ServiceError } from '@grpc/grpc-js';
import type { DBManagerClient } from '../../proto/gen/api/v1/beta1/DBManager.ts';
import type { DeleteObservationLogReply__Output } from '../../proto/gen/api/v1/beta1/DeleteObservationLogReply.ts';
import type { DeleteObservationLogRequest } from '../../proto/gen/api/v1/beta1/DeleteObservationLogRequest.ts';
import type { GetObservationLogReply__Output } from '../../proto/gen/api/v1/beta1/GetObservationLogReply.ts';
import type { GetObservationLogRequest } from '../../proto/gen/api/v1/beta1/GetObservationLogRequest.ts';
import type { ReportObservationLogReply__Output } from '../../proto/gen/api/v1/beta1/ReportObservationLogReply.ts';
import type { ReportObservationLogRequest } from '../../proto/gen/api/v1/beta1/ReportObservationLogRequest.ts';
import type { HealthClient } from '../../proto/gen/grpc/health/v1/Health.ts';
import type { HealthCheckResponse__Output } from '../../proto/gen/grpc/health/v1/HealthCheckResponse.ts';
import {
  type ExperimentGroups,
  type ExperimentTopics,
  experimentBusNames,
} from '../../services/experiment/common/bus-names.ts';
import { EXPERIMENT_NODE_OPTIONS } from '../../services/experiment/node-options.ts';
import { readExperimentSettings } from '../../services/experiment/settings.ts';
import { partitionOf } from '../../shared/bus/index.ts';
import { HEALTH_PROTO, loadPackageDefinition, lookupService } from '../../shared/grpc.ts';
import { fileTopicPrefix } from './file-topics.ts';
import { openTestBus, testKafkaClient } from './kafka.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const MAX_OUTPUT_CHARS = 64 * 1024;

async function threeFreePorts(): Promise<{ port: number; metricsPort: number; httpPort: number }> {
  const port = await freePort();
  let metricsPort = await freePort();
  while (metricsPort === port) metricsPort = await freePort();
  let httpPort = await freePort();
  while (httpPort === port || httpPort === metricsPort) httpPort = await freePort();
  return { port, metricsPort, httpPort };
}

/** A port nothing listens on right now (bound to 0 by a throwaway server, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no port was bound'))));
    });
  });
}

export interface ExperimentServer {
  readonly port: number;
  readonly metricsPort: number;
  /** The HTTP listener (gateway, read endpoints, live streams, page). */
  readonly httpPort: number;
  readonly address: string;
  readonly pid: number;
  /** Its KAFKA_TOPIC_PREFIX: the test file's own (test/helpers/file-topics.ts) unless the test set one. */
  readonly topicPrefix: string;
  /** Its topics and groups, the prefix before each name: what a test reads and writes beside it. */
  readonly topics: ExperimentTopics;
  readonly groups: ExperimentGroups;
  /** Sends the signal and resolves with the exit code (null when a signal ended the process). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** SIGKILL: no shutdown hook runs. Resolves once the process is gone. */
  kill(): Promise<void>;
  /** What the process wrote to stdout and stderr so far (the last 64 KiB), for failure messages. */
  output(): string;
}

/**
 * Starts `services/experiment/main.ts` (or its build) with the given settings (on top of PATH and LOG_LEVEL=warn),
 * on 127.0.0.1 and free ports, and resolves once its health service answers SERVING for ''. Its
 * topics and groups are the test file's own (KAFKA_TOPIC_PREFIX), unless the settings name a prefix.
 */
export async function startExperimentServer(
  settings: Record<string, string>,
  /** built: run the JavaScript `build()` wrote into this folder (what `npm start` runs) instead of the sources. */
  options: {
    readyTimeoutMs?: number;
    replayHistory?: boolean;
    built?: string;
    /** Listen where an earlier server did (a restart its clients reconnect to); free ports otherwise. */
    samePortsAs?: Pick<ExperimentServer, 'port' | 'metricsPort' | 'httpPort'>;
  } = {},
): Promise<ExperimentServer> {
  const topicPrefix = settings.KAFKA_TOPIC_PREFIX ?? fileTopicPrefix();
  const { port, metricsPort, httpPort } = options.samePortsAs ?? (await threeFreePorts());
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    LOG_LEVEL: 'warn',
    KAFKA_CLIENT: testKafkaClient,
    // Each server's early-stopping judge reads only the recent past, in a group of its own.
    EARLY_STOPPING_GROUP: `test-early-stopping-${port}-${Date.now()}`,
    EARLY_STOPPING_LOOKBACK_MS: '60000',
    // A group started at the topics' ends has nothing of the past to rebuild the read model from.
    ...(options.replayHistory ? {} : { READ_MODEL_REBUILD: 'false' }),
    ...settings,
    KAFKA_TOPIC_PREFIX: topicPrefix,
    EXPERIMENT_GRPC_HOST: '127.0.0.1',
    EXPERIMENT_GRPC_PORT: String(port),
    EXPERIMENT_METRICS_PORT: String(metricsPort),
    EXPERIMENT_HTTP_PORT: String(httpPort),
  };
  const { topics, groups } = experimentBusNames(readExperimentSettings(env));
  // The file's topics hold its earlier tests' events: a new persistence group starts at their ends
  // (as a new deployment would), unless the test needs what was published before.
  if (!options.replayHistory && settings.PERSISTENCE_GROUP && settings.KAFKA_BROKERS)
    await startNewGroupAtEnd(settings.KAFKA_BROKERS, groups.persistence, topics);
  const entry = options.built
    ? join(options.built, 'services/experiment/main.js')
    : 'services/experiment/main.ts';
  const child = spawn(process.execPath, [...EXPERIMENT_NODE_OPTIONS, entry], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-MAX_OUTPUT_CHARS);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // A test that fails half-way must not leave the service running after the test process ends.
  const reap = (): void => void child.kill('SIGKILL');
  process.once('exit', reap);
  void exited.then(() => process.off('exit', reap));
  const address = `127.0.0.1:${port}`;

  const server: ExperimentServer = {
    port,
    metricsPort,
    httpPort,
    address,
    pid: child.pid ?? 0,
    topicPrefix,
    topics,
    groups,
    stop: (signal = 'SIGTERM') => signalAndWait(child, signal, exited),
    kill: async () => void (await signalAndWait(child, 'SIGKILL', exited)),
    output: () => output,
  };
  try {
    await waitUntilServing(address, exited, options.readyTimeoutMs ?? 60_000);
  } catch (error) {
    await server.kill();
    throw new Error(`experiment service did not become SERVING: ${(error as Error).message}\n${output}`);
  }
  return server;
}

async function signalAndWait(
  child: ChildProcess,
  signal: NodeJS.Signals,
  exited: Promise<number | null>,
): Promise<number | null> {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  return exited;
}

async function waitUntilServing(
  address: string,
  exited: Promise<number | null>,
  timeoutMs: number,
): Promise<void> {
  const Health = lookupService(loadPackageDefinition([HEALTH_PROTO]), 'grpc.health.v1.Health');
  // Reconnect at once: grpc-js waits ~1 s (its initial backoff) after a refused connection, which
  // made the time to SERVING read 1.0 or 2.6 s for the same start, by when the first probe came.
  const client = new Health(address, credentials.createInsecure(), {
    'grpc.initial_reconnect_backoff_ms': 50,
    'grpc.max_reconnect_backoff_ms': 100,
  }) as unknown as HealthClient;
  let exitCode: number | null | undefined;
  void exited.then((code) => {
    exitCode = code;
  });
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  try {
    for (;;) {
      if (exitCode !== undefined) throw new Error(`the process exited with code ${exitCode}`);
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms (${last})`);
      const answer = await new Promise<HealthCheckResponse__Output | ServiceError>((resolve) =>
        client.Check({ service: '' }, { deadline: Date.now() + 1_000 }, (error, reply) =>
          resolve(error ?? reply!),
        ),
      );
      if ('status' in answer && answer.status === 'SERVING') return;
      last = 'code' in answer ? `health: ${answer.code} ${answer.details}` : `health: ${answer.status}`;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    client.close();
  }
}

/** DBManager with promises; failures reject with the grpc-js ServiceError (code, details). */
export interface DbManager {
  report(request: ReportObservationLogRequest): Promise<ReportObservationLogReply__Output>;
  get(request: GetObservationLogRequest): Promise<GetObservationLogReply__Output>;
  delete(request: DeleteObservationLogRequest): Promise<DeleteObservationLogReply__Output>;
  close(): void;
}

export function createDbManagerClient(address: string, options: { deadlineMs?: number } = {}): DbManager {
  const DBManager = lookupService(loadPackageDefinition(['api/v1beta1/api.proto']), 'api.v1.beta1.DBManager');
  const channel: ChannelOptions = {
    'grpc.max_receive_message_length': 256 * 1024 * 1024,
    'grpc.max_send_message_length': 256 * 1024 * 1024,
  };
  const client = new DBManager(address, credentials.createInsecure(), channel) as unknown as DBManagerClient;
  const deadlineMs = options.deadlineMs ?? 60_000;
  const call = <T>(
    invoke: (opts: { deadline: number }, callback: (error: ServiceError | null, reply?: T) => void) => void,
  ): Promise<T> =>
    new Promise((resolve, reject) =>
      invoke({ deadline: Date.now() + deadlineMs }, (error, reply) =>
        error ? reject(error) : resolve(reply!),
      ),
    );
  return {
    report: (request) => call((opts, cb) => client.ReportObservationLog(request, opts, cb)),
    get: (request) => call((opts, cb) => client.GetObservationLog(request, opts, cb)),
    delete: (request) => call((opts, cb) => client.DeleteObservationLog(request, opts, cb)),
    close: () => client.close(),
  };
}

/**
 * How many events of the key's partition of the server's `experiment.observations` its persistence
 * group has not committed yet: tells whether a crash test really killed the persistence consumer
 * before it applied the last report.
 */
export async function uncommittedEvents(
  brokers: string,
  server: Pick<ExperimentServer, 'topics' | 'groups'>,
  key: string,
): Promise<number> {
  const bus = openTestBus(brokers);
  const groupId = server.groups.persistence;
  try {
    const topic = server.topics.observations.name;
    const watermarks = await bus.watermarks(topic);
    const partition = partitionOf(key, watermarks.length);
    const high = watermarks.find((w) => w.partition === partition)?.high ?? 0n;
    const committed = (await bus.committedOffsets(groupId, topic)).get(partition) ?? 0n;
    return Number(high - committed);
  } finally {
    await bus.close();
  }
}

const groupsStarted = new Set<string>();

/**
 * Commits the topics' end offsets for a group this process has not started before and that has no
 * offsets yet. A restarted server (same group) keeps whatever its persistence consumer committed, or did not.
 */
async function startNewGroupAtEnd(brokers: string, groupId: string, all: ExperimentTopics): Promise<void> {
  if (groupsStarted.has(groupId)) return;
  groupsStarted.add(groupId);
  // kafkajs sets a group's offsets by joining the group (seconds per topic); @platformatic/kafka
  // commits them in one request. Either client works: this is only the faster one for the step.
  const bus = openTestBus(brokers, 'platformatic');
  try {
    const topics = [all.observations, all.trialStatus, all.suggestions, all.earlyStoppingRules];
    await bus.ensureTopics(topics);
    const fresh: string[] = [];
    for (const topic of topics.map((t) => t.name))
      if ((await bus.committedOffsets(groupId, topic)).size === 0) fresh.push(topic);
    await bus.commitTopicEnds(groupId, fresh);
  } finally {
    await bus.close();
  }
}
