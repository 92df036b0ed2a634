import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServiceError, status } from '@grpc/grpc-js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { GetObservationLogReply__Output } from '../../proto/gen/api/v1/beta1/GetObservationLogReply.ts';
import type { MetricLog } from '../../proto/gen/api/v1/beta1/MetricLog.ts';
import {
  createDbManagerClient,
  type DbManager,
  type ExperimentServer,
  startExperimentServer,
  uncommittedEvents,
} from '../helpers/experiment-server.ts';
import { uniqueName } from '../helpers/kafka.ts';

const infra = inject('infra');
const dir = mkdtempSync(join(tmpdir(), 'dbmanager-test-'));
const schemas: string[] = [];

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  const client = new pg.Client({ connectionString: infra.POSTGRES_URL });
  await client.connect();
  try {
    for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(s)} CASCADE`);
  } finally {
    await client.end();
  }
});

/** A fresh store (own SQLite file or PostgreSQL schema) and a fresh persistence group. */
function settingsFor(
  store: 'sqlite' | 'postgres',
  extra: Record<string, string> = {},
): Record<string, string> {
  const schema = `test_dbmanager_${randomBytes(5).toString('hex')}`;
  if (store === 'postgres') schemas.push(schema);
  return {
    KAFKA_BROKERS: infra.KAFKA_BROKERS,
    PERSISTENCE_GROUP: uniqueName('test-dbmanager'),
    READ_BARRIER_TIMEOUT_MS: '30000',
    OBSERVATION_STORE: store,
    ...(store === 'sqlite'
      ? { SQLITE_FILE: join(dir, `${schema}.db`) }
      : { POSTGRES_URL: infra.POSTGRES_URL, POSTGRES_SCHEMA: schema }),
    ...extra,
  };
}

const log = (time_stamp: string, name: string, value: string) => ({ time_stamp, metric: { name, value } });
const row = (l: MetricLog): string[] => [l.time_stamp!, l.metric!.name!, l.metric!.value!];
const report = (client: DbManager, trial_name: string, metric_logs: MetricLog[]) =>
  client.report({ trial_name, observation_log: { metric_logs } });
const rows = (reply: GetObservationLogReply__Output): string[][] => {
  expect(reply.observation_log).not.toBeNull();
  return reply.observation_log!.metric_logs.map(row);
};
const rejection = (call: Promise<unknown>): Promise<ServiceError> =>
  call.then(
    () => Promise.reject(new Error('the call succeeded')),
    (e: unknown) => e as ServiceError,
  );

describe.each([['sqlite'], ['postgres']] as const)('DBManager on %s', (store) => {
  let server: ExperimentServer;
  let db: DbManager;
  const read = async (trial_name: string, filter: Record<string, string> = {}) =>
    rows(await db.get({ trial_name, ...filter }));

  beforeAll(async () => {
    server = await startExperimentServer(settingsFor(store));
    db = createDbManagerClient(server.address);
  });
  afterAll(async () => {
    db?.close();
    if (server) expect(await server.stop()).toBe(0);
  });

  it('reads back reports with Katib filters, order and time form', async () => {
    const trial = uniqueName('trial');
    await report(db, trial, [
      log('2019-02-03T04:05:06+09:00', 'loss', '0.5'),
      log('2019-02-02T19:05:06Z', 'f1_score', '88.95'),
      log('2016-12-31T20:02:05.123400Z', 'loss', '0.7'),
      log('2016-12-31T20:02:05.123456789Z', 'accuracy', 'unavailable'),
    ]);
    await report(db, trial, [
      log('2020-01-01T00:00:00Z', 'loss', '1e-5'),
      log('2019-02-02T19:05:06.000Z', 'loss', '0.4'),
      log('0001-01-01T00:00:00Z', 'loss', 'unavailable'),
    ]);
    const [first, l07, acc, l05, f1, l04, l03] = [
      ['0001-01-01T00:00:00Z', 'loss', 'unavailable'],
      ['2016-12-31T20:02:05.1234Z', 'loss', '0.7'],
      ['2016-12-31T20:02:05.123456Z', 'accuracy', 'unavailable'],
      ['2019-02-02T19:05:06Z', 'loss', '0.5'],
      ['2019-02-02T19:05:06Z', 'f1_score', '88.95'],
      ['2019-02-02T19:05:06Z', 'loss', '0.4'],
      ['2020-01-01T00:00:00Z', 'loss', '1e-5'],
    ];
    expect(await read(trial)).toEqual([first, l07, acc, l05, f1, l04, l03]);
    expect(await read(trial, { metric_name: 'loss' })).toEqual([first, l07, l05, l04, l03]);
    expect(await read(trial, { metric_name: 'precision' })).toEqual([]);
    expect(await read(trial, { start_time: '2019-02-03T04:05:06+09:00' })).toEqual([l05, f1, l04, l03]);
    expect(await read(trial, { end_time: '2019-02-02T19:05:06Z' })).toEqual([first, l07, acc, l05, f1, l04]);
    const range = { start_time: '2016-12-31T20:02:05.123456Z', end_time: '2019-02-02T19:05:06Z' };
    expect(await read(trial, range)).toEqual([acc, l05, f1, l04]);
    const exact = { start_time: '2016-12-31T20:02:05.1234Z', end_time: '2016-12-31T20:02:05.1234Z' };
    expect(await read(trial, exact)).toEqual([l07]);
    const window = { start_time: '2016-01-01T00:00:00Z', end_time: '2019-12-31T23:59:59+01:00' };
    expect(await read(trial, { metric_name: 'loss', ...window })).toEqual([l07, l05, l04]);
    const unknown = await db.get({ trial_name: uniqueName('unknown-trial') });
    expect(unknown).toEqual({ observation_log: { metric_logs: [] } });
  });

  it('deletes, then keeps only what is reported after the delete (duplicates kept)', async () => {
    const trial = uniqueName('trial');
    await report(db, trial, [log('2021-01-01T00:00:00Z', 'a', '1')]);
    await db.delete({ trial_name: trial });
    expect(await read(trial)).toEqual([]);
    await report(db, trial, [log('2021-01-02T00:00:00Z', 'a', '2')]);
    await report(db, trial, [log('2021-01-02T00:00:00Z', 'a', '2')]);
    expect(await read(trial)).toEqual([
      ['2021-01-02T00:00:00Z', 'a', '2'],
      ['2021-01-02T00:00:00Z', 'a', '2'],
    ]);
    await db.delete({ trial_name: uniqueName('never-reported') });
  });

  it('accepts 20,000 metric logs in one call and reads them back complete', async () => {
    const trial = uniqueName('trial');
    const base = Date.UTC(2022, 0, 1);
    const times = Array.from({ length: 20_000 }, (_, i) => new Date(base + i * 1_500).toISOString());
    const name = (i: number) => (i % 2 ? 'loss' : 'accuracy');
    await report(
      db,
      trial,
      times.map((t, i) => log(t, name(i), String(i))),
    );
    const back = await read(trial);
    expect(back).toHaveLength(20_000);
    expect(back).toEqual(times.map((t, i) => [t.replace(/\.?0*Z$/, 'Z'), name(i), String(i)]));
  });

  it('refuses a report over EXPERIMENT_GRPC_MAX_MESSAGE_BYTES (16 MiB) with RESOURCE_EXHAUSTED, writing nothing', async () => {
    const trial = uniqueName('trial');
    const entry = log('2021-03-04T05:06:07Z', 'loss', '0.123456789');
    // ~45 bytes a log on the wire: 400,000 logs are over 16 MiB.
    const error = await rejection(
      report(
        db,
        trial,
        Array.from({ length: 400_000 }, () => entry),
      ),
    );
    expect(error.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(error.details).toMatch(/^Received message larger than max \(\d+ vs 16777216\)$/);
    expect(await read(trial)).toEqual([]);
  });

  it('rejects bad input with INVALID_ARGUMENT naming field and value, writing nothing', async () => {
    const trial = uniqueName('trial');
    const good = log('2021-03-04T05:06:07Z', 'loss', '0.1');
    await report(db, trial, [good]);
    const before = await read(trial);
    const bad = (entry: MetricLog) => report(db, trial, [good, entry, good]);
    const cases: Array<[string, Promise<unknown>, ...string[]]> = [
      ['report without trial', db.report({ observation_log: { metric_logs: [good] } }), 'trial_name'],
      ['get without trial', db.get({ trial_name: '' }), 'trial_name'],
      ['delete without trial', db.delete({ trial_name: '' }), 'trial_name'],
      ['no observation_log', db.report({ trial_name: trial }), 'observation_log', 'missing'],
      ['no metric_logs', db.report({ trial_name: trial, observation_log: {} }), 'metric_logs', 'empty'],
      ['empty time', bad({ ...good, time_stamp: '' }), 'metric_logs[1].time_stamp', 'empty'],
      ['no metric', bad({ time_stamp: good.time_stamp }), 'metric_logs[1].metric', 'missing'],
      ['empty name', bad(log(good.time_stamp!, '', '1')), 'metric_logs[1].metric.name', 'empty'],
      ['abc', bad(log('abc', 'loss', '1')), 'metric_logs[1].time_stamp', '"abc"'],
      ['space', bad(log('2019-02-03 04:05:06Z', 'l', '1')), 'time_stamp', '"2019-02-03 04:05:06Z"'],
      ['Feb 30', bad(log('2019-02-30T00:00:00Z', 'l', '1')), 'time_stamp', '"2019-02-30T00:00:00Z"'],
      ['bad start', db.get({ trial_name: trial, start_time: 'abc' }), 'start_time', '"abc"'],
      ['bad end', db.get({ trial_name: trial, end_time: '2019-13-01T00:00:00Z' }), 'end_time', '2019-13-01'],
      [
        'start after end',
        db.get({ trial_name: trial, start_time: '2021-01-02T00:00:00Z', end_time: '2021-01-01T00:00:00Z' }),
        'start_time',
        '"2021-01-02T00:00:00Z"',
        'end_time',
      ],
    ];
    const errors = await Promise.all(cases.map(([, call]) => rejection(call)));
    for (const [i, [name, , ...fragments]] of cases.entries()) {
      const error = errors[i]!;
      expect({ name, code: error.code }).toEqual({ name, code: status.INVALID_ARGUMENT });
      for (const fragment of fragments) expect(error.details, name).toContain(fragment);
    }
    expect(await read(trial)).toEqual(before);
  });

  it('reads every acknowledged write: 20 concurrent writers on 20 trials', async () => {
    const misses: string[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async (_, w) => {
        const trial = uniqueName(`rw-${w}`);
        const written: string[][] = [];
        for (let r = 0; r < 10; r++) {
          const time = `2023-01-01T00:00:${String(r).padStart(2, '0')}Z`;
          const entries = [log(time, 'loss', `${w}.${r}`), log(time, 'accuracy', `${w}.${r}`)];
          await report(db, trial, entries);
          written.push(...entries.map(row));
          const seen = await read(trial);
          if (JSON.stringify(seen) !== JSON.stringify(written)) misses.push(`${trial} after report ${r}`);
        }
      }),
    );
    expect(misses).toEqual([]);
  });

  it('fails reads with UNAVAILABLE, saying why, when no persistence consumer applies the topic', async () => {
    const settings = settingsFor(store, { PERSISTENCE_WORKER: 'false', READ_BARRIER_TIMEOUT_MS: '500' });
    const lonely = await startExperimentServer(settings);
    const client = createDbManagerClient(lonely.address);
    try {
      const trial = uniqueName('trial');
      await report(client, trial, [log('2024-01-01T00:00:00Z', 'a', '1')]);
      const started = Date.now();
      const error = await rejection(client.get({ trial_name: trial }));
      const elapsed = Date.now() - started;
      expect(error.code).toBe(status.UNAVAILABLE);
      expect(error.details).toContain(`persistence worker (group ${lonely.groups.persistence})`);
      expect(error.details).toContain('did not catch up within 500 ms');
      expect(elapsed).toBeGreaterThanOrEqual(450);
      // 10× the barrier's 500 ms: only catches a read that waited for something else.
      expect(elapsed).toBeLessThan(5_000);
    } finally {
      client.close();
      expect(await lonely.stop()).toBe(0);
    }
  });

  it('loses nothing and duplicates nothing when killed right after acknowledging', {
    timeout: 180_000,
  }, async () => {
    const settings = settingsFor(store, { READ_BARRIER_TIMEOUT_MS: '120000' });
    const trial = uniqueName('crash');
    // Concurrent reports of 200 logs each; SIGKILL as soon as the last is acknowledged.
    let killed: ExperimentServer | undefined;
    const reportThenKill = async (extra: Record<string, string>, reports: number, tag: string) => {
      const server = await startExperimentServer({ ...settings, ...extra });
      killed = server;
      const client = createDbManagerClient(server.address);
      const acknowledged = await Promise.all(
        Array.from({ length: reports }, async (_, i) => {
          const logs = Array.from({ length: 200 }, (_, j) =>
            log(`2025-05-05T05:05:0${j % 10}Z`, tag, `${i}.${j}`),
          );
          await report(client, trial, logs);
          return logs.map(row);
        }),
      );
      await server.kill();
      client.close();
      return acknowledged.flat();
    };
    // With its persistence consumer, which may or may not have applied (and committed) the last batches...
    const first = await reportThenKill({}, 50, 'loss');
    // ...then without one: these are certainly acknowledged and not applied when the process dies.
    const second = await reportThenKill({ PERSISTENCE_WORKER: 'false' }, 5, 'accuracy');
    expect(await uncommittedEvents(infra.KAFKA_BROKERS, killed!, trial)).toBeGreaterThan(0);
    const restarted = await startExperimentServer(settings);
    const client = createDbManagerClient(restarted.address, { deadlineMs: 150_000 });
    try {
      const seen = rows(await client.get({ trial_name: trial }));
      const sorted = (list: string[][]) => list.map((r) => r.join(' ')).sort();
      expect(sorted(seen)).toEqual(sorted([...first, ...second]));
    } finally {
      client.close();
      expect(await restarted.stop()).toBe(0);
    }
  });
});
