// The PostgreSQL store's curve tables (../curves.ts), as ./sqlite-curve-tables.ts keeps them in
// SQLite: one summary row per series (also read by the read model) and the buckets of large series,
// written in the transaction that writes the logs, a statement per table per batch.
import type pg from 'pg';
import type { CurveQuery, MetricCurve } from '../../common/ports.ts';
import { curveOf, planRead } from '../curve-reading.ts';
import {
  type Bucket,
  bucketsOf,
  bucketWork,
  createCurveBatch,
  type PendingSeries,
  STORE_BUILDS_PER_BATCH,
} from '../curves.ts';
import {
  BUCKET_COLUMNS,
  BUCKET_MERGE,
  bucketValues,
  SERIES_COLUMNS,
  SERIES_MERGE,
  seriesOfRow,
} from './curve-sql.ts';

type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

export const postgresCurveTables = (s: string): string => `
  CREATE TABLE ${s}.metric_series (
    trial_name text COLLATE "C" NOT NULL, metric_name text COLLATE "C" NOT NULL, points bigint NOT NULL,
    min_value double precision NOT NULL, max_value double precision NOT NULL,
    first_time text COLLATE "C" NOT NULL, last_time text COLLATE "C" NOT NULL,
    last_value double precision NOT NULL, floor_level integer,
    PRIMARY KEY (trial_name, metric_name));
  CREATE TABLE ${s}.metric_buckets (
    trial_name text COLLATE "C" NOT NULL, metric_name text COLLATE "C" NOT NULL, level integer NOT NULL,
    bucket bigint NOT NULL, count bigint NOT NULL, first_ms double precision NOT NULL,
    first_value double precision NOT NULL, last_ms double precision NOT NULL,
    last_value double precision NOT NULL, min_ms double precision NOT NULL,
    min_value double precision NOT NULL, max_ms double precision NOT NULL,
    max_value double precision NOT NULL,
    PRIMARY KEY (trial_name, metric_name, level, bucket));`;

/** Bucket rows per statement: bounds the message size. */
const BUCKETS_PER_UPSERT = 20_000;

/** A series' points as a batch of its own (its logs are already written), in time order. */
async function storedSeries(
  db: Queryable,
  s: string,
  trialName: string,
  metricName: string,
): Promise<PendingSeries | undefined> {
  const rows = await db.query<[string, string]>({
    text: `SELECT time, value FROM ${s}.observation_logs WHERE trial_name = $1 AND metric_name = $2 ORDER BY time, id`,
    values: [trialName, metricName],
    rowMode: 'array',
  });
  const batch = createCurveBatch();
  batch.add(
    trialName,
    rows.rows.map(([time, value]) => ({ time, metricName, value })),
  );
  return batch.pending()[0];
}

/** Adds a batch's points to their series; call in the batch's transaction, after its logs. */
export async function recordCurves(
  db: Queryable,
  s: string,
  pending: readonly PendingSeries[],
): Promise<void> {
  if (pending.length === 0) return;
  // In key order, so that transactions touching the same series lock them in the same order.
  const batch = [...pending].sort((a, b) =>
    a.trialName === b.trialName ? compare(a.metricName, b.metricName) : compare(a.trialName, b.trialName),
  );
  const merged = await db.query<unknown[]>({
    name: 'curve_series_upsert',
    text: `INSERT INTO ${s}.metric_series AS m (trial_name, ${SERIES_COLUMNS})
           SELECT *, NULL::integer FROM unnest($1::text[], $2::text[], $3::bigint[], $4::float8[],
             $5::float8[], $6::text[], $7::text[], $8::float8[])
           ON CONFLICT (trial_name, metric_name) DO UPDATE SET ${SERIES_MERGE}
           RETURNING trial_name, ${SERIES_COLUMNS}`,
    values: [
      batch.map((p) => p.trialName),
      batch.map((p) => p.metricName),
      batch.map((p) => p.summary.points),
      batch.map((p) => p.summary.minValue),
      batch.map((p) => p.summary.maxValue),
      batch.map((p) => p.summary.firstTime),
      batch.map((p) => p.summary.lastTime),
      batch.map((p) => p.summary.lastValue),
    ],
    rowMode: 'array',
  });
  const now = new Map(merged.rows.map((r) => [`${r[0]}\u0000${r[1]}`, seriesOfRow(r.slice(1)).summary]));
  const buckets: { trialName: string; metricName: string; bucket: Bucket }[] = [];
  let storeBuildsLeft = STORE_BUILDS_PER_BATCH;
  for (const p of batch) {
    const { trialName, metricName } = p;
    const work = bucketWork(now.get(`${trialName}\u0000${metricName}`)!, p.summary, storeBuildsLeft);
    if (work.kind === 'none') continue;
    let all: PendingSeries = p;
    if (work.kind === 'build') {
      if (work.fromStore) storeBuildsLeft -= 1;
      await db.query({
        name: 'curve_series_floor',
        text: `UPDATE ${s}.metric_series SET floor_level = $1 WHERE trial_name = $2 AND metric_name = $3`,
        values: [work.floorLevel, trialName, metricName],
      });
      if (work.fromStore) all = (await storedSeries(db, s, trialName, metricName))!;
    }
    for (const bucket of bucketsOf(all.times, all.values, work.floorLevel))
      buckets.push({ trialName, metricName, bucket });
  }
  for (let i = 0; i < buckets.length; i += BUCKETS_PER_UPSERT) {
    const part = buckets.slice(i, i + BUCKETS_PER_UPSERT);
    await db.query({
      name: 'curve_buckets_upsert',
      text: `INSERT INTO ${s}.metric_buckets AS b (trial_name, metric_name, level, bucket, ${BUCKET_COLUMNS})
             SELECT * FROM unnest($1::text[], $2::text[], $3::integer[], $4::bigint[], $5::bigint[],
               $6::float8[], $7::float8[], $8::float8[], $9::float8[], $10::float8[], $11::float8[],
               $12::float8[], $13::float8[])
             ON CONFLICT (trial_name, metric_name, level, bucket) DO UPDATE SET ${BUCKET_MERGE}`,
      values: [
        part.map((b) => b.trialName),
        part.map((b) => b.metricName),
        part.map((b) => b.bucket.level),
        part.map((b) => b.bucket.bucket),
        ...bucketValuesByColumn(part.map((b) => b.bucket)),
      ],
    });
  }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The nine value columns of the buckets, each as one array parameter. */
function bucketValuesByColumn(buckets: readonly Bucket[]): number[][] {
  const columns: number[][] = Array.from({ length: 9 }, () => []);
  for (const b of buckets) for (const [i, v] of bucketValues(b).entries()) columns[i]!.push(v);
  return columns;
}

/** A trial's logs were deleted: its series go too. */
export async function forgetCurves(db: Queryable, s: string, trialName: string): Promise<void> {
  await db.query({
    name: 'curve_series_delete',
    text: `DELETE FROM ${s}.metric_series WHERE trial_name = $1`,
    values: [trialName],
  });
  await db.query({
    name: 'curve_buckets_delete',
    text: `DELETE FROM ${s}.metric_buckets WHERE trial_name = $1`,
    values: [trialName],
  });
}

/** Builds every series from the logs already stored (the schema step that adds these tables). */
export async function fillCurves(db: Queryable, s: string): Promise<void> {
  const series = await db.query<{ trial_name: string; metric_name: string }>(
    `SELECT DISTINCT trial_name, metric_name FROM ${s}.observation_logs`,
  );
  for (const { trial_name, metric_name } of series.rows) {
    const stored = await storedSeries(db, s, trial_name, metric_name);
    if (stored) await recordCurves(db, s, [stored]);
  }
}

export async function readCurves(db: Queryable, s: string, query: CurveQuery): Promise<MetricCurve[]> {
  const rows = await db.query<unknown[]>({
    text: `SELECT ${SERIES_COLUMNS} FROM ${s}.metric_series WHERE trial_name = $1
           AND ($2::text IS NULL OR metric_name = $2) ORDER BY metric_name`,
    values: [query.trialName, query.metricName ?? null],
    rowMode: 'array',
  });
  return Promise.all(
    rows.rows.map(async (row) => {
      const { metricName, summary } = seriesOfRow(row);
      const { from, to, plan } = planRead(summary, query);
      const read =
        plan.kind === 'points'
          ? await db.query<unknown[]>({
              name: 'curve_points',
              text: `SELECT time, value FROM ${s}.observation_logs WHERE trial_name = $1 AND metric_name = $2
                     AND time >= $3 AND time <= $4 ORDER BY time, id`,
              values: [query.trialName, metricName, from, to],
              rowMode: 'array',
            })
          : await db.query<unknown[]>({
              name: 'curve_buckets',
              text: `SELECT ${BUCKET_COLUMNS} FROM ${s}.metric_buckets WHERE trial_name = $1
                     AND metric_name = $2 AND level = $3 AND bucket BETWEEN $4 AND $5 ORDER BY bucket`,
              values: [query.trialName, metricName, plan.level, plan.firstBucket, plan.lastBucket],
              rowMode: 'array',
            });
      return curveOf(metricName, summary, plan, read.rows);
    }),
  );
}
