// The read model's connection and tables (read_experiments, read_trials) beside the observation
// logs, in the same SQLite file or PostgreSQL schema. One set of statements serves both (`$n`
// placeholders, upserts with ON CONFLICT): only the table definitions and the connection differ.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { AppError, unavailable } from '../../../../shared/errors.ts';
import { metricNumber } from '../curves.ts';

export interface Sql {
  run(sql: string, params: readonly unknown[]): Promise<void>;
  all<T>(sql: string, params: readonly unknown[]): Promise<T[]>;
  transaction(work: (sql: Sql) => Promise<void>): Promise<void>;
  close(): Promise<void>;
  readonly dialect: SqlDialect;
}

/** The few expressions the two databases spell differently; arguments are SQL expressions. */
export interface SqlDialect {
  /** The value of the parameter named `name` in `assignments` (JSON text of [{name, value}]), or NULL. */
  parameterValue(assignments: string, name: string): string;
  /** `text` as a number when it is a finite decimal, else NULL. */
  number(text: string): string;
  /** Text compared byte by byte, the same order in both. */
  binary(text: string): string;
}

const SQLITE_DIALECT: SqlDialect = {
  parameterValue: (a, name) =>
    `(SELECT json_extract(j.value, '$.value') FROM json_each(${a}) j WHERE json_extract(j.value, '$.name') = ${name} LIMIT 1)`,
  number: (text) => `finite_number(${text})`,
  binary: (text) => `${text} COLLATE BINARY`,
};

const POSTGRES_DIALECT: SqlDialect = {
  parameterValue: (a, name) =>
    `(SELECT j->>'value' FROM json_array_elements(${a}::json) j WHERE j->>'name' = ${name} LIMIT 1)`,
  number: (text) =>
    `CASE WHEN ${text} ~ '^\\s*[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?\\s*$' THEN (${text})::numeric END`,
  binary: (text) => `${text} COLLATE "C"`,
};

// read_trials' reason, message and status_at_ms are no longer written (a trial's status is read
// from the observation store's trial_statuses); they stay so that databases made before still open.
// read_experiments' objectives and parameters (JSON) came later: a table made before gets them.
const SQLITE_TABLES = `
  CREATE TABLE IF NOT EXISTS read_experiments (
    name TEXT PRIMARY KEY, algorithm TEXT NOT NULL, objective_metric TEXT NOT NULL,
    objective_type TEXT NOT NULL, rules TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL, updated_at_ms INTEGER NOT NULL,
    objectives TEXT NOT NULL DEFAULT '[]', parameters TEXT NOT NULL DEFAULT '[]');
  CREATE TABLE IF NOT EXISTS read_trials (
    id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, experiment TEXT NOT NULL,
    assignments TEXT NOT NULL, condition TEXT NOT NULL, reason TEXT NOT NULL, message TEXT NOT NULL,
    status_at_ms INTEGER, created_at_ms INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS read_trials_experiment ON read_trials (experiment, id);`;

/** Columns of read_experiments added after its first release, each JSON text, '[]' by default. */
const LATER_EXPERIMENT_COLUMNS = ['objectives', 'parameters'] as const;

const postgresTables = (s: string): string[] => [
  `CREATE TABLE IF NOT EXISTS ${s}.read_experiments (
    name TEXT PRIMARY KEY, algorithm TEXT NOT NULL, objective_metric TEXT NOT NULL,
    objective_type TEXT NOT NULL, rules TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL, updated_at_ms BIGINT NOT NULL,
    objectives TEXT NOT NULL DEFAULT '[]', parameters TEXT NOT NULL DEFAULT '[]')`,
  ...LATER_EXPERIMENT_COLUMNS.map(
    (column) =>
      `ALTER TABLE ${s}.read_experiments ADD COLUMN IF NOT EXISTS ${column} TEXT NOT NULL DEFAULT '[]'`,
  ),
  `CREATE TABLE IF NOT EXISTS ${s}.read_trials (
    id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE, experiment TEXT NOT NULL,
    assignments TEXT NOT NULL, condition TEXT NOT NULL, reason TEXT NOT NULL, message TEXT NOT NULL,
    status_at_ms BIGINT, created_at_ms BIGINT NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS read_trials_experiment ON ${s}.read_trials (experiment, id)`,
];

/** The tables in the SQLite file; the prefix the statements put before a table name is ''. */
export function openSqliteReadModelSql(file: string): { sql: Sql; prefix: string } {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new DatabaseSync(file);
  db.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL;');
  db.exec(SQLITE_TABLES);
  const columns = new Set(
    (db.prepare('PRAGMA table_info(read_experiments)').all() as { name: string }[]).map((c) => c.name),
  );
  for (const column of LATER_EXPERIMENT_COLUMNS)
    if (!columns.has(column))
      db.exec(`ALTER TABLE read_experiments ADD COLUMN ${column} TEXT NOT NULL DEFAULT '[]'`);
  // What POSTGRES_DIALECT.number does with a regular expression (SQLite has none).
  db.function('finite_number', { deterministic: true }, (text) =>
    typeof text === 'string' ? (metricNumber(text) ?? null) : null,
  );
  const numbered = (sql: string) => sql.replace(/\$(\d+)/g, '?$1');
  const guard = <T>(work: () => T): T => {
    if (!db.isOpen) throw unavailable('read model: the store is closed');
    try {
      return work();
    } catch (error) {
      throw error instanceof AppError
        ? error
        : unavailable(`read model (sqlite): ${(error as Error).message}`, error);
    }
  };
  let queue: Promise<unknown> = Promise.resolve();
  const sql: Sql = {
    run: async (text, params) => guard(() => void db.prepare(numbered(text)).run(...(params as never[]))),
    all: async <T>(text: string, params: readonly unknown[]) =>
      guard(() => db.prepare(numbered(text)).all(...(params as never[])) as T[]),
    // Calls on one connection must not interleave their transactions.
    transaction: (work) => {
      const next = queue.then(async () => {
        guard(() => db.exec('BEGIN IMMEDIATE'));
        try {
          await work(sql);
          guard(() => db.exec('COMMIT'));
        } catch (error) {
          if (db.isOpen) db.exec('ROLLBACK');
          throw error;
        }
      });
      queue = next.catch(() => undefined);
      return next;
    },
    close: async () => {
      if (db.isOpen) db.close();
    },
    dialect: SQLITE_DIALECT,
  };
  return { sql, prefix: '' };
}

/** The tables in the PostgreSQL schema (created if missing); the prefix is the quoted schema. */
export async function openPostgresReadModelSql(options: {
  url: string;
  schema: string;
  poolSize?: number;
}): Promise<{ sql: Sql; prefix: string }> {
  const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 4 });
  pool.on('error', () => undefined);
  const s = pg.escapeIdentifier(options.schema);
  const wrap = (error: unknown): AppError =>
    error instanceof AppError
      ? error
      : unavailable(`read model (postgres): ${(error as Error).message}`, error);
  const over = (client: pg.Pool | pg.PoolClient): Sql => ({
    run: async (text, params) => {
      await client.query(text, params as unknown[]).catch((e: unknown) => Promise.reject(wrap(e)));
    },
    all: async <T>(text: string, params: readonly unknown[]) =>
      (await client.query(text, params as unknown[]).catch((e: unknown) => Promise.reject(wrap(e))))
        .rows as T[],
    // One transaction at a time per process: batches of different partitions touch the same rows
    // in different orders, which would deadlock. Across processes a deadlock is retried (UNAVAILABLE).
    transaction: (work) => {
      const next = queue.then(() => inTransaction(work));
      queue = next.catch(() => undefined);
      return next;
    },
    close: () => pool.end(),
    dialect: POSTGRES_DIALECT,
  });
  let queue: Promise<unknown> = Promise.resolve();
  const inTransaction = async (work: (sql: Sql) => Promise<void>): Promise<void> => {
    const c = await pool.connect().catch((e: unknown) => Promise.reject(wrap(e)));
    try {
      await c.query('BEGIN');
      await work(over(c));
      await c.query('COMMIT');
    } catch (error) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw wrap(error);
    } finally {
      c.release();
    }
  };
  const sql = over(pool);
  await sql.transaction(async (tx) => {
    await tx.run("SELECT pg_advisory_xact_lock(hashtext('backbone read model'))", []);
    await tx.run(`CREATE SCHEMA IF NOT EXISTS ${s}`, []);
    for (const statement of postgresTables(s)) await tx.run(statement, []);
  });
  return { sql, prefix: `${s}.` };
}
