// DBManager benchmark through the real experiment server (a child process, run from the build as
// `npm start` runs it) on real Kafka and each store: acknowledged logs/s with concurrent reporters
// (bulk calls, and one log per call as Katib's metrics collectors send them), server CPU per log
// and per call (every thread of the process), the generator's share of the machine, the lag from an
// acknowledged report until GetObservationLog returns it, GetObservationLog of one large trial, a
// restart behind a backlog, and the server's memory idle and under load. BENCH_ROUNDS rounds per
// store; the medians are printed beside each goal (issues 26 and 33) and Katib's figure.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_BUILD, build } from '../scripts/build.ts';
import { type Bus, createBus } from '../shared/bus/index.ts';
import { kafkaSettings } from '../shared/bus/kafka-settings.ts';
import { silentLogger } from '../shared/logger.ts';
import { int, list, readSettings, str } from '../shared/settings.ts';
import {
  createDbManagerClient,
  type DbManager,
  type ExperimentServer,
  startExperimentServer,
} from '../test/helpers/experiment-server.ts';
import { observationEnds, persistedUpTo, publishBacklog } from './dbmanager/backlog.ts';
import { type LoadFigures, printGoals, printLoad, type RoundFigures } from './dbmanager/figures.ts';
import { metricLogs, reportLoad } from './dbmanager/report-load.ts';
import { cpuTicks } from './ratelimit/process-stats.ts';
import { serverEnvOf } from './server-env.ts';
import { percentile } from './stats.ts';

const settings = readSettings(
  {
    ...kafkaSettings,
    stores: list('BENCH_STORES', ['sqlite', 'postgres'], {
      allowed: 'comma-separated, from sqlite, postgres',
      valid: (v) => v === 'sqlite' || v === 'postgres',
    }),
    loads: list('BENCH_LOADS', ['bulk', 'one'], {
      allowed: 'comma-separated, from bulk (BENCH_LOGS_PER_CALL logs a call), one (one log a call)',
      valid: (v) => v === 'bulk' || v === 'one',
    }),
    postgresUrl: str('POSTGRES_URL', 'postgres://backbone:backbone@127.0.0.1:5432/backbone'),
    reporters: int('BENCH_REPORTERS', 50, { min: 1, max: 1_000 }),
    logsPerCall: int('BENCH_LOGS_PER_CALL', 100, { min: 1, max: 10_000 }),
    seconds: int('BENCH_SECONDS', 10, { min: 1, max: 120 }),
    lagSampleMs: int('BENCH_LAG_SAMPLE_MS', 20, { min: 1, max: 10_000 }),
    largeTrialLogs: int('BENCH_LARGE_TRIAL_LOGS', 10_000, { min: 100, max: 1_000_000 }),
    getCalls: int('BENCH_GET_CALLS', 100, { min: 10, max: 10_000 }),
    backlogLogs: int('BENCH_BACKLOG_LOGS', 1_000_000, { min: 0, max: 10_000_000 }),
    rounds: int('BENCH_ROUNDS', 1, { min: 1, max: 9 }),
    /** Node options of the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it. */
    serverNodeOptions: str('BENCH_SERVER_NODE_OPTIONS', ''),
    /** More settings of the server, `NAME=value` separated by spaces (e.g. `EARLY_STOPPING_WORKER=false`). */
    serverEnv: str('BENCH_SERVER_ENV', '', 'NAME=value pairs separated by spaces'),
  },
  process.env,
);

const run = randomBytes(3).toString('hex');
const serverEnv = serverEnvOf(settings.serverEnv);
/** The five slowest samples, as [when (s), how long (ms)], in time order. */
const slowestAt = (lags: readonly number[], at: readonly number[]): [number, number][] =>
  lags
    .map((lag, i): [number, number] => [at[i]!, lag])
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .sort((a, b) => a[0] - b[0]);
const print = (text: string): void => void process.stdout.write(`${text}\n`);
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** VmHWM (peak) or VmRSS (now) of a process and every thread of it, MiB. */
function memoryMiB(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return kib / 1024;
}

/** Busy CPU seconds of the whole machine so far (/proc/stat: every state but idle and iowait). */
function machineBusySeconds(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = fields as number[];
  return (user! + nice! + system! + irq! + softirq! + (steal ?? 0)) / 100;
}

/** The server's counters of the event producer (its /metrics). */
async function producerCounters(server: ExperimentServer): Promise<{ requests: number; calls: number }> {
  const text = await (await fetch(`http://127.0.0.1:${server.metricsPort}/metrics`)).text();
  const value = (name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { requests: value('bus_produce_requests_total'), calls: value('bus_produce_calls_total') };
}

/** One load on a running server, its CPU counted until the persistence consumer committed its end. */
async function measureLoad(
  server: ExperimentServer,
  db: DbManager,
  bus: Bus,
  group: string,
  logsPerCall: number,
  name: string,
  idleCores: number,
): Promise<LoadFigures> {
  const producedBefore = await producerCounters(server);
  const cpuBefore = await cpuTicks([server.pid]);
  const started = performance.now();
  const machineBefore = machineBusySeconds();
  const load = await reportLoad({
    host: '127.0.0.1',
    port: server.port,
    db,
    reporters: settings.reporters,
    logsPerCall,
    seconds: settings.seconds,
    lagSampleMs: settings.lagSampleMs,
    trialPrefix: `bench-${run}-${name}-${server.port}`,
  });
  const loadSeconds = (performance.now() - started) / 1_000;
  const machineCores = (machineBusySeconds() - machineBefore) / loadSeconds;
  const serverCoresTicks = await cpuTicks([server.pid]);
  const produced = await producerCounters(server);
  await persistedUpTo(bus, group, await observationEnds(bus), 60_000);
  const cpuSeconds = ((await cpuTicks([server.pid])) - cpuBefore) / 100;
  const spentSeconds = (performance.now() - started) / 1_000;
  // What the server spends with nothing to do (probes, empty fetches, heartbeats) is counted apart.
  const netSeconds = Math.max(0, cpuSeconds - idleCores * spentSeconds);
  return {
    logsPerCall,
    callsPerSecond: load.calls / load.seconds,
    logsPerSecond: load.logs / load.seconds,
    calls: load.calls,
    errors: load.errors,
    ackP50: percentile(load.ackMs, 50),
    ackP99: percentile(load.ackMs, 99),
    lagP50: percentile(load.lagMs, 50),
    lagP99: percentile(load.lagMs, 99),
    lagP100: percentile(load.lagMs, 100),
    lagSamples: load.lagMs.length,
    lagSlowestAt: slowestAt(load.lagMs, load.lagAtSeconds),
    lagErrors: load.lagErrors,
    serverCpuUsPerLog: (cpuSeconds * 1e6) / Math.max(load.logs, 1),
    serverCpuUsPerCall: (cpuSeconds * 1e6) / Math.max(load.calls, 1),
    netCpuUsPerLog: (netSeconds * 1e6) / Math.max(load.logs, 1),
    netCpuUsPerCall: (netSeconds * 1e6) / Math.max(load.calls, 1),
    idleCores,
    serverCores: (serverCoresTicks - cpuBefore) / 100 / loadSeconds,
    generatorCores: load.generatorCpuSeconds / load.seconds,
    machineCores,
    callsPerProduceRequest:
      (produced.calls - producedBefore.calls) / Math.max(produced.requests - producedBefore.requests, 1),
  };
}

async function largeTrialReads(db: DbManager) {
  const trial = `bench-${run}-large-${Math.random().toString(36).slice(2, 8)}`;
  const logs = metricLogs(settings.largeTrialLogs, 0);
  await db.report({ trial_name: trial, observation_log: { metric_logs: logs } });
  const first = await db.get({ trial_name: trial });
  if (first.observation_log?.metric_logs.length !== logs.length)
    throw new Error(`large trial read ${first.observation_log?.metric_logs.length} of ${logs.length} logs`);
  const allMs: number[] = [];
  const oneMetricMs: number[] = [];
  for (let i = 0; i < settings.getCalls; i++) {
    let t = performance.now();
    await db.get({ trial_name: trial });
    allMs.push(performance.now() - t);
    t = performance.now();
    await db.get({ trial_name: trial, metric_name: 'loss' });
    oneMetricMs.push(performance.now() - t);
  }
  return { allMs, oneMetricMs };
}

/**
 * Restarts the server behind a backlog: the time until a read of the backlog's last trial answers
 * (its partition applied), and until every partition is applied (any read answers at once).
 */
async function restartBehindBacklog(
  bus: Bus,
  serverSettings: Record<string, string>,
  stopped: ExperimentServer,
): Promise<{ server: ExperimentServer; seconds: number; allSeconds: number }> {
  await stopped.stop();
  const { lastTrial, lastLogs } = await publishBacklog(bus, settings.backlogLogs, `bench-${run}-backlog`);
  const ends = await observationEnds(bus);
  const started = performance.now();
  const server = await startExperimentServer(serverSettings, {
    replayHistory: true,
    readyTimeoutMs: 120_000,
    built: BENCH_BUILD,
  });
  const db = createDbManagerClient(server.address);
  try {
    for (;;) {
      try {
        const reply = await db.get({ trial_name: lastTrial });
        if ((reply.observation_log?.metric_logs.length ?? 0) >= lastLogs) break;
      } catch {
        // UNAVAILABLE while the persistence consumer is behind: ask again.
      }
      await settle(100);
    }
  } finally {
    db.close();
  }
  const seconds = (performance.now() - started) / 1_000;
  await persistedUpTo(bus, serverSettings.PERSISTENCE_GROUP!, ends, 300_000);
  return { server, seconds, allSeconds: (performance.now() - started) / 1_000 };
}

async function round(bus: Bus, store: string, dir: string, index: number): Promise<RoundFigures> {
  const group = `bench-dbmanager-${run}-${store}-${index}`;
  const serverSettings = {
    KAFKA_BROKERS: settings.kafkaBrokers.join(','),
    // A new group: the server helper starts it at the topic's end, so no history is replayed.
    PERSISTENCE_GROUP: group,
    OBSERVATION_STORE: store,
    // The bench's own earlier runs are not this server's history: without this, the early-stopping
    // judge replays their last minute (the test helper's lookback) and idle memory measures that.
    EARLY_STOPPING_LOOKBACK_MS: '1',
    ...(settings.serverNodeOptions === '' ? {} : { NODE_OPTIONS: settings.serverNodeOptions }),
    ...(store === 'sqlite'
      ? { SQLITE_FILE: join(dir, `observations-${index}.db`) }
      : { POSTGRES_URL: settings.postgresUrl, POSTGRES_SCHEMA: `bench_${run}_${index}` }),
    ...serverEnv,
  };
  const loadAverage = loadavg();
  let server = await startExperimentServer(serverSettings, { built: BENCH_BUILD });
  let db = createDbManagerClient(server.address);
  try {
    await settle(2_000);
    const rssIdleBefore = memoryMiB(server.pid, 'VmRSS');
    const idleTicks = await cpuTicks([server.pid]);
    await settle(3_000);
    const idleCores = ((await cpuTicks([server.pid])) - idleTicks) / 100 / 3;
    print(`\n[${store}] round ${index + 1}, load average ${loadAverage.map((l) => l.toFixed(2)).join(' ')}`);
    const measured: { bulk?: LoadFigures; one?: LoadFigures } = {};
    for (const load of settings.loads) {
      const perCall = load === 'bulk' ? settings.logsPerCall : 1;
      const figures = await measureLoad(server, db, bus, group, perCall, load, idleCores);
      printLoad(load === 'bulk' ? `bulk (${perCall} logs a call)` : 'one log a call', figures);
      measured[load as 'bulk' | 'one'] = figures;
    }
    const rssPeak = memoryMiB(server.pid, 'VmHWM');
    await settle(2_000);
    const rssIdleAfter = memoryMiB(server.pid, 'VmRSS');
    print(
      `  RSS idle before ${rssIdleBefore.toFixed(0)}, peak ${rssPeak.toFixed(0)}, after ${rssIdleAfter.toFixed(0)} MiB`,
    );
    let restart: { seconds: number; allSeconds: number } | undefined;
    if (settings.backlogLogs > 0) {
      db.close();
      const restarted = await restartBehindBacklog(bus, serverSettings, server);
      server = restarted.server;
      db = createDbManagerClient(server.address);
      restart = restarted;
      print(
        `  restart behind ${settings.backlogLogs.toLocaleString('en')} logs: the last trial's read answers after ` +
          `${restart.seconds.toFixed(1)} s, every partition applied after ${restart.allSeconds.toFixed(1)} s`,
      );
    }
    // Read last, so that the table holds the loads' logs and the backlog's besides the large trial.
    const reads = await largeTrialReads(db);
    const loaded = Object.values(measured).reduce((sum, f) => sum + f.calls * f.logsPerCall, 0);
    const otherRows = loaded + (restart ? settings.backlogLogs : 0);
    print(
      `  GetObservationLog of ${settings.largeTrialLogs} logs among ${otherRows.toLocaleString('en')} other rows: ` +
        `p50 ${percentile(reads.allMs, 50).toFixed(1)} ms, p99 ${percentile(reads.allMs, 99).toFixed(1)} ms`,
    );
    return {
      loadAverage,
      ...measured,
      ...(restart
        ? {
            restartSeconds: restart.seconds,
            caughtUpSeconds: restart.allSeconds,
            catchUpLogsPerSecond: settings.backlogLogs / restart.allSeconds,
          }
        : {}),
      otherRows,
      readAllP50: percentile(reads.allMs, 50),
      readAllP99: percentile(reads.allMs, 99),
      readOneMetricP50: percentile(reads.oneMetricMs, 50),
      readOneMetricP99: percentile(reads.oneMetricMs, 99),
      rssIdleBefore,
      rssIdleAfter,
      rssPeak,
    };
  } finally {
    db.close();
    await server.stop();
  }
}

build(BENCH_BUILD);
const dir = await mkdtemp(join(tmpdir(), 'bench-dbmanager-'));
const bus = createBus({
  brokers: settings.kafkaBrokers,
  clientId: 'bench-dbmanager',
  client: settings.kafkaClient,
  logger: silentLogger,
});
try {
  print(
    `DBManager benchmark: ${settings.reporters} reporters (one connection each), loads ${settings.loads.join(', ')} ` +
      `(bulk: ${settings.logsPerCall} logs a call) for ${settings.seconds} s each, GetObservationLog of ` +
      `${settings.largeTrialLogs} logs × ${settings.getCalls}, restart behind ${settings.backlogLogs} logs, ` +
      `${settings.rounds} round(s). The machine may be shared: see the load averages.`,
  );
  const results = new Map<string, RoundFigures[]>();
  for (let index = 0; index < settings.rounds; index++)
    for (const store of settings.stores) {
      const figures = await round(bus, store, dir, index);
      results.set(store, [...(results.get(store) ?? []), figures]);
    }
  for (const [store, rounds] of results) printGoals(store, rounds, settings.largeTrialLogs);
} finally {
  await bus.close();
  await rm(dir, { recursive: true, force: true });
}
