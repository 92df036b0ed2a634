// DBManager benchmark through the real experiment server (a child process) on real Kafka and each
// store: acknowledged metric logs/s with concurrent reporters, the lag from an acknowledged report
// until GetObservationLog returns it, GetObservationLog of one large trial, and the server's peak
// memory. Bounded by BENCH_SECONDS per store.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kafkaSettings } from '../shared/bus/kafka.ts';
import { int, list, readSettings, str } from '../shared/settings.ts';
import {
  createDbManagerClient,
  type DbManager,
  startExperimentServer,
} from '../test/helpers/experiment-server.ts';
import { percentile } from './stats.ts';

const settings = readSettings(
  {
    ...kafkaSettings,
    stores: list('BENCH_STORES', ['sqlite', 'postgres'], {
      allowed: 'comma-separated, from sqlite, postgres',
      valid: (v) => v === 'sqlite' || v === 'postgres',
    }),
    postgresUrl: str('POSTGRES_URL', 'postgres://backbone:backbone@127.0.0.1:5432/backbone'),
    reporters: int('BENCH_REPORTERS', 50, { min: 1, max: 1_000 }),
    logsPerCall: int('BENCH_LOGS_PER_CALL', 100, { min: 1, max: 10_000 }),
    seconds: int('BENCH_SECONDS', 10, { min: 1, max: 120 }),
    lagSampleEvery: int('BENCH_LAG_SAMPLE_EVERY', 5, { min: 1, max: 1_000 }),
    largeTrialLogs: int('BENCH_LARGE_TRIAL_LOGS', 10_000, { min: 100, max: 1_000_000 }),
    getCalls: int('BENCH_GET_CALLS', 100, { min: 10, max: 10_000 }),
    /** Node options of the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it. */
    serverNodeOptions: str('BENCH_SERVER_NODE_OPTIONS', ''),
  },
  process.env,
);

const METRICS = ['loss', 'accuracy'] as const;
const run = randomBytes(3).toString('hex');

/** `count` logs of one step each, alternating metrics, at increasing microsecond timestamps. */
function metricLogs(count: number, firstStep: number) {
  const base = Date.UTC(2026, 0, 1) * 1_000; // microseconds
  return Array.from({ length: count }, (_, i) => {
    const micros = base + (firstStep + i) * 1_000;
    const iso = new Date(Math.floor(micros / 1_000)).toISOString().replace('Z', '');
    return {
      time_stamp: `${iso}${String(micros % 1_000).padStart(3, '0')}Z`,
      metric: { name: METRICS[i % METRICS.length]!, value: String(Math.random()) },
    };
  });
}

function peakMemoryMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kib / 1024;
}

async function reportLoad(db: DbManager) {
  const ackMs: number[] = [];
  const lagMs: number[] = [];
  let acknowledgedLogs = 0;
  const lagChecks: Promise<void>[] = [];
  const started = performance.now();
  const until = started + settings.seconds * 1_000;
  await Promise.all(
    Array.from({ length: settings.reporters }, async (_, reporter) => {
      const trial = `bench-${run}-reporter-${reporter}`;
      for (let call = 0; performance.now() < until; call++) {
        const logs = metricLogs(settings.logsPerCall, call * settings.logsPerCall);
        const sent = performance.now();
        await db.report({ trial_name: trial, observation_log: { metric_logs: logs } });
        const acked = performance.now();
        ackMs.push(acked - sent);
        acknowledgedLogs += logs.length;
        if (call % settings.lagSampleEvery !== 0) continue;
        // Queryable = a read issued right after the ack returns this call's logs.
        const first = logs[0]!.time_stamp;
        const last = logs.at(-1)!.time_stamp;
        lagChecks.push(
          db.get({ trial_name: trial, start_time: first, end_time: last }).then((reply) => {
            const seen = reply.observation_log?.metric_logs.length ?? 0;
            if (seen !== logs.length) throw new Error(`read after ack saw ${seen} of ${logs.length} logs`);
            lagMs.push(performance.now() - acked);
          }),
        );
      }
    }),
  );
  const seconds = (performance.now() - started) / 1_000;
  await Promise.all(lagChecks);
  return { logsPerSecond: acknowledgedLogs / seconds, calls: ackMs.length, ackMs, lagMs };
}

async function largeTrialReads(db: DbManager) {
  const trial = `bench-${run}-large`;
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

const print = (text: string): void => void process.stdout.write(`${text}\n`);
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const line = (label: string, values: number[]) =>
  `  ${label.padEnd(44)} p50 ${fmt(percentile(values, 50)).padStart(9)}   p99 ${fmt(percentile(values, 99)).padStart(9)}   (n=${values.length})`;

const dir = await mkdtemp(join(tmpdir(), 'bench-dbmanager-'));
try {
  print(
    `DBManager benchmark: ${settings.reporters} reporters × ${settings.logsPerCall} logs/call for ${settings.seconds} s, ` +
      `GetObservationLog of ${settings.largeTrialLogs} logs × ${settings.getCalls}`,
  );
  for (const store of settings.stores) {
    const server = await startExperimentServer({
      KAFKA_BROKERS: settings.kafkaBrokers.join(','),
      // A new group: the server helper starts it at the topic's end, so no history is replayed.
      PERSISTENCE_GROUP: `bench-dbmanager-${run}-${store}`,
      OBSERVATION_STORE: store,
      ...(settings.serverNodeOptions === '' ? {} : { NODE_OPTIONS: settings.serverNodeOptions }),
      ...(store === 'sqlite'
        ? { SQLITE_FILE: join(dir, 'observations.db') }
        : { POSTGRES_URL: settings.postgresUrl, POSTGRES_SCHEMA: `bench_${run}` }),
    });
    const db = createDbManagerClient(server.address);
    try {
      const load = await reportLoad(db);
      const reads = await largeTrialReads(db);
      print(`\n[${store}]`);
      print(
        `  acknowledged: ${Math.round(load.logsPerSecond).toLocaleString('en')} metric logs/s (${load.calls} calls)`,
      );
      print(line('ReportObservationLog ack', load.ackMs));
      print(line('ack → queryable (read right after the ack)', load.lagMs));
      print(line(`GetObservationLog, ${settings.largeTrialLogs} logs`, reads.allMs));
      print(line(`GetObservationLog, one metric (${settings.largeTrialLogs / 2} logs)`, reads.oneMetricMs));
      print(`  server peak memory (VmHWM): ${peakMemoryMiB(server.pid).toFixed(0)} MiB`);
    } finally {
      db.close();
      await server.stop();
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
