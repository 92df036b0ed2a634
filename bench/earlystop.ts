// Early-stopping benchmark through the real experiment server (a child process) on real Kafka: the
// delay from the acknowledged ReportObservationLog that breaks a medianstop rule to the
// TrialStatusChanged event on experiment.trial-status, while BENCH_TRIALS trials report one value
// per step, each at a steady pace. Every BENCH_BREAK_EVERY-th trial breaks the rule at its
// start_step-th value; the others stay above it and must never be stopped.
//
// The early-stopping judge re-reads experiment.observations from BENCH_LOOKBACK_MS back when it starts, so the
// clock starts only after one warm-up trial per partition has been stopped. Bounded by BENCH_SECONDS.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Bus, createBus, kafkaSettings, partitionOf, readTopic, TOPICS } from '../shared/bus/index.ts';
import { createLogger } from '../shared/logger.ts';
import { int, readSettings, str } from '../shared/settings.ts';
import { createEarlyStoppingClient, type EarlyStopping } from '../test/helpers/earlystopping-client.ts';
import {
  createDbManagerClient,
  type DbManager,
  startExperimentServer,
} from '../test/helpers/experiment-server.ts';
import { serverEnvOf } from './server-env.ts';
import { percentile } from './stats.ts';

const settings = readSettings(
  {
    ...kafkaSettings,
    trials: int('BENCH_TRIALS', 200, { min: 1, max: 5_000 }),
    seconds: int('BENCH_SECONDS', 20, { min: 1, max: 90 }),
    stepMs: int('BENCH_STEP_MS', 250, { min: 10, max: 10_000 }),
    startStep: int('BENCH_START_STEP', 4, { min: 1, max: 100 }),
    stepsPerTrial: int('BENCH_STEPS_PER_TRIAL', 8, { min: 1, max: 1_000 }),
    breakEvery: int('BENCH_BREAK_EVERY', 4, { min: 1, max: 1_000 }),
    /** How far back the judge starts reading observations (the service's EARLY_STOPPING_LOOKBACK_MS). */
    lookbackMs: int('BENCH_LOOKBACK_MS', 60_000, { min: 0, max: 2 ** 52 }),
    serverEnv: str('BENCH_SERVER_ENV', '', 'NAME=value pairs separated by spaces'),
    /** A folder for the server's V8 CPU profile (node --cpu-prof); empty: no profile. */
    cpuProfileDir: str('BENCH_CPU_PROF_DIR', '', 'a folder path, or empty'),
  },
  process.env,
);
if (settings.stepsPerTrial < settings.startStep)
  throw new Error('BENCH_STEPS_PER_TRIAL must be at least BENCH_START_STEP: trials must reach the rule');

const run = randomBytes(3).toString('hex');
const experiment = `bench-es-${run}`;
const logger = createLogger({ name: 'bench-earlystop', level: 'warn' }, process.stderr as never);
const bus: Bus = createBus({
  brokers: settings.kafkaBrokers,
  clientId: 'bench-earlystop',
  client: settings.kafkaClient,
  logger,
});

// Succeeded curves whose first four values average 0.5, 0.6 and 0.7: the median rule is LESS 0.6.
const SUCCEEDED = [
  [0.2, 0.4, 0.6, 0.8],
  [0.3, 0.5, 0.7, 0.9],
  [0.4, 0.6, 0.8, 1],
];
/** The value a trial reports at `step` (1-based): best 0.5 at start_step breaks the rule, 0.7 does not. */
const valueAt = (breaks: boolean, step: number): number =>
  breaks ? Math.min(0.1 * (step + 1), 0.5) : step === 1 ? 0.7 : 0.5;

/** How many events experiment.observations holds from `sinceMs` on. */
async function eventsSince(sinceMs: number): Promise<number> {
  const topic = TOPICS.observations.name;
  const from = await bus.offsetsAtTime(topic, sinceMs);
  const ends = await bus.watermarks(topic);
  return ends.reduce((sum, end) => sum + Number(end.high - (from.get(end.partition) ?? end.high)), 0);
}

/** One trial name of the experiment per partition of experiment.observations. */
async function onePerPartition(prefix: string): Promise<string[]> {
  const partitions = (await bus.watermarks(TOPICS.observations.name)).length;
  const byPartition = new Map<number, string>();
  for (let i = 0; byPartition.size < partitions; i++) {
    const key = `${experiment}-${prefix}-${i}`;
    const partition = partitionOf(key, partitions);
    if (!byPartition.has(partition)) byPartition.set(partition, key);
  }
  return [...byPartition.values()];
}

interface Sighting {
  /** performance.now() when the watcher got the record. */
  readonly at: number;
  /** The event's occurred_at (the server's clock) as performance.now() of this process. */
  readonly publishedAt: number;
}

/**
 * Each stop event of the experiment by trial, with when it was first seen. Keyed by offset: a
 * consumer that restarts without committed offsets sees the same record again, which is not a
 * second event.
 */
async function watchStops() {
  const seen = new Map<string, Map<string, Sighting>>();
  const reader = await readTopic(bus, {
    topic: TOPICS.trialStatus.name,
    from: 'end',
    until: 'follow',
    maxWaitMs: 100,
    onEvent: (event) => {
      const at = performance.now();
      const key = event.key ?? '';
      if (!key.startsWith(`${experiment}-`)) return;
      if (event.eventType !== 'TrialStatusChanged' || event.payload.condition !== 'EARLYSTOPPED') return;
      const records = seen.get(key) ?? new Map();
      const record = `${event.partition}:${event.offset}`;
      if (!records.has(record))
        records.set(record, {
          at,
          publishedAt: event.payload.occurred_at.getTime() - performance.timeOrigin,
        });
      seen.set(key, records);
    },
  });
  await reader.joined;
  return { seen, stop: () => reader.stop() };
}

async function waitUntil(what: string, done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

const report = (db: DbManager, trial: string, value: number) =>
  db.report({
    trial_name: trial,
    observation_log: {
      metric_logs: [
        { time_stamp: new Date().toISOString(), metric: { name: 'accuracy', value: String(value) } },
      ],
    },
  });

/**
 * BENCH_TRIALS slots, each running trials one after another for BENCH_SECONDS, one report per step
 * at a steady pace (slots start at random phases); records when each breaking report was acked.
 */
async function load(db: DbManager) {
  const breakingAckedAt = new Map<string, number>();
  const keptRunning = new Set<string>();
  const ackMs: number[] = [];
  const started = performance.now();
  const until = started + settings.seconds * 1_000;
  await Promise.all(
    Array.from({ length: settings.trials }, async (_, slot) => {
      let tick = started + Math.random() * settings.stepMs;
      for (let n = 0; tick < until && performance.now() < until; n++) {
        const trial = `${experiment}-slot${slot}-${n}`;
        const breaks = (slot + n) % settings.breakEvery === 0;
        for (let step = 1; step <= settings.stepsPerTrial && performance.now() < until; step++) {
          await sleep(Math.max(0, tick - performance.now()));
          tick += settings.stepMs;
          const sent = performance.now();
          await report(db, trial, valueAt(breaks, step));
          const acked = performance.now();
          ackMs.push(acked - sent);
          if (step !== settings.startStep) continue;
          if (breaks) breakingAckedAt.set(trial, acked);
          else keptRunning.add(trial);
        }
      }
    }),
  );
  return { started, breakingAckedAt, keptRunning, ackMs, seconds: (performance.now() - started) / 1_000 };
}

/** CPU seconds (user + system) the process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in USER_HZ ticks
}

function peakMemoryMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

const print = (text: string): void => void process.stdout.write(`${text}\n`);
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const line = (label: string, values: number[]) =>
  `  ${label.padEnd(44)} p50 ${fmt(percentile(values, 50)).padStart(9)}   p99 ${fmt(percentile(values, 99)).padStart(9)}   max ${fmt(Math.max(...values)).padStart(9)}   (n=${values.length})`;

/** Reports the succeeded curves and asks for the rule, which every later report is judged by. */
async function issueRule(db: DbManager, es: EarlyStopping) {
  const succeeded = SUCCEEDED.map((_, i) => `${experiment}-succeeded-${i}`);
  for (const [i, curve] of SUCCEEDED.entries())
    for (const value of curve) await report(db, succeeded[i]!, value);
  const { early_stopping_rules: rules } = await es.rules({
    experiment: {
      name: experiment,
      spec: {
        objective: { type: 'MAXIMIZE', objective_metric_name: 'accuracy' },
        early_stopping: {
          algorithm_name: 'medianstop',
          algorithm_settings: [{ name: 'start_step', value: String(settings.startStep) }],
        },
      },
    },
    trials: succeeded.map((name) => ({ name, status: { condition: 'SUCCEEDED' } })),
  });
  if (!rules[0]) throw new Error('GetEarlyStoppingRules issued no rule');
  return rules[0];
}

type Stops = Awaited<ReturnType<typeof watchStops>>;

/** The judge has read the history of every partition once a breaking trial on each is stopped. */
async function warmUp(db: DbManager, stops: Stops): Promise<string[]> {
  const trials = await onePerPartition('warm-up');
  await Promise.all(
    trials.map(async (trial) => {
      for (let step = 1; step <= settings.startStep; step++) await report(db, trial, valueAt(true, step));
    }),
  );
  await waitUntil('the warm-up trials to be stopped', () => trials.every((t) => stops.seen.has(t)), 90_000);
  return trials;
}

function printStops(result: Awaited<ReturnType<typeof load>>, stops: Stops, warmUpTrials: string[]) {
  const expected = [...result.breakingAckedAt.keys()];
  const mine = [...stops.seen.entries()].filter(([trial]) => !warmUpTrials.includes(trial));
  const sightings = expected.flatMap((trial) => {
    const first = [...(stops.seen.get(trial)?.values() ?? [])].sort((a, b) => a.at - b.at)[0];
    return first ? [{ ...first, ackedAt: result.breakingAckedAt.get(trial)! }] : [];
  });
  print(
    line(
      'breaking report acked → TrialStatusChanged seen',
      sightings.map((s) => s.at - s.ackedAt),
    ),
  );
  print(
    line(
      '  of which: acked → decided (its occurred_at)',
      sightings.map((s) => s.publishedAt - s.ackedAt),
    ),
  );
  print(
    line(
      '  of which: decided → seen on the topic',
      sightings.map((s) => s.at - s.publishedAt),
    ),
  );
  const worst = new Map<number, number>();
  for (const s of sightings) {
    const window = Math.floor((s.ackedAt - result.started) / 5_000);
    worst.set(window, Math.max(worst.get(window) ?? 0, s.at - s.ackedAt));
  }
  const byWindow = [...worst.entries()].sort(([a], [b]) => a - b).map(([, ms]) => fmt(ms));
  print(`  worst delay in each 5 s of the load: ${byWindow.join(', ')}`);
  const twice = mine.filter(([, records]) => records.size > 1);
  const unexpected = mine.filter(([trial]) => !result.breakingAckedAt.has(trial));
  print(
    `  stops: expected ${expected.length}, seen ${sightings.length}, missing ${expected.length - sightings.length}, ` +
      `stopped twice ${twice.length}, stopped without breaking the rule ${unexpected.length} ` +
      `(${result.keptRunning.size} trials stayed above it at step ${settings.startStep})`,
  );
  for (const [trial, records] of twice.slice(0, 5))
    print(`    twice: ${trial} at ${[...records.keys()].join(' and ')} (partition:offset), same event_id`);
}

const dir = await mkdtemp(join(tmpdir(), 'bench-earlystop-'));
try {
  print(
    `Early-stopping benchmark: ${settings.trials} trials reporting one value every ${settings.stepMs} ms ` +
      `for ${settings.seconds} s, ${settings.stepsPerTrial} steps a trial, every ${settings.breakEvery}th ` +
      `trial breaking the rule at step ${settings.startStep}`,
  );
  const history = await eventsSince(Date.now() - settings.lookbackMs);
  const workerGroup = `bench-earlystop-worker-${run}`;
  const stops = await watchStops();
  const serverStarted = performance.now();
  const server = await startExperimentServer({
    KAFKA_BROKERS: settings.kafkaBrokers.join(','),
    OBSERVATION_STORE: 'sqlite',
    SQLITE_FILE: join(dir, 'observations.db'),
    PERSISTENCE_GROUP: `bench-earlystop-persistence-${run}`, // the helper starts it at the topics' end
    EARLY_STOPPING_GROUP: workerGroup,
    EARLY_STOPPING_LOOKBACK_MS: String(settings.lookbackMs),
    WORKER_SESSION_TIMEOUT_MS: '6000',
    READ_BARRIER_TIMEOUT_MS: '30000',
    ...(settings.cpuProfileDir && {
      NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${settings.cpuProfileDir}`,
    }),
    ...serverEnvOf(settings.serverEnv),
  });
  const db = createDbManagerClient(server.address);
  const es = createEarlyStoppingClient(server.address);
  try {
    const rule = await issueRule(db, es);
    print(`  rule: ${rule.name} ${rule.comparison} ${rule.value} at step ${rule.start_step}`);
    const warmUpTrials = await warmUp(db, stops);
    const caughtUpS = (performance.now() - serverStarted) / 1_000;
    print(
      `  judge caught up ${caughtUpS.toFixed(1)} s after start, having re-read ${history} observation ` +
        `events of the last ${settings.lookbackMs} ms`,
    );

    const cpuBefore = cpuSeconds(server.pid);
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const result = await load(db);
    loopDelay.disable();
    const serverCpu = cpuSeconds(server.pid) - cpuBefore;
    const expected = [...result.breakingAckedAt.keys()];
    await waitUntil('every expected stop', () => expected.every((t) => stops.seen.has(t)), 15_000).catch(
      (error: Error) => print(`  ${error.message}`),
    );
    const calls = result.ackMs.length;
    print(
      `  load: ${(calls / result.seconds).toFixed(0)} reports/s acknowledged (${calls} calls in ` +
        `${result.seconds.toFixed(1)} s); server CPU ${serverCpu.toFixed(1)} s ` +
        `(${((serverCpu * 1_000) / calls).toFixed(2)} ms a report); this process's event-loop delay ` +
        `p99 ${fmt(loopDelay.percentile(99) / 1e6)}`,
    );
    print(line('ReportObservationLog ack', result.ackMs));
    // A late duplicate or a wrong stop would have arrived by now: the last expected stop came after them.
    printStops(result, stops, warmUpTrials);
    print(`  server peak memory (VmHWM): ${peakMemoryMiB(server.pid).toFixed(0)} MiB`);
  } finally {
    db.close();
    es.close();
    await server.stop();
    await stops.stop();
  }
  if (settings.cpuProfileDir) print(`  server CPU profile written under ${settings.cpuProfileDir}`);
} finally {
  await bus.close();
  await rm(dir, { recursive: true, force: true });
}
