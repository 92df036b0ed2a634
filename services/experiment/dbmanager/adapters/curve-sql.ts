// What both stores' curve tables share: the columns in the order the code reads them and the
// upserts' merge rules (same SQL in SQLite and PostgreSQL).
import type { Bucket, SeriesSummary } from '../curves.ts';

/** metric_series' columns in the order `seriesOfRow` reads them. */
export const SERIES_COLUMNS =
  'metric_name, points, min_value, max_value, first_time, last_time, last_value, floor_level';

export function seriesOfRow(row: readonly unknown[]): { metricName: string; summary: SeriesSummary } {
  return {
    metricName: String(row[0]),
    summary: {
      points: Number(row[1]),
      minValue: Number(row[2]),
      maxValue: Number(row[3]),
      firstTime: String(row[4]),
      lastTime: String(row[5]),
      lastValue: Number(row[6]),
      floorLevel: row[7] === null ? null : Number(row[7]),
    },
  };
}

/** metric_buckets' value columns in the order `bucketValues` gives and M4's addBucket reads them. */
export const BUCKET_COLUMNS =
  'count, first_ms, first_value, last_ms, last_value, min_ms, min_value, max_ms, max_value';

export const bucketValues = (b: Bucket): number[] => [
  b.count,
  b.firstMs,
  b.firstValue,
  b.lastMs,
  b.lastValue,
  b.minMs,
  b.minValue,
  b.maxMs,
  b.maxValue,
];

// The same rules as addPoint in ../curves.ts: first keeps the earlier, last takes the later report.
export const BUCKET_MERGE = `count = b.count + excluded.count,
  first_ms = CASE WHEN excluded.first_ms < b.first_ms THEN excluded.first_ms ELSE b.first_ms END,
  first_value = CASE WHEN excluded.first_ms < b.first_ms THEN excluded.first_value ELSE b.first_value END,
  last_ms = CASE WHEN excluded.last_ms >= b.last_ms THEN excluded.last_ms ELSE b.last_ms END,
  last_value = CASE WHEN excluded.last_ms >= b.last_ms THEN excluded.last_value ELSE b.last_value END,
  min_ms = CASE WHEN excluded.min_value < b.min_value THEN excluded.min_ms ELSE b.min_ms END,
  min_value = CASE WHEN excluded.min_value < b.min_value THEN excluded.min_value ELSE b.min_value END,
  max_ms = CASE WHEN excluded.max_value > b.max_value THEN excluded.max_ms ELSE b.max_ms END,
  max_value = CASE WHEN excluded.max_value > b.max_value THEN excluded.max_value ELSE b.max_value END`;

/**
 * Adds a batch's summary to the stored one in the upsert itself: a concurrent transaction's points
 * (PostgreSQL) wait for the row's lock and are added after, never lost. The floor stays.
 */
export const SERIES_MERGE = `points = m.points + excluded.points,
  min_value = CASE WHEN excluded.min_value < m.min_value THEN excluded.min_value ELSE m.min_value END,
  max_value = CASE WHEN excluded.max_value > m.max_value THEN excluded.max_value ELSE m.max_value END,
  first_time = CASE WHEN excluded.first_time < m.first_time THEN excluded.first_time ELSE m.first_time END,
  last_time = CASE WHEN excluded.last_time >= m.last_time THEN excluded.last_time ELSE m.last_time END,
  last_value = CASE WHEN excluded.last_time >= m.last_time THEN excluded.last_value ELSE m.last_value END`;
