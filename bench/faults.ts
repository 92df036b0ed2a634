// How fast the services notice a lost dependency and serve again after it returns: the scenarios
// the fault tests assert the behaviour of (test/helpers/faults), run on the bench's own servers and
// a three-broker Kafka, their figures printed beside the goals of ARCHITECTURE.md ("a lost
// dependency is an answer, not a wait: UNAVAILABLE within a second …; serving again within a second
// of its return"). `npm run bench:faults`; BENCH_FAULTS picks scenarios, BENCH_ROUNDS repeats them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { int, list, readSettings, str } from '../shared/settings.ts';
import { type ExperimentServer, startExperimentServer } from '../test/helpers/experiment-server.ts';
import { coldStart } from '../test/helpers/faults/cold-start.ts';
import {
  CALLS_NEEDING_KAFKA,
  hangEveryBroker,
  killBusiestBroker,
  publishObservationBacklog,
  startSuggestionOnly,
} from '../test/helpers/faults/experiment-kafka.ts';
import { losePostgres, startStoreLossRig } from '../test/helpers/faults/experiment-store.ts';
import {
  loseEveryBrokerUnderDecisions,
  publishWithBrokerDown,
  startConfigFeedRig,
} from '../test/helpers/faults/ratelimit-config-feed.ts';
import { HOUR_CONFIG, stopRedisUnderDecisions } from '../test/helpers/faults/ratelimit-redis.ts';
import { uniqueName } from '../test/helpers/kafka.ts';
import {
  CLUSTER_NODES,
  type KafkaCluster,
  startKafkaCluster,
  stopKafkaCluster,
} from '../test/helpers/kafka-cluster.ts';
import { createKatibCalls } from '../test/helpers/katib-calls.ts';
import { createRuntimeFolder } from '../test/helpers/ratelimit-runtime.ts';

const SCENARIOS = [
  'kafka-hung',
  'broker-killed',
  'suggestion-backlog',
  'postgres-lost',
  'redis-stopped',
  'config-feed',
  'cold-start',
] as const;
type Scenario = (typeof SCENARIOS)[number];

const settings = readSettings(
  {
    scenarios: list('BENCH_FAULTS', SCENARIOS, {
      allowed: `comma-separated, any of ${SCENARIOS.join(', ')}`,
      valid: (name) => SCENARIOS.includes(name as Scenario),
    }),
    rounds: int('BENCH_ROUNDS', 1, { min: 1, max: 10 }),
    coldStarts: int('BENCH_COLD_STARTS', 20, { min: 1, max: 100 }),
    kafkaBrokers: str('KAFKA_BROKERS', '127.0.0.1:29092'),
    postgresUrl: str('POSTGRES_URL', 'postgres://backbone:backbone@127.0.0.1:25432/backbone'),
    redisUrl: str('REDIS_URL', '127.0.0.1:26379'),
  },
  process.env,
);
const wanted = (name: Scenario) => settings.scenarios.includes(name);
const needsCluster = ['kafka-hung', 'broker-killed', 'suggestion-backlog', 'config-feed'].some((s) =>
  wanted(s as Scenario),
);

interface Row {
  readonly scenario: string;
  readonly figure: string;
  readonly values: number[];
  /** The goal, in the figure's unit, or undefined when the figure is only reported. */
  readonly goal: number | undefined;
  readonly unit: 'ms' | 's' | '';
}
const rows = new Map<string, Row>();
const record = (scenario: string, figure: string, value: number, goal?: number, unit: Row['unit'] = 'ms') => {
  const key = `${scenario}\u0000${figure}`;
  const row = rows.get(key) ?? { scenario, figure, values: [], goal, unit };
  row.values.push(value);
  rows.set(key, row);
};
const note = (line: string) => process.stderr.write(`[bench:faults] ${line}\n`);

async function onCluster(cluster: KafkaCluster): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-faults-'));
  let server: ExperimentServer | undefined;
  try {
    if (wanted('kafka-hung') || wanted('broker-killed')) {
      server = await startExperimentServer(
        {
          KAFKA_BROKERS: cluster.brokers,
          OBSERVATION_STORE: 'sqlite',
          SQLITE_FILE: join(dir, 'observations.db'),
          PERSISTENCE_GROUP: uniqueName('bench-faults-persistence'),
          EXPERIMENT_HTTP: 'false',
          EARLY_STOPPING_WORKER: 'false',
        },
        { readyTimeoutMs: 120_000 },
      );
      const katib = createKatibCalls(server.address);
      try {
        if (wanted('broker-killed')) {
          note('broker-killed: 50 reporters, the busiest broker SIGKILLed for 10 s');
          const run = await killBusiestBroker(cluster, katib);
          const s = 'experiment: a broker SIGKILLed under 50 reporters';
          record(s, 'acknowledged logs lost', run.lost, 0, '');
          record(s, 'logs stored twice', run.doubled, 0, '');
          record(s, 'calls refused', run.refused.length, undefined, '');
          record(s, 'last refusal after the kill', run.window?.lastMs ?? 0);
          record(s, 'replicas back in sync after the kill', run.backInSyncMs / 1000, undefined, 's');
          record(s, 'every reporter acknowledged again after that', run.everyReporterOkMs, 1_000);
          if (run.missingReport) note(run.missingReport);
        }
        if (wanted('kafka-hung')) {
          note('kafka-hung: every broker SIGSTOPped, then resumed');
          const run = await hangEveryBroker(cluster, katib);
          const s = 'experiment: every broker hung';
          const called = (o: { code: string }) => (o.code === 'UNAVAILABLE' ? o.code : `${o.code} (!)`);
          for (const [i, o] of run.underWay.entries())
            record(s, `${CALLS_NEEDING_KAFKA[i]} made at the hang: ${called(o)}`, o.ms, 1_000);
          for (const [i, o] of run.whileLost.entries())
            record(s, `${CALLS_NEEDING_KAFKA[i]} made 1.5 s in: ${called(o)}`, o.ms, 1_000);
          record(s, `ValidateAlgorithmSettings meanwhile: ${run.validate.code}`, run.validate.ms);
          record(s, 'first acknowledged report after the return', run.firstOkMs, 1_000);
        }
      } finally {
        katib.close();
        await server.stop();
        server = undefined;
      }
    }
    if (wanted('suggestion-backlog')) {
      note('suggestion-backlog: a suggestion-only instance beside 10,000 events of 100 logs');
      await publishObservationBacklog(cluster, 10_000);
      const control = await startSuggestionOnly(settings.kafkaBrokers);
      const beside = await startSuggestionOnly(cluster.brokers);
      const s = 'experiment: suggestion-only beside 1M logs';
      record(s, 'SERVING after its start', beside.startMs, 2_000);
      record(s, 'SERVING after its start, control (no backlog)', control.startMs);
      record(s, 'first GetSuggestions (tpe, 10 trials)', beside.first.ms, 3 * control.first.ms + 100);
      record(s, 'first GetSuggestions, control', control.first.ms);
      record(s, 'GetSuggestions p50 after it', beside.p50Ms);
    }
    if (wanted('config-feed')) {
      note('config-feed: a ratelimit publisher and follower; a broker killed, then every broker hung 8 s');
      const rig = await startConfigFeedRig(cluster, settings.redisUrl);
      try {
        const s = 'ratelimit: configuration feed on three brokers';
        const published = await publishWithBrokerDown(rig, cluster, 200);
        record(s, 'a change applied by the follower, one broker down', published.appliedMs);
        const lost = await loseEveryBrokerUnderDecisions(rig, cluster, { pauseMs: 8_000 });
        record(s, 'health NOT_SERVING after every broker hung', lost.noticedMs, 1_000);
        record(s, 'decisions meanwhile: failed', lost.decisions.failures.length, 0, '');
        record(s, 'decisions meanwhile: p99', lost.decisions.p99);
        record(s, 'decisions meanwhile: max', lost.decisions.max);
        record(s, 'SERVING again after the return', lost.servingMs, 1_000);
        record(s, 'a change published after the return applied', lost.convergedMs);
      } finally {
        await rig.close();
      }
    }
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function onSingleServers(): Promise<void> {
  if (wanted('postgres-lost')) {
    note('postgres-lost: PostgreSQL cut behind a proxy, then restored');
    const rig = await startStoreLossRig({
      KAFKA_BROKERS: settings.kafkaBrokers,
      POSTGRES_URL: settings.postgresUrl,
    });
    try {
      const run = await losePostgres(rig);
      const s = 'experiment: PostgreSQL lost';
      record(s, `report meanwhile: ${run.acked.code}`, run.acked.ms);
      record(s, `first read after the cut: ${run.refused.code}`, run.refused.ms, 1_000);
      record(s, `next read: ${run.later.code}`, run.later.ms, 1_000);
      record(s, 'first read OK after the return', run.backMs, 1_000);
    } finally {
      await rig.close();
    }
  }
  if (wanted('redis-stopped')) {
    note('redis-stopped: a single Redis stopped for 6 s under a decision loop');
    const runtime = await createRuntimeFolder({ 'topo.yaml': HOUR_CONFIG });
    try {
      const run = await stopRedisUnderDecisions({
        RUNTIME_ROOT: runtime.root,
        RUNTIME_SUBDIRECTORY: runtime.subdirectory,
      });
      const s = 'ratelimit: Redis stopped 6 s';
      record(s, 'errors answered while down', run.errorsWhileDown, undefined, '');
      record(s, 'first OK after Redis answered', run.firstOkMs, 500);
      record(s, 'errors after the first OK', run.errorsAfterFirstOk.length, 0, '');
    } finally {
      await runtime.cleanup();
    }
  }
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
};
const shown = (value: number, unit: Row['unit']) =>
  Number.isNaN(value)
    ? 'none (!)'
    : unit === ''
      ? String(value)
      : `${value.toFixed(unit === 's' ? 1 : 0)} ${unit}`;

function printTable(): void {
  const lines = [
    `faults, ${settings.rounds} round(s), medians (whole range in brackets); this machine: ${new Date().toISOString()}`,
    '',
    '| scenario | figure | measured | goal | verdict |',
    '|---|---|---|---|---|',
  ];
  for (const row of rows.values()) {
    const value = median(row.values);
    const range =
      row.values.length > 1
        ? ` [${shown(Math.min(...row.values), row.unit)}–${shown(Math.max(...row.values), row.unit)}]`
        : '';
    const verdict =
      row.goal === undefined
        ? ''
        : Number.isNaN(value) || value > row.goal
          ? `MISSED ×${(value / Math.max(row.goal, 1)).toFixed(1)}`
          : 'ok';
    lines.push(
      `| ${row.scenario} | ${row.figure} | ${shown(value, row.unit)}${range} | ${row.goal === undefined ? '-' : `≤ ${shown(row.goal, row.unit)}`} | ${verdict} |`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

let cluster: KafkaCluster | undefined;
/**
 * The experiment service started beside a broker that has never seen it, BENCH_COLD_STARTS times
 * (issue 39's goal: 20 of 20 reach SERVING by themselves, and a report is read back).
 */
async function coldStarts(): Promise<void> {
  const s = 'cold start beside a new broker';
  let serving = 0;
  let readBack = 0;
  const retried = new Map<string, number>();
  for (let i = 1; i <= settings.coldStarts; i++) {
    const run = await coldStart();
    note(
      `cold start ${i}: ${run.serving ? `SERVING after ${Math.round(run.servingMs)} ms` : `never SERVING: ${run.output.slice(-300)}`}; tried again: ${run.retried.join(', ') || 'nothing'}`,
    );
    if (run.serving) {
      serving++;
      record(s, 'SERVING after the start', run.servingMs);
    }
    if (run.reportReadBack) readBack++;
    for (const what of new Set(run.retried)) retried.set(what, (retried.get(what) ?? 0) + 1);
  }
  record(
    s,
    `starts that never reached SERVING (of ${settings.coldStarts})`,
    settings.coldStarts - serving,
    0,
    '',
  );
  record(
    s,
    `starts whose report was not read back (of ${settings.coldStarts})`,
    settings.coldStarts - readBack,
    0,
    '',
  );
  for (const [what, count] of retried) record(s, `starts that tried ${what} again`, count, undefined, '');
}

try {
  if (needsCluster) cluster = startKafkaCluster();
  for (let round = 1; round <= settings.rounds; round++) {
    note(`round ${round} of ${settings.rounds}`);
    if (cluster) await onCluster(cluster);
    await onSingleServers();
    if (wanted('cold-start')) await coldStarts();
  }
  printTable();
} finally {
  if (cluster) {
    for (const node of CLUSTER_NODES) {
      try {
        cluster.resume(node);
      } catch {}
    }
    await cluster.close();
    stopKafkaCluster();
  }
}
