// The PostgreSQL observation store's schema, migrated on open in one transaction, and the
// transaction helper both the migration and the writes use.
import type pg from 'pg';
import { AppError } from '../../../../shared/errors.ts';
import { fillCurves, postgresCurveTables } from './postgres-curve-tables.ts';

/**
 * Schema steps, applied in order: step i brings the schema to version i + 1. Later versions append
 * steps; a step never changes once released. `s` is the quoted schema name.
 */
const MIGRATIONS: readonly ((s: string) => string)[] = [
  (s) => `
    CREATE TABLE ${s}.observation_logs (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      trial_name text COLLATE "C" NOT NULL,
      time text COLLATE "C" NOT NULL,
      metric_name text COLLATE "C" NOT NULL,
      value text NOT NULL
    );
    CREATE INDEX observation_logs_trial_metric_time ON ${s}.observation_logs (trial_name, metric_name, time, id);
    CREATE INDEX observation_logs_trial_time ON ${s}.observation_logs (trial_name, time, id);
    CREATE TABLE ${s}.applied_events (event_id text PRIMARY KEY);`,
  (s) => `
    CREATE TABLE ${s}.trial_statuses (
      trial_name text COLLATE "C" PRIMARY KEY,
      condition text NOT NULL,
      reason text NOT NULL,
      message text NOT NULL,
      changed_at_ms bigint NOT NULL
    );`,
  postgresCurveTables,
  // Reads go by (trial, time, id) and filter the metric, as SQLite's do: a row is written into the
  // table and one index instead of three (the id's own index and the metric's served no read).
  (s) => `
    DROP INDEX ${s}.observation_logs_trial_metric_time;
    ALTER TABLE ${s}.observation_logs DROP CONSTRAINT observation_logs_pkey;`,
];

/** The step that adds the curve tables also fills them from the logs already there. */
const CURVE_TABLES_VERSION = 3;

/** Brings the schema to the newest version; the advisory lock serializes concurrent starts. */
export function migrate(pool: pg.Pool, schema: string, s: string): Promise<void> {
  return inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('backbone.observation-store'), hashtext($1))", [
      schema,
    ]);
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const row = await client.query<{ version: number }>(
      `SELECT coalesce(max(version), 0)::integer AS version FROM ${s}.schema_version`,
    );
    const current = row.rows[0]?.version ?? 0;
    if (current > MIGRATIONS.length) {
      throw new AppError(
        'FAILED_PRECONDITION',
        `observation store schema ${schema} is at version ${current}, newer than this program's ${MIGRATIONS.length}`,
      );
    }
    for (let version = current + 1; version <= MIGRATIONS.length; version += 1) {
      await client.query(MIGRATIONS[version - 1]!(s));
      if (version === CURVE_TABLES_VERSION) await fillCurves(client, s);
      await client.query(`INSERT INTO ${s}.schema_version (version) VALUES ($1)`, [version]);
    }
  });
}

/** Runs `work` in a transaction on one pooled connection; a connection that fails to roll back is dropped. */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => {
      broken = rollbackError;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
