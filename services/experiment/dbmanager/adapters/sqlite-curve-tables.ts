// The SQLite store's curve tables (../curves.ts): metric_series (one summary row per series, also
// read by the read model for best objectives) and metric_buckets, written in the transaction that
// writes the logs, and the curves read from them.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
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

export const SQLITE_CURVE_TABLES = `
  CREATE TABLE metric_series (
    trial_name TEXT NOT NULL, metric_name TEXT NOT NULL, points INTEGER NOT NULL,
    min_value REAL NOT NULL, max_value REAL NOT NULL, first_time TEXT NOT NULL, last_time TEXT NOT NULL,
    last_value REAL NOT NULL, floor_level INTEGER,
    PRIMARY KEY (trial_name, metric_name)) WITHOUT ROWID;
  CREATE TABLE metric_buckets (
    trial_name TEXT NOT NULL, metric_name TEXT NOT NULL, level INTEGER NOT NULL, bucket INTEGER NOT NULL,
    count INTEGER NOT NULL, first_ms REAL NOT NULL, first_value REAL NOT NULL, last_ms REAL NOT NULL,
    last_value REAL NOT NULL, min_ms REAL NOT NULL, min_value REAL NOT NULL, max_ms REAL NOT NULL,
    max_value REAL NOT NULL,
    PRIMARY KEY (trial_name, metric_name, level, bucket)) WITHOUT ROWID;`;

/** Rows as arrays: no object with named properties per row. */
function arrays(statement: StatementSync): StatementSync {
  statement.setReturnArrays(true);
  return statement;
}

export function sqliteCurveTables(db: DatabaseSync) {
  const selectSeries = arrays(
    db.prepare(`SELECT ${SERIES_COLUMNS} FROM metric_series WHERE trial_name = ? AND metric_name = ?`),
  );
  const selectTrialSeries = arrays(
    db.prepare(`SELECT ${SERIES_COLUMNS} FROM metric_series WHERE trial_name = ? ORDER BY metric_name`),
  );
  const upsertSeries = arrays(
    db.prepare(
      `INSERT INTO metric_series AS m (trial_name, ${SERIES_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)
       ON CONFLICT (trial_name, metric_name) DO UPDATE SET ${SERIES_MERGE} RETURNING ${SERIES_COLUMNS}`,
    ),
  );
  const setFloor = db.prepare(
    'UPDATE metric_series SET floor_level = ? WHERE trial_name = ? AND metric_name = ?',
  );
  const upsertBucket = db.prepare(
    `INSERT INTO metric_buckets AS b (trial_name, metric_name, level, bucket, ${BUCKET_COLUMNS})
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (trial_name, metric_name, level, bucket) DO UPDATE SET ${BUCKET_MERGE}`,
  );
  const deleteSeries = db.prepare('DELETE FROM metric_series WHERE trial_name = ?');
  const deleteBuckets = db.prepare('DELETE FROM metric_buckets WHERE trial_name = ?');
  const selectPoints = arrays(
    db.prepare(
      `SELECT time, value FROM observation_logs WHERE trial_name = ? AND metric_name = ?
         AND time >= ? AND time <= ? ORDER BY time, id`,
    ),
  );
  const selectAllPoints = arrays(
    db.prepare(
      'SELECT time, value FROM observation_logs WHERE trial_name = ? AND metric_name = ? ORDER BY time, id',
    ),
  );
  const selectBuckets = arrays(
    db.prepare(
      `SELECT ${BUCKET_COLUMNS} FROM metric_buckets
       WHERE trial_name = ? AND metric_name = ? AND level = ? AND bucket BETWEEN ? AND ? ORDER BY bucket`,
    ),
  );

  const writeBuckets = (trialName: string, metricName: string, buckets: readonly Bucket[]): void => {
    for (const b of buckets) upsertBucket.run(trialName, metricName, b.level, b.bucket, ...bucketValues(b));
  };

  /** A series' points as a batch of its own (its logs are already written), in time order. */
  const storedSeries = (trialName: string, metricName: string): PendingSeries | undefined => {
    const rows = selectAllPoints.all(trialName, metricName) as unknown as [string, string][];
    const batch = createCurveBatch();
    batch.add(
      trialName,
      rows.map(([time, value]) => ({ time, metricName, value })),
    );
    return batch.pending()[0];
  };

  /** Adds a batch's points to their series; call in the batch's transaction, after its logs. */
  const record = (pending: readonly PendingSeries[]): void => {
    let storeBuildsLeft = STORE_BUILDS_PER_BATCH;
    for (const p of pending) {
      const { trialName, metricName, summary: s } = p;
      const row = upsertSeries.get(
        trialName,
        metricName,
        s.points,
        s.minValue,
        s.maxValue,
        s.firstTime,
        s.lastTime,
        s.lastValue,
      ) as unknown as unknown[];
      const work = bucketWork(seriesOfRow(row).summary, s, storeBuildsLeft);
      if (work.kind === 'build') {
        if (work.fromStore) storeBuildsLeft -= 1;
        setFloor.run(work.floorLevel, trialName, metricName);
        const all = work.fromStore ? storedSeries(trialName, metricName)! : p;
        writeBuckets(trialName, metricName, bucketsOf(all.times, all.values, work.floorLevel));
      } else if (work.kind === 'add')
        writeBuckets(trialName, metricName, bucketsOf(p.times, p.values, work.floorLevel));
    }
  };

  return {
    record,

    /** Builds every series from the logs already stored (the schema step that adds these tables). */
    fill(): void {
      const series = db.prepare('SELECT DISTINCT trial_name, metric_name FROM observation_logs').all();
      for (const { trial_name, metric_name } of series as { trial_name: string; metric_name: string }[]) {
        const stored = storedSeries(trial_name, metric_name);
        if (stored) record([stored]);
      }
    },

    /** A trial's logs were deleted: its series go too. */
    forget(trialName: string): void {
      deleteSeries.run(trialName);
      deleteBuckets.run(trialName);
    },

    curves(query: CurveQuery): MetricCurve[] {
      const rows = (query.metricName === undefined
        ? selectTrialSeries.all(query.trialName)
        : [selectSeries.get(query.trialName, query.metricName)].filter(
            (r) => r !== undefined,
          )) as unknown as unknown[][];
      return rows.map((row) => {
        const { metricName, summary } = seriesOfRow(row);
        const { from, to, plan } = planRead(summary, query);
        const read =
          plan.kind === 'points'
            ? selectPoints.all(query.trialName, metricName, from, to)
            : selectBuckets.all(query.trialName, metricName, plan.level, plan.firstBucket, plan.lastBucket);
        return curveOf(metricName, summary, plan, read as unknown as unknown[][]);
      });
    },
  };
}
