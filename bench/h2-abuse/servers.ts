// The three servers the patterns run against, each started fresh for the run: the experiment
// service (on the bench profile's Kafka, SQLite store) and the rate limiter, both on the project's
// own HTTP/2 gRPC server and run from the build as `npm start` runs them, and envoyproxy/ratelimit
// (Go, built into .bench-tools/), both rate limiters on the bench profile's Redis. Each comes with
// the real unary call the patterns send: ReportObservationLog (its handler publishes to Kafka) or
// ShouldRateLimit for the configured domain.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadSync } from '@grpc/proto-loader';
import { BENCH_BUILD } from '../../scripts/build.ts';
import { TOPICS } from '../../shared/bus/index.ts';
import { PROTO_LOADER_OPTIONS, PROTO_ROOT } from '../../shared/grpc.ts';
import { startExperimentServer } from '../../test/helpers/experiment-server.ts';
import { openTestBus } from '../../test/helpers/kafka.ts';
import { createRuntimeFolder } from '../../test/helpers/ratelimit-runtime.ts';
import { startRatelimitServer } from '../../test/helpers/ratelimit-server.ts';
import { BENCH_CONFIG } from '../ratelimit/bench-config.ts';
import { processTree } from '../ratelimit/process-stats.ts';
import { startService } from '../ratelimit/side-by-side.ts';
import { grpcMessage, requestBlock } from './frames.ts';
import type { AttackTarget } from './patterns.ts';

export const SERVER_NAMES = ['experiment', 'ratelimit', 'envoyproxy/ratelimit'] as const;
export type ServerName = (typeof SERVER_NAMES)[number];

export interface ServerUnderTest {
  readonly name: ServerName;
  readonly address: string;
  /** The process whose tree is measured. */
  readonly pid: number;
  readonly target: AttackTarget;
  /**
   * The experiment service: how many events its handlers have published to experiment.observations
   * so far (the sum of the topic's end offsets on the bench's own Kafka). Calls that reached a handler.
   */
  published?(): Promise<number>;
  /** What the process wrote last (LOG_LEVEL=warn), when the bench has it. */
  output?(): string;
  /** SIGTERM, then SIGKILL if it has not exited within STOP_GRACE_MS; says which, and how long it took. */
  stop(): Promise<string>;
}

const STOP_GRACE_MS = 15_000;

/** Stops a server within STOP_GRACE_MS whatever it is busy with: a bench run is bounded in time. */
async function stopWithin(pid: number, stop: () => Promise<unknown>): Promise<string> {
  const started = performance.now();
  const stopped = stop().then(() => 'exited');
  const grace = sleep(STOP_GRACE_MS).then(() => 'late');
  if ((await Promise.race([stopped, grace])) === 'exited')
    return `exited ${((performance.now() - started) / 1_000).toFixed(1)} s after SIGTERM`;
  for (const each of await processTree(pid)) {
    try {
      process.kill(each, 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
  await stopped;
  return `**still running ${STOP_GRACE_MS / 1_000} s after SIGTERM**: SIGKILLed`;
}

export interface ServerSettings {
  readonly kafkaBrokers: string;
  /** More settings of the experiment service (BENCH_SERVER_ENV). */
  readonly experimentEnv: Readonly<Record<string, string>>;
  readonly redisUrl: string;
  readonly ratelimitWorkers: number;
  readonly streamsCap: number;
  /** The envoyproxy/ratelimit binary. */
  readonly reference: string;
  readonly run: string;
}

const RLS = 'envoy.service.ratelimit.v3.RateLimitService';
const DBMANAGER = 'api.v1.beta1.DBManager';

/** A request message serialized by proto-loader from the .proto files (not by the services' own writers). */
function serialize(file: string, service: string, method: string, request: object): Buffer {
  const definition = loadSync(join(PROTO_ROOT, file), { ...PROTO_LOADER_OPTIONS, includeDirs: [PROTO_ROOT] });
  const methods = definition[service] as unknown as Record<
    string,
    { requestSerialize(value: object): Buffer }
  >;
  return methods[method]!.requestSerialize(request);
}

function targetOf(address: string, path: string, message: Buffer, streamsCap: number): AttackTarget {
  const [host, port] = [
    address.slice(0, address.lastIndexOf(':')),
    Number(address.slice(address.lastIndexOf(':') + 1)),
  ];
  return { host, port, block: requestBlock(address, path), message: grpcMessage(message), streamsCap };
}

export async function startExperiment(settings: ServerSettings): Promise<ServerUnderTest> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-h2-abuse-'));
  const server = await startExperimentServer(
    {
      KAFKA_BROKERS: settings.kafkaBrokers,
      // A new group: the helper starts it at the topics' ends, so no history is replayed.
      PERSISTENCE_GROUP: `bench-h2-abuse-${settings.run}`,
      OBSERVATION_STORE: 'sqlite',
      SQLITE_FILE: join(dir, 'observations.db'),
      EARLY_STOPPING_LOOKBACK_MS: '1',
      ...settings.experimentEnv,
    },
    { built: BENCH_BUILD, readyTimeoutMs: 120_000 },
  );
  const report = serialize('api/v1beta1/api.proto', DBMANAGER, 'ReportObservationLog', {
    trial_name: `h2-abuse-${settings.run}`,
    observation_log: {
      metric_logs: [{ time_stamp: '2024-05-01T12:00:00Z', metric: { name: 'loss', value: '0.25' } }],
    },
  });
  const bus = openTestBus(settings.kafkaBrokers, 'platformatic');
  return {
    name: 'experiment',
    address: server.address,
    pid: server.pid,
    target: targetOf(server.address, `/${DBMANAGER}/ReportObservationLog`, report, settings.streamsCap),
    output: () => server.output(),
    async published() {
      const ends = await bus.watermarks(TOPICS.observations.name);
      return ends.reduce((sum, { high }) => sum + Number(high), 0);
    },
    async stop() {
      const how = await stopWithin(server.pid, () => server.stop());
      await bus.close();
      await rm(dir, { recursive: true, force: true });
      return how;
    },
  };
}

const decision = () =>
  serialize('envoy/service/ratelimit/v3/rls.proto', RLS, 'ShouldRateLimit', {
    domain: 'bench',
    descriptors: [{ entries: [{ key: 'user', value: 'h2-abuse' }] }],
    hits_addend: 1,
  });

/** Both rate limiters, on one runtime folder holding the bench configuration. */
export async function startRateLimiters(settings: ServerSettings): Promise<ServerUnderTest[]> {
  const runtime = await createRuntimeFolder({ 'bench.yaml': BENCH_CONFIG });
  const common = {
    REDIS_URL: settings.redisUrl,
    RUNTIME_ROOT: runtime.root,
    RUNTIME_SUBDIRECTORY: runtime.subdirectory,
    RUNTIME_APPDIRECTORY: 'config',
  };
  const started: ServerUnderTest[] = [];
  // The folder goes once both are stopped (or once a failed start stopped the one started).
  let left = 2;
  let cleaned = false;
  const cleanupOnce = async () => {
    if (!cleaned) await runtime.cleanup();
    cleaned = true;
  };
  const cleanup = async () => {
    if (--left === 0) await cleanupOnce();
  };
  try {
    const ours = await startRatelimitServer(
      {
        ...common,
        RATELIMIT_WORKERS: String(settings.ratelimitWorkers),
        KAFKA_BROKERS: settings.kafkaBrokers,
      },
      { built: BENCH_BUILD, readyTimeoutMs: 120_000 },
    );
    started.push({
      name: 'ratelimit',
      address: ours.grpcAddress,
      pid: ours.pid,
      target: targetOf(ours.grpcAddress, `/${RLS}/ShouldRateLimit`, decision(), settings.streamsCap),
      output: () => ours.output(),
      async stop() {
        const how = await stopWithin(ours.pid, () => ours.stop());
        await cleanup();
        return how;
      },
    });
    const reference = await startService('reference', settings.reference, [], common);
    started.push({
      name: 'envoyproxy/ratelimit',
      address: reference.grpc,
      pid: reference.child.pid!,
      target: targetOf(reference.grpc, `/${RLS}/ShouldRateLimit`, decision(), settings.streamsCap),
      async stop() {
        const how = await stopWithin(reference.child.pid!, () => reference.stop());
        await cleanup();
        return how;
      },
    });
    return started;
  } catch (error) {
    for (const server of started) await server.stop();
    await cleanupOnce();
    throw error;
  }
}
