// `npm run bench:container-memory`: the memory of each role a user runs as a Deployment of its own,
// measured in its container (the cgroup podman gives it), idle and under the benches' loads:
// DBManager (PostgreSQL, as deploy/ runs it) under the bulk load of bench:dbmanager, the
// early-stopping role beside it (its judge reads every report), suggestion-only under GetSuggestions
// calls, the rate limiter under 100 gRPC callers. Each figure beside its goal (issue 40).

import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { int, readSettings, str } from '../shared/settings.ts';
import {
  type CgroupMemory,
  type Container,
  cgroupMemory,
  ensureTestImage,
  startContainer,
} from '../test/helpers/container.ts';
import { freePort } from '../test/helpers/experiment-server.ts';
import { openTestBus } from '../test/helpers/kafka.ts';
import { createKatibCalls } from '../test/helpers/katib-calls.ts';
import { createHealthClient } from '../test/helpers/rls-client.ts';
import { waitFor } from '../test/helpers/wait-for.ts';
import { observationEnds, persistedUpTo, publishBacklog } from './dbmanager/backlog.ts';
import { reportLoad } from './dbmanager/report-load.ts';
import { BENCH_CONFIG } from './ratelimit/bench-config.ts';
import { rawGrpcLoadClient } from './ratelimit/load-clients.ts';
import { serverEnvOf } from './server-env.ts';

const settings = readSettings(
  {
    kafkaBrokers: str('KAFKA_BROKERS', '127.0.0.1:29092'),
    postgresUrl: str('POSTGRES_URL', 'postgres://backbone:backbone@127.0.0.1:25432/backbone'),
    redisUrl: str('REDIS_URL', '127.0.0.1:26379'),
    idleSeconds: int('BENCH_IDLE_SECONDS', 15, { min: 1, max: 600 }),
    seconds: int('BENCH_SECONDS', 20, { min: 1, max: 600 }),
    ratelimitWorkers: int('BENCH_RATELIMIT_WORKERS', 1, { min: 1, max: 64 }),
    backlogLogs: int('BENCH_BACKLOG_LOGS', 1_000_000, { min: 0, max: 10_000_000 }),
    // More settings of every experiment role's container, NAME=value separated by spaces.
    experimentEnv: str('BENCH_EXPERIMENT_ENV', '', 'NAME=value pairs separated by spaces'),
  },
  process.env,
);
const MB = 1e6;
const print = (line: string) => process.stdout.write(`${line}\n`);
const run = Date.now().toString(36);

interface Measured {
  readonly role: string;
  readonly container: Container;
  readonly pid: number;
  idle?: CgroupMemory;
  /** The process's resident set idle: its anonymous memory and every file page it maps. */
  idleRss?: number;
  peakUnderLoad: number;
  readonly goals: string;
}

/** Samples the usage every 100 ms while `load` runs; the highest seen. */
async function peakDuring(measured: Measured[], load: Promise<unknown>): Promise<void> {
  let done = false;
  // Its failure is thrown by the await below.
  load.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  while (!done) {
    for (const m of measured) m.peakUnderLoad = Math.max(m.peakUnderLoad, cgroupMemory(m.pid).usage);
    await sleep(100);
  }
  await load;
}

/**
 * Starts an experiment role and waits until it serves. A role whose first start meets Kafka not ready
 * yet (a group coordinator still being elected on a fresh broker) exits 1; it is started again, as
 * Kubernetes restarts a pod's container.
 */
async function experimentRole(
  role: string,
  tag: string,
  env: Record<string, string>,
  health: string,
  goals: string,
) {
  for (let attempt = 1; ; attempt++) {
    const [grpc, metrics, http] = await Promise.all([freePort(), freePort(), freePort()]);
    const container = await startContainer(tag, tag.endsWith('-earlystopping') ? [] : ['experiment'], {
      name: `bench-${role.replaceAll(' ', '-')}-${run}`,
      env: {
        KAFKA_BROKERS: settings.kafkaBrokers,
        EXPERIMENT_GRPC_PORT: String(grpc),
        EXPERIMENT_METRICS_PORT: String(metrics),
        EXPERIMENT_HTTP_PORT: String(http),
        ...serverEnvOf(settings.experimentEnv),
        ...env,
      },
    });
    const calls = createKatibCalls(`127.0.0.1:${grpc}`);
    const serving = await waitFor(
      `${role} serving`,
      async () =>
        (await calls.health(health).catch(() => '')) === 'SERVING'
          ? 'serving'
          : (await container.running())
            ? false
            : 'exited',
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    calls.close();
    if (serving === 'serving')
      return { measured: { role, container, pid: await container.hostPid(), peakUnderLoad: 0, goals }, grpc };
    const fatal = (await container.logs()).split('\n').find((line) => line.includes('"level":"fatal"'));
    await container.remove();
    if (attempt === 3) throw new Error(`${role} exited at start 3 times: ${fatal}`);
    print(`${role} exited at start (restarted): ${fatal?.slice(0, 300)}`);
  }
}

const image = await ensureTestImage();
print(`image ${image.tag}${image.buildSeconds > 0 ? ` (built in ${image.buildSeconds.toFixed(0)} s)` : ''}`);
const store = {
  OBSERVATION_STORE: 'postgres',
  POSTGRES_URL: settings.postgresUrl,
  POSTGRES_SCHEMA: `bench_mem_${run}`,
};
const groups = { PERSISTENCE_GROUP: `bench-mem-persistence-${run}` };
const configRoot = await mkdtemp(join(tmpdir(), 'bench-ratelimit-'));
await chmod(configRoot, 0o755); // read by the image's user
await mkdir(join(configRoot, 'ratelimit', 'config'), { recursive: true });
await writeFile(join(configRoot, 'ratelimit', 'config', 'bench.yaml'), BENCH_CONFIG);
const all: Measured[] = [];
const others: Measured[] = [];
let catchUpRow: string | undefined;
try {
  const db = await experimentRole(
    'dbmanager',
    image.tag,
    { EXPERIMENT_SERVICES: 'dbmanager', ...store, ...groups },
    'api.v1.beta1.DBManager',
    'idle ≤ 120 MB, bulk load ≤ 200 MB',
  );
  const es = await experimentRole(
    'earlystopping',
    `${image.tag}-earlystopping`,
    { ...store, ...groups, EARLY_STOPPING_GROUP: `bench-mem-judge-${run}` },
    'api.v1.beta1.EarlyStopping',
    '',
  );
  const suggestion = await experimentRole(
    'suggestion',
    image.tag,
    { EXPERIMENT_SERVICES: 'suggestion' },
    'manager.v1beta1.Suggestion',
    'idle ≤ 80 MB',
  );
  const [http, grpc, debug] = await Promise.all([freePort(), freePort(), freePort()]);
  const ratelimit = await startContainer(image.tag, ['ratelimit'], {
    name: `bench-ratelimit-${run}`,
    env: {
      REDIS_SOCKET_TYPE: 'tcp',
      REDIS_URL: settings.redisUrl,
      USE_STATSD: 'false',
      RUNTIME_ROOT: '/data',
      RUNTIME_SUBDIRECTORY: 'ratelimit',
      RUNTIME_WATCH_ROOT: 'false',
      KAFKA_BROKERS: settings.kafkaBrokers,
      CONFIG_KAFKA_KEY: `bench-${run}`,
      RATELIMIT_WORKERS: String(settings.ratelimitWorkers),
      PORT: String(http),
      GRPC_PORT: String(grpc),
      DEBUG_PORT: String(debug),
    },
    readOnlyMounts: { [configRoot]: '/data' },
  });
  const rlHealth = createHealthClient(`127.0.0.1:${grpc}`);
  await waitFor(
    'ratelimit serving',
    async () => (await rlHealth.check('ratelimit').catch(() => '')) === 'SERVING',
    {
      timeoutMs: 120_000,
      intervalMs: 250,
    },
  );
  rlHealth.close();
  const rl: Measured = {
    role: `ratelimit (${settings.ratelimitWorkers} decision unit${settings.ratelimitWorkers > 1 ? 's' : ''})`,
    container: ratelimit,
    pid: await ratelimit.hostPid(),
    peakUnderLoad: 0,
    goals: 'idle ≤ 64 MB',
  };
  all.push(db.measured, es.measured, suggestion.measured, rl);

  // Idle means nothing left to apply: a new persistence group starts at the topic's beginning.
  const idleBus = openTestBus(settings.kafkaBrokers);
  try {
    await persistedUpTo(idleBus, groups.PERSISTENCE_GROUP, await observationEnds(idleBus), 1_800_000);
  } finally {
    await idleBus.close();
  }
  await sleep(settings.idleSeconds * 1_000);
  for (const m of all) {
    m.idle = cgroupMemory(m.pid);
    m.idleRss = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${m.pid}/status`, 'utf8'))?.[1]) * 1024;
  }

  // DBManager's bulk load (bench:dbmanager's: 50 callers, 100 logs a call); the judge reads it all.
  await peakDuring(
    [db.measured, es.measured],
    reportLoad({
      host: '127.0.0.1',
      port: db.grpc,
      reporters: 50,
      logsPerCall: 100,
      seconds: settings.seconds,
      lagSampleMs: 1e9,
      trialPrefix: `bench-mem-${run}`,
    }).then((r) =>
      print(`bulk load: ${Math.round(r.logs / r.seconds)} logs/s acknowledged, ${r.errors} errors`),
    ),
  );
  // Suggestion: tpe over 50 completed trials, 4 callers at once.
  const calls = createKatibCalls(`127.0.0.1:${suggestion.grpc}`);
  const request = suggestRequest(50);
  const until = Date.now() + settings.seconds * 1_000;
  let answered = 0;
  await peakDuring(
    [suggestion.measured],
    Promise.all(
      Array.from({ length: 4 }, async () => {
        while (Date.now() < until)
          if ((await calls.call('Suggestion', 'GetSuggestions', request, 30_000)).ok) answered++;
      }),
    ),
  );
  calls.close();
  print(`suggestion load: ${Math.round(answered / settings.seconds)} GetSuggestions/s (tpe, 50 trials)`);
  // The rate limiter: 100 callers over 10 connections.
  const client = rawGrpcLoadClient('127.0.0.1', grpc, 100, 10);
  let decisions = 0;
  const rlUntil = Date.now() + settings.seconds * 1_000;
  await peakDuring(
    [rl],
    Promise.all(
      Array.from({ length: 100 }, async (_, caller) => {
        while (Date.now() < rlUntil) {
          await client.decide(caller);
          decisions++;
        }
      }),
    ),
  );
  client.close();
  print(`ratelimit load: ${Math.round(decisions / settings.seconds)} decisions/s`);

  // bench:dbmanager's restart: a DBManager of a new persistence group applies every log on the
  // topic (the loads above and BENCH_BACKLOG_LOGS more) as fast as it can, whatever the generator.
  if (settings.backlogLogs > 0) {
    const bus = openTestBus(settings.kafkaBrokers);
    try {
      await publishBacklog(bus, settings.backlogLogs, `bench-mem-backlog-${run}`);
      const ends = await observationEnds(bus);
      const group = `bench-mem-catch-up-${run}`;
      const started = performance.now();
      const catchUp = await experimentRole(
        'dbmanager catching up',
        image.tag,
        { EXPERIMENT_SERVICES: 'dbmanager', ...store, PERSISTENCE_GROUP: group },
        'api.v1.beta1.DBManager',
        'bulk load ≤ 200 MB',
      );
      others.push(catchUp.measured);
      await peakDuring([catchUp.measured], persistedUpTo(bus, group, ends, 1_800_000));
      const logs = [...ends.values()].reduce((a, b) => a + b, 0n);
      print(
        `catch-up: ${logs} events applied in ${((performance.now() - started) / 1_000).toFixed(1)} s (start included)`,
      );
      catchUpRow = `| DBManager applying ${logs} events of up to 1,000 logs (restart behind a backlog) | | | | | ${(catchUp.measured.peakUnderLoad / MB).toFixed(1)} MB | ≤ 200 MB under load |`;
    } finally {
      await bus.close();
    }
  }

  print(
    '\n| role | idle: cgroup usage | idle: working set | idle: anonymous | idle: process RSS | under load: peak usage | goals |',
  );
  print('|---|---:|---:|---:|---:|---:|---|');
  for (const m of all) {
    const i = m.idle!;
    print(
      `| ${m.role} | ${(i.usage / MB).toFixed(1)} MB | ${(i.workingSet / MB).toFixed(1)} MB | ${(i.anon / MB).toFixed(1)} MB | ${(m.idleRss! / MB).toFixed(1)} MB | ${(m.peakUnderLoad / MB).toFixed(1)} MB | ${m.goals} |`,
    );
  }
  if (catchUpRow) print(catchUpRow);
} finally {
  for (const m of [...all, ...others]) await m.container.remove();
  await rm(configRoot, { recursive: true, force: true });
}

function suggestRequest(trials: number): object {
  const parameters = ['x', 'y', 'z'].map((name) => ({
    name,
    parameter_type: 'DOUBLE',
    feasible_space: { min: '0', max: '1' },
  }));
  return {
    experiment: {
      name: `bench-mem-tpe-${run}`,
      spec: {
        objective: { type: 'MINIMIZE', objective_metric_name: 'loss' },
        algorithm: { algorithm_name: 'tpe', algorithm_settings: [{ name: 'random_state', value: '1' }] },
        parameter_specs: { parameters },
      },
    },
    trials: Array.from({ length: trials }, (_, t) => ({
      name: `bench-mem-tpe-${run}-${t}`,
      spec: {
        parameter_assignments: {
          assignments: parameters.map((p, k) => ({
            name: p.name,
            value: String(((t * 7 + k * 3) % 97) / 97),
          })),
        },
      },
      status: {
        condition: 'SUCCEEDED',
        observation: { metrics: [{ name: 'loss', value: String((t % 13) / 13) }] },
      },
    })),
    current_request_number: 1,
    total_request_number: trials + 1,
  };
}
