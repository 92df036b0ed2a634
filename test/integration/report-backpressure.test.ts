// Back-pressure: while the persistence consumer cannot apply (a lock held on the logs' table, the
// store itself answering), a report acknowledged longer ago than REPORT_LAG_BUDGET_MS makes the next
// report wait before it is published; it goes as soon as the consumer catches up, and nothing is lost.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ExperimentServer, startExperimentServer } from '../helpers/experiment-server.ts';
import { uniqueName } from '../helpers/kafka.ts';
import { createKatibCalls, type KatibCalls } from '../helpers/katib-calls.ts';

const infra = inject('infra');
const schema = uniqueName('backpressure').replace(/-/g, '_');
let server: ExperimentServer;
let katib: KatibCalls;
let locker: pg.Client;
const say = (line: string) => process.stdout.write(`[report-backpressure] ${line}\n`);

const report = (trial: string, step: number) =>
  katib.call(
    'DBManager',
    'ReportObservationLog',
    {
      trial_name: trial,
      observation_log: {
        metric_logs: [
          {
            time_stamp: new Date(Date.UTC(2026, 0, 1) + step * 1_000).toISOString(),
            metric: { name: 'loss', value: String(step) },
          },
        ],
      },
    },
    20_000,
  );
const values = async (trial: string) => {
  const answer = await katib.call<{ observation_log: { metric_logs: { metric: { value: string } }[] } }>(
    'DBManager',
    'GetObservationLog',
    { trial_name: trial },
    20_000,
  );
  expect(answer.code).toBe('OK');
  return answer.reply!.observation_log.metric_logs.map((l) => Number(l.metric.value));
};
const delayedReports = async (outcome: string): Promise<number> => {
  const text = await (await fetch(`http://127.0.0.1:${server.metricsPort}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('experiment_reports_delayed_total{') && l.includes(`outcome="${outcome}"`));
  return line ? Number(line.split(' ').at(-1)) : 0;
};

beforeAll(async () => {
  server = await startExperimentServer({
    KAFKA_BROKERS: infra.KAFKA_BROKERS,
    OBSERVATION_STORE: 'postgres',
    POSTGRES_URL: infra.POSTGRES_URL,
    POSTGRES_SCHEMA: schema,
    PERSISTENCE_GROUP: uniqueName('backpressure-persistence'),
    EXPERIMENT_HTTP: 'false',
    EARLY_STOPPING_WORKER: 'false',
    REPORT_LAG_BUDGET_MS: '200',
    REPORT_LAG_MAX_WAIT_MS: '30000',
  });
  katib = createKatibCalls(server.address);
  locker = new pg.Client({ connectionString: infra.POSTGRES_URL });
  await locker.connect();
});

afterAll(async () => {
  await locker?.end().catch(() => undefined);
  katib?.close();
  await server?.stop();
});

describe('reports while the persistence consumer is behind', () => {
  it('wait until the consumer applied what was acknowledged before them, then go, losing nothing', async () => {
    const trial = uniqueName('held');
    expect((await report(trial, 1)).code).toBe('OK');
    expect(await values(trial)).toEqual([1]);

    // The consumer's next transaction waits on this lock: the store answers, slowly.
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE ${schema}.observation_logs IN ACCESS EXCLUSIVE MODE`);
    const unheld = await report(trial, 2);
    expect(unheld.code).toBe('OK');
    await sleep(400);
    let answeredAt = 0;
    const held = report(trial, 3).then((answer) => {
      answeredAt = performance.now();
      return answer;
    });
    await sleep(600);
    const stillHeld = answeredAt === 0;
    const releasedAt = performance.now();
    await locker.query('COMMIT');
    const answer = await held;
    say(
      `report before the budget ran out ${Math.round(unheld.ms)} ms; the next one answered ${answer.code} ` +
        `${Math.round(answeredAt - releasedAt)} ms after the lock was released (${Math.round(answer.ms)} ms in all)`,
    );
    expect(stillHeld).toBe(true);
    expect(answer.code).toBe('OK');
    expect(answer.ms).toBeGreaterThanOrEqual(600);
    expect(await values(trial)).toEqual([1, 2, 3]);
    expect(await delayedReports('caught_up')).toBe(1);
    expect(await delayedReports('max_wait')).toBe(0);
  });
});
