// The web page under load, in Debian's headless chromium against the real experiment server on real
// Kafka: a two-objective experiment of 10,000 trials with a trial of 1,000,000 points, then one of
// 500 trials and 100,000 points (BENCH_TRIALS and BENCH_POINTS run one case of their own). Each
// figure is the median of BENCH_ROUNDS rounds (./web-rounds.ts), printed beside its goal; beside each
// longest task, the CPU time of the longest task by CPU (from a Chrome trace), which a busy machine
// inflates less. The server's answers for the objective views (front, importance: its first call
// grows the forests, the next one finds them kept) are timed once before the rounds.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import puppeteer from 'puppeteer-core';
import { kafkaSettings } from '../shared/bus/kafka-settings.ts';
import { bool, int, oneOf, readSettings, str } from '../shared/settings.ts';
import { startExperimentServer } from '../test/helpers/experiment-server.ts';
import { gatewayCall } from '../test/helpers/web-page.ts';
import { type Round, runRound } from './web-rounds.ts';

const settings = readSettings(
  {
    ...kafkaSettings,
    /** 0: the two standard cases. */
    trials: int('BENCH_TRIALS', 0, { min: 0, max: 10_000 }),
    points: int('BENCH_POINTS', 0, { min: 0, max: 2_000_000 }),
    burst: int('BENCH_LIVE_POINTS', 1_000, { min: 1, max: 100_000 }),
    rounds: int('BENCH_ROUNDS', 3, { min: 1, max: 9 }),
    store: oneOf('BENCH_STORE', ['sqlite', 'postgres'], 'sqlite'),
    postgresUrl: str('POSTGRES_URL', 'postgres://backbone:backbone@127.0.0.1:5432/backbone'),
    /** The CPU time column, from a Chrome trace of each step (false: wall times without its overhead). */
    cpuTrace: bool('BENCH_CPU_TRACE', true),
  },
  process.env,
);
const cases =
  settings.trials > 0 || settings.points > 0
    ? [{ trials: settings.trials || 500, points: settings.points || 100_000 }]
    : [
        { trials: 10_000, points: 1_000_000 },
        { trials: 500, points: 100_000 },
      ];
const say = (line: string) => process.stdout.write(`${line}\n`);
const run = randomBytes(3).toString('hex');
const dir = await mkdtemp(join(tmpdir(), 'bench-web-'));
const server = await startExperimentServer({
  KAFKA_BROKERS: settings.kafkaBrokers.join(','),
  OBSERVATION_STORE: settings.store,
  ...(settings.store === 'sqlite'
    ? { SQLITE_FILE: join(dir, 'observations.db') }
    : { POSTGRES_URL: settings.postgresUrl, POSTGRES_SCHEMA: `bench_web_${run}` }),
  PERSISTENCE_GROUP: `bench-web-${run}`,
  EARLY_STOPPING_WORKER: 'false',
});
const base = `http://127.0.0.1:${server.httpPort}`;

async function post(method: string, body: unknown): Promise<void> {
  const { status, text } = await gatewayCall(base, method, body);
  if (status !== 200) throw new Error(`${method}: ${status} ${text}`);
}
const getJson = async (path: string) => (await fetch(`${base}${path}`)).json();
const waitUntil = async (what: () => Promise<boolean>) => {
  while (!(await what())) await new Promise((r) => setTimeout(r, 500));
};
/** Runs `work(i)` for i in [0, n), `width` at a time. */
async function inParallel(n: number, width: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

const stamp = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');
const t0 = Date.UTC(2026, 0, 1);

/**
 * An experiment of `trials` trials with two objectives (accuracy up, latency down: nsga2's
 * objectives setting), a value of each per trial, and a first trial of `points` points.
 */
async function setUp(experiment: string, trials: number, points: number) {
  const trialName = (i: number) => `${experiment}-t${i}`;
  const started = performance.now();
  await post('Suggestion/GetSuggestions', {
    experiment: {
      name: experiment,
      spec: {
        parameterSpecs: {
          parameters: [
            { name: 'lr', parameterType: 'DOUBLE', feasibleSpace: { min: '0.001', max: '0.1' } },
            { name: 'layers', parameterType: 'INT', feasibleSpace: { min: '1', max: '8' } },
          ],
        },
        objective: {
          type: 'MAXIMIZE',
          objectiveMetricName: 'accuracy',
          additionalMetricNames: ['latency_ms'],
        },
        algorithm: {
          algorithmName: 'nsga2',
          algorithmSettings: [{ name: 'objectives', value: 'accuracy:maximize,latency_ms:minimize' }],
        },
      },
    },
    trials: Array.from({ length: trials }, (_, i) => ({
      name: trialName(i),
      spec: {
        parameterAssignments: {
          assignments: [
            { name: 'lr', value: String(0.001 + Math.random() * 0.099) },
            { name: 'layers', value: String(1 + Math.floor(Math.random() * 8)) },
          ],
        },
      },
      status: { condition: i % 17 === 3 ? 'EARLYSTOPPED' : 'SUCCEEDED' },
    })),
    currentRequestNumber: 1,
    totalRequestNumber: trials + 1,
  });
  await inParallel(trials, 20, (i) =>
    post('DBManager/ReportObservationLog', {
      trialName: trialName(i),
      observationLog: {
        metricLogs: [
          { timeStamp: stamp(t0 + i * 1000), metric: { name: 'accuracy', value: String(Math.random()) } },
          {
            timeStamp: stamp(t0 + i * 1000),
            metric: { name: 'latency_ms', value: String(10 + 90 * Math.random()) },
          },
        ],
      },
    }),
  );
  // The long trial: its points in reports of 10,000.
  const long = trialName(0);
  await inParallel(Math.ceil(points / 10_000), 2, (k) =>
    post('DBManager/ReportObservationLog', {
      trialName: long,
      observationLog: {
        metricLogs: Array.from({ length: Math.min(10_000, points - k * 10_000) }, (_, j) => {
          const i = k * 10_000 + j;
          return {
            timeStamp: stamp(t0 + i * 10),
            metric: { name: 'loss', value: String(Math.exp(-i / points) + Math.random() * 0.05) },
          };
        }),
      },
    }),
  );
  // Until the store has them all.
  await waitUntil(async () => {
    const { curves } = await getJson(`/api/trials/${long}/curves?metric=loss&columns=1`);
    return (curves?.[0]?.points ?? 0) >= points;
  });
  await waitUntil(async () => {
    const { best } = await getJson(`/api/experiments/${experiment}/summary`);
    return best?.filter((b: number | null) => b !== null).length === trials;
  });
  await waitUntil(
    async () => (await getJson(`/api/experiments/${experiment}/pareto`)).trials?.length === trials,
  );
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  say(`set up ${trials} trials and ${points} points through the gateway and Kafka in ${seconds} s`);
  let sent = points;
  const report = async (n: number) => {
    const from = sent;
    sent += n;
    await post('DBManager/ReportObservationLog', {
      trialName: long,
      observationLog: {
        metricLogs: Array.from({ length: n }, (_, j) => ({
          timeStamp: stamp(t0 + (from + j) * 10),
          metric: { name: 'loss', value: '0.01' },
        })),
      },
    });
  };
  return { long, report };
}

/** The server's time for each objective view's answer (fetch and parse), importance twice. */
async function objectiveAnswers(experiment: string): Promise<void> {
  const timedGet = async (path: string) => {
    const started = performance.now();
    await getJson(path);
    return performance.now() - started;
  };
  const front = await timedGet(`/api/experiments/${experiment}/pareto`);
  const grown = await timedGet(`/api/experiments/${experiment}/importance`);
  const kept = await timedGet(`/api/experiments/${experiment}/importance`);
  say(
    `server: /pareto ${ms(front)}; /importance ${ms(grown)} growing the forests, ${ms(kept)} with them kept`,
  );
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (v: number) => `${Math.round(v).toLocaleString('en-US')} ms`;

function table(trials: number, points: number, rounds: Round[]): void {
  type Row = [string, (r: Round) => number, number | undefined, ((r: Round) => number)?];
  const rows: Row[] = [
    [`experiment page, ${trials.toLocaleString('en-US')} trials: shown`, (r) => r.experimentMs, 1_000],
    ['its longest main-thread task', (r) => r.experimentLongest, 100, (r) => r.experimentCpu],
    ['sorting the trials table by objective', (r) => r.sortMs, 100],
    ['its longest main-thread task', (r) => r.sortLongest, 100, (r) => r.sortCpu],
    ['hiding a parallel axis', (r) => r.axisMs, 1_000],
    ['its longest main-thread task', (r) => r.axisLongest, 100, (r) => r.axisCpu],
    ['the slices of the other objective', (r) => r.sliceMs, 1_000],
    ['its longest main-thread task', (r) => r.sliceLongest, 100, (r) => r.sliceCpu],
    [`trial page, ${points.toLocaleString('en-US')} points: shown`, (r) => r.trialMs, 1_000],
    ['its longest main-thread task', (r) => r.trialLongest, 100, (r) => r.trialCpu],
    ['zooming into a tenth of the curve (fetch and draw)', (r) => r.zoomMs, undefined],
    [
      `${settings.burst.toLocaleString('en-US')} new points on the open chart after the report`,
      (r) => r.liveMs,
      200,
    ],
    ['its longest main-thread task', (r) => r.liveLongest, 100, (r) => r.liveCpu],
  ];
  say('');
  say(`| | median of ${rounds.length} | rounds | goal | | CPU time of the longest task (median) |`);
  say('|---|---|---|---|---|---|');
  for (const [label, of, goal, cpu] of rows) {
    const values = rounds.map(of);
    const m = median(values);
    const verdict = goal === undefined ? '' : m <= goal ? 'met' : '**missed**';
    const cpuText = cpu && settings.cpuTrace ? ms(median(rounds.map(cpu))) : '';
    say(
      `| ${label} | ${ms(m)} | ${values.map((v) => Math.round(v)).join(', ')} | ${goal === undefined ? '—' : `≤ ${ms(goal)}`} | ${verdict} | ${cpuText} |`,
    );
  }
  const last = rounds.at(-1)!;
  say('');
  say(`experiment page: ${last.rows} rows shown; where its time went (last round): ${last.experimentParts}`);
  say(
    `trial page: ${last.pointsDrawn} points drawn for ${points.toLocaleString('en-US')}; ${last.trialParts}`,
  );
}

try {
  say(
    `store ${settings.store}; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const browser = await puppeteer.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox'],
  });
  try {
    for (const [k, c] of cases.entries()) {
      const experiment = `bench-web-${run}-${k}`;
      const { long, report } = await setUp(experiment, c.trials, c.points);
      await objectiveAnswers(experiment);
      const rounds: Round[] = [];
      for (let i = 0; i < settings.rounds; i++)
        rounds.push(
          await runRound({
            browser,
            base,
            experiment,
            longTrial: long,
            report,
            burst: settings.burst,
            trace: settings.cpuTrace,
          }),
        );
      table(c.trials, c.points, rounds);
      say(
        `load average after the rounds ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
      );
      say('');
    }
  } finally {
    await browser.close();
  }
} finally {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
  if (settings.store === 'postgres') {
    // The bench's schema goes with it, as its SQLite file does.
    const client = new pg.Client({ connectionString: settings.postgresUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(`bench_web_${run}`)} CASCADE`);
    await client.end();
  }
}
