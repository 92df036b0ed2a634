import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { AppError, internal, unavailable } from '../../../../shared/errors.ts';
import type {
  CurveQuery,
  LogVisitor,
  MetricCurve,
  MetricLogRow,
  ObservationChange,
  ObservationQuery,
  ObservationStore,
  TrialStatusRecord,
} from '../../common/ports.ts';
import { createCurveBatch } from '../curves.ts';
import { SQLITE_CURVE_TABLES, sqliteCurveTables } from './sqlite-curve-tables.ts';

export interface SqliteObservationStoreOptions {
  /** Database file; its folder is created if missing. */
  readonly file: string;
  /** How long a statement waits for another process's lock before failing (UNAVAILABLE). */
  readonly busyTimeoutMs?: number;
}

/**
 * Schema steps, applied in order on open: step i brings the schema to version i + 1. Later versions
 * append steps; a step never changes once released.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE observation_logs (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     trial_name TEXT NOT NULL,
     time TEXT NOT NULL,
     metric_name TEXT NOT NULL,
     value TEXT NOT NULL
   );
   CREATE INDEX observation_logs_trial_metric_time ON observation_logs (trial_name, metric_name, time, id);
   CREATE INDEX observation_logs_trial_time ON observation_logs (trial_name, time, id);
   CREATE TABLE applied_events (event_id TEXT PRIMARY KEY);`,
  `CREATE TABLE trial_statuses (
     trial_name TEXT PRIMARY KEY,
     condition TEXT NOT NULL,
     reason TEXT NOT NULL,
     message TEXT NOT NULL,
     changed_at_ms INTEGER NOT NULL
   );`,
  SQLITE_CURVE_TABLES,
  // The logs kept in their read order, (trial, time, id), in one B-tree: a row is written once
  // instead of into a table and two indexes (3.4 instead of 5.2 µs a row), and a trial's logs are
  // read from consecutive pages. `id` keeps report order among equal times, numbered from
  // observation_log_ids since a table without rowid has no AUTOINCREMENT.
  `CREATE TABLE observation_logs_clustered (
     trial_name TEXT NOT NULL,
     time TEXT NOT NULL,
     id INTEGER NOT NULL,
     metric_name TEXT NOT NULL,
     value TEXT NOT NULL,
     PRIMARY KEY (trial_name, time, id)
   ) WITHOUT ROWID;
   INSERT INTO observation_logs_clustered (trial_name, time, id, metric_name, value)
     SELECT trial_name, time, id, metric_name, value FROM observation_logs;
   CREATE TABLE observation_log_ids (next_id INTEGER NOT NULL);
   INSERT INTO observation_log_ids (next_id) SELECT coalesce(max(id), 0) + 1 FROM observation_logs;
   DROP TABLE observation_logs;
   ALTER TABLE observation_logs_clustered RENAME TO observation_logs;`,
];

/** The step that adds the curve tables also fills them from the logs already there. */
const CURVE_TABLES_VERSION = 3;

/** Rows per insert statement: 5 parameters each, far below SQLite's 32,766. */
const ROWS_PER_INSERT = 256;

/** SQLite primary result codes that mean "try again later" rather than "bad data". */
const TRANSIENT_CODES = new Set([
  5 /* BUSY */, 6 /* LOCKED */, 10 /* IOERR */, 13 /* FULL */, 14 /* CANTOPEN */,
]);

/**
 * The embedded observation store: one SQLite file (WAL), no server. All work is synchronous inside
 * each call, so calls never interleave within a process; `BEGIN IMMEDIATE` and the busy timeout
 * serialize writers across processes sharing the file.
 */
export function openSqliteObservationStore(options: SqliteObservationStoreOptions): ObservationStore {
  const { file } = options;
  const fail = (action: string, error: unknown): AppError => toStoreError(file, action, error);
  let db: DatabaseSync | undefined;
  try {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    db = new DatabaseSync(file);
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
    // temp_store: statement journals and sorts in memory, not in a temporary folder a container
    // with a read-only root file system does not have (SQLite answers "disk I/O error" there).
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY;');
    const opened = db;
    migrate(db, (version) => {
      if (version === CURVE_TABLES_VERSION) sqliteCurveTables(opened).fill();
    });
  } catch (error) {
    if (db?.isOpen) db.close();
    throw fail('open', error);
  }

  // Every id of a batch in one statement; RETURNING names those not applied before (a repeated id
  // within the batch is returned once).
  const insertEvents = db.prepare(
    'INSERT INTO applied_events (event_id) SELECT value FROM json_each(?) WHERE true ON CONFLICT DO NOTHING RETURNING event_id',
  );
  insertEvents.setReturnArrays(true);
  const nextId = db.prepare('SELECT next_id FROM observation_log_ids');
  nextId.setReturnArrays(true);
  const saveNextId = db.prepare('UPDATE observation_log_ids SET next_id = ?');
  /** Multi-row inserts by row count (a full one, and whatever remainders occur). */
  const inserts = new Map<number, StatementSync>();
  const insertRows = (count: number): StatementSync => {
    let statement = inserts.get(count);
    if (statement === undefined) {
      const rows = Array.from({ length: count }, () => '(?, ?, ?, ?, ?)').join(', ');
      statement = db.prepare(
        `INSERT INTO observation_logs (trial_name, time, id, metric_name, value) VALUES ${rows}`,
      );
      inserts.set(count, statement);
    }
    return statement;
  };
  const deleteTrial = db.prepare('DELETE FROM observation_logs WHERE trial_name = ?');
  const upsertStatus = db.prepare(
    `INSERT INTO trial_statuses (trial_name, condition, reason, message, changed_at_ms) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (trial_name) DO UPDATE SET condition = excluded.condition, reason = excluded.reason,
       message = excluded.message, changed_at_ms = excluded.changed_at_ms`,
  );
  const selectStatus = db.prepare(
    'SELECT condition, reason, message, changed_at_ms FROM trial_statuses WHERE trial_name = ?',
  );
  const selectKnown = db.prepare(
    `SELECT EXISTS (SELECT 1 FROM trial_statuses WHERE trial_name = ?1)
         OR EXISTS (SELECT 1 FROM observation_logs WHERE trial_name = ?1) AS known`,
  );
  const ping = db.prepare('SELECT 1');
  const curveTables = sqliteCurveTables(db);
  /** One statement per combination of filters (bit 0 metric, bit 1 from, bit 2 to), prepared once. */
  const queries = new Map<number, StatementSync>();
  let closed = false;

  /** Inside the caller's transaction; returns how many changes were not redeliveries. */
  const applyChanges = (changes: readonly ObservationChange[]): number => {
    const ids = JSON.stringify(changes.map((change) => change.eventId));
    const fresh = new Set((insertEvents.all(ids) as unknown as [string][]).map(([id]) => id));
    let id = Number((nextId.all() as unknown as [number][])[0]![0]);
    const firstId = id;
    let pending: (string | number)[] = [];
    const flush = (): void => {
      for (let at = 0; at < pending.length; at += ROWS_PER_INSERT * 5) {
        const rows =
          pending.length - at >= ROWS_PER_INSERT * 5
            ? pending.slice(at, at + ROWS_PER_INSERT * 5)
            : pending.slice(at);
        insertRows(rows.length / 5).run(...rows);
      }
      pending = [];
    };
    const curves = createCurveBatch();
    let applied = 0;
    for (const change of changes) {
      // Deleting from the set skips a second occurrence of the same eventId within this batch.
      if (!fresh.delete(change.eventId)) continue;
      applied += 1;
      if (change.kind === 'deleted') {
        flush();
        deleteTrial.run(change.trialName);
        curves.forget(change.trialName);
        curveTables.forget(change.trialName);
      } else if (change.kind === 'status') {
        const { trialName, condition, reason, message, changedAtMs } = change;
        upsertStatus.run(trialName, condition, reason, message, changedAtMs);
      } else {
        for (const log of change.logs)
          pending.push(change.trialName, log.time, id++, log.metricName, log.value);
        curves.add(change.trialName, change.logs);
        if (pending.length >= ROWS_PER_INSERT * 5) flush();
      }
    }
    flush();
    if (id !== firstId) saveNextId.run(id);
    curveTables.record(curves.pending());
    return applied;
  };

  const ensureOpen = (action: string): void => {
    if (closed) throw unavailable(`SQLite observation store ${file} is closed (${action})`);
  };

  /** The logs a query selects, as [time, metric name, value] rows. */
  const rowsOf = (query: ObservationQuery): ReadonlyArray<readonly [string, string, string]> => {
    ensureOpen('query');
    const filters = [query.metricName, query.from, query.to];
    const params = [query.trialName, ...filters.filter((f): f is string => f !== undefined)];
    const mask = filters.reduce((bits, f, i) => (f === undefined ? bits : bits | (1 << i)), 0);
    try {
      return queryStatement(mask).all(...params) as unknown as ReadonlyArray<
        readonly [string, string, string]
      >;
    } catch (error) {
      throw fail('query', error);
    }
  };

  const queryStatement = (mask: number): StatementSync => {
    let statement = queries.get(mask);
    if (statement === undefined) {
      const where = ['trial_name = ?'];
      if (mask & 1) where.push('metric_name = ?');
      if (mask & 2) where.push('time >= ?');
      if (mask & 4) where.push('time <= ?');
      statement = db.prepare(
        `SELECT time, metric_name, value FROM observation_logs WHERE ${where.join(' AND ')} ORDER BY time, id`,
      );
      // Rows as arrays: no object with named properties per row (reads return 10,000 at a time).
      statement.setReturnArrays(true);
      queries.set(mask, statement);
    }
    return statement;
  };

  return {
    async apply(changes: readonly ObservationChange[]): Promise<number> {
      ensureOpen('apply');
      if (changes.length === 0) return 0;
      try {
        db.exec('BEGIN IMMEDIATE');
      } catch (error) {
        throw fail('apply', error);
      }
      try {
        const applied = applyChanges(changes);
        db.exec('COMMIT');
        return applied;
      } catch (error) {
        if (db.isTransaction) db.exec('ROLLBACK');
        throw fail('apply', error);
      }
    },

    async query(query: ObservationQuery): Promise<MetricLogRow[]> {
      return rowsOf(query).map(([time, metricName, value]) => ({ time, metricName, value }));
    },

    async scan(query: ObservationQuery, visit: LogVisitor): Promise<number> {
      const rows = rowsOf(query);
      for (const [time, metricName, value] of rows) visit(time, metricName, value);
      return rows.length;
    },

    async curves(query: CurveQuery): Promise<MetricCurve[]> {
      ensureOpen('read curves');
      try {
        return curveTables.curves(query);
      } catch (error) {
        throw fail('read curves', error);
      }
    },

    async trialStatus(trialName: string): Promise<TrialStatusRecord | undefined> {
      ensureOpen('read a trial status');
      try {
        const row = selectStatus.get(trialName);
        if (row === undefined) return undefined;
        return {
          trialName,
          condition: String(row.condition),
          reason: String(row.reason),
          message: String(row.message),
          changedAtMs: Number(row.changed_at_ms),
        };
      } catch (error) {
        throw fail('read a trial status', error);
      }
    },

    async knowsTrial(trialName: string): Promise<boolean> {
      ensureOpen('look up a trial');
      try {
        return Number(selectKnown.get(trialName)?.known) === 1;
      } catch (error) {
        throw fail('look up a trial', error);
      }
    },

    async ping(): Promise<void> {
      ensureOpen('ping');
      try {
        ping.get();
      } catch (error) {
        throw fail('ping', error);
      }
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}

/** Brings the schema to the newest version in one immediate transaction (safe for concurrent opens). */
function migrate(db: DatabaseSync, afterStep: (version: number) => void): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec(
      'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)',
    );
    const row = db.prepare('SELECT coalesce(max(version), 0) AS version FROM schema_version').get();
    const current = Number(row?.version ?? 0);
    if (current > MIGRATIONS.length) {
      throw new AppError(
        'FAILED_PRECONDITION',
        `observation store schema is at version ${current}, newer than this program's ${MIGRATIONS.length}`,
      );
    }
    const record = db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)');
    for (let version = current + 1; version <= MIGRATIONS.length; version += 1) {
      db.exec(MIGRATIONS[version - 1]!);
      afterStep(version);
      record.run(version, new Date().toISOString());
    }
    db.exec('COMMIT');
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

function toStoreError(file: string, action: string, error: unknown): AppError {
  if (error instanceof AppError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  const text = `SQLite observation store ${file} failed to ${action}: ${message}`;
  if (typeof errcode === 'number' && !TRANSIENT_CODES.has(errcode & 0xff)) return internal(text, error);
  if (typeof errcode !== 'number' && error instanceof TypeError) return internal(text, error);
  return unavailable(text, error);
}
