// The read model's tables (read_experiments, read_trials) beside the observation logs, in the same
// SQLite file or PostgreSQL schema. One set of statements for both: `$n` placeholders, upserts with
// ON CONFLICT; only the table definitions and the connection differ.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { AppError, unavailable } from '../../../../shared/errors.ts';
import {
  type Assignment,
  bestObjectives,
  type EarlyStoppingRuleView,
  type ExperimentView,
  type ReadModelChange,
  type TrialView,
  type TrialWithObjective,
} from '../read-model.ts';

export interface ReadModelStore {
  /** Applies changes in order, in one transaction. */
  apply(changes: readonly ReadModelChange[]): Promise<void>;
  /** Whether nothing was ever applied (a rebuild from the topics is due). */
  isEmpty(): Promise<boolean>;
  experiments(): Promise<ExperimentView[]>;
  experiment(name: string): Promise<ExperimentView | undefined>;
  /** The experiment's trials in order, with their best objective. */
  trials(experiment: string): Promise<TrialWithObjective[]>;
  trial(name: string): Promise<TrialView | undefined>;
  /** Names of the experiment's trials (for a live stream's filter). */
  trialNames(experiment: string): Promise<string[]>;
  close(): Promise<void>;
}

interface Sql {
  run(sql: string, params: readonly unknown[]): Promise<void>;
  all<T>(sql: string, params: readonly unknown[]): Promise<T[]>;
  transaction(work: (sql: Sql) => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export function openSqliteReadModel(options: { file: string }): ReadModelStore {
  if (options.file !== ':memory:') mkdirSync(dirname(options.file), { recursive: true });
  const db = new DatabaseSync(options.file);
  db.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL;');
  db.exec(`
    CREATE TABLE IF NOT EXISTS read_experiments (
      name TEXT PRIMARY KEY, algorithm TEXT NOT NULL, objective_metric TEXT NOT NULL,
      objective_type TEXT NOT NULL, rules TEXT NOT NULL,
      created_at_ms INTEGER NOT NULL, updated_at_ms INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS read_trials (
      id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, experiment TEXT NOT NULL,
      assignments TEXT NOT NULL, condition TEXT NOT NULL, reason TEXT NOT NULL, message TEXT NOT NULL,
      status_at_ms INTEGER, created_at_ms INTEGER NOT NULL);
    CREATE INDEX IF NOT EXISTS read_trials_experiment ON read_trials (experiment, id);`);
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
  };
  return readModel(sql, '');
}

export async function openPostgresReadModel(options: {
  url: string;
  schema: string;
  poolSize?: number;
}): Promise<ReadModelStore> {
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
    await tx.run(
      `CREATE TABLE IF NOT EXISTS ${s}.read_experiments (
        name TEXT PRIMARY KEY, algorithm TEXT NOT NULL, objective_metric TEXT NOT NULL,
        objective_type TEXT NOT NULL, rules TEXT NOT NULL,
        created_at_ms BIGINT NOT NULL, updated_at_ms BIGINT NOT NULL)`,
      [],
    );
    await tx.run(
      `CREATE TABLE IF NOT EXISTS ${s}.read_trials (
        id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE, experiment TEXT NOT NULL,
        assignments TEXT NOT NULL, condition TEXT NOT NULL, reason TEXT NOT NULL, message TEXT NOT NULL,
        status_at_ms BIGINT, created_at_ms BIGINT NOT NULL)`,
      [],
    );
    await tx.run(
      `CREATE INDEX IF NOT EXISTS read_trials_experiment ON ${s}.read_trials (experiment, id)`,
      [],
    );
  });
  return readModel(sql, `${s}.`);
}

interface ExperimentRow {
  name: string;
  algorithm: string;
  objective_metric: string;
  objective_type: string;
  rules: string;
  created_at_ms: number | string;
  updated_at_ms: number | string;
  trial_count: number | string;
}

interface TrialRow {
  name: string;
  experiment: string;
  assignments: string;
  condition: string;
  reason: string;
  message: string;
  status_at_ms: number | string | null;
  created_at_ms: number | string;
}

function readModel(sql: Sql, p: string): ReadModelStore {
  const E = `${p}read_experiments`;
  const T = `${p}read_trials`;
  const experimentSelect = `SELECT e.name, e.algorithm, e.objective_metric, e.objective_type, e.rules,
      e.created_at_ms, e.updated_at_ms,
      (SELECT count(*) FROM ${T} t WHERE t.experiment = e.name) AS trial_count
    FROM ${E} e`;
  const toExperiment = (r: ExperimentRow): ExperimentView => ({
    name: r.name,
    algorithm: r.algorithm,
    objectiveMetric: r.objective_metric,
    objectiveType: r.objective_type,
    rules: JSON.parse(r.rules) as EarlyStoppingRuleView[],
    trialCount: Number(r.trial_count),
    createdAtMs: Number(r.created_at_ms),
    updatedAtMs: Number(r.updated_at_ms),
  });
  const toTrial = (r: TrialRow, order: number): TrialView => ({
    name: r.name,
    experiment: r.experiment,
    order,
    assignments: JSON.parse(r.assignments) as Assignment[],
    condition: r.condition,
    reason: r.reason,
    message: r.message,
    statusAtMs: r.status_at_ms === null ? null : Number(r.status_at_ms),
    createdAtMs: Number(r.created_at_ms),
  });
  const trialColumns =
    'name, experiment, assignments, condition, reason, message, status_at_ms, created_at_ms';

  const applyOne = async (tx: Sql, c: ReadModelChange): Promise<void> => {
    switch (c.kind) {
      case 'experiment':
        await tx.run(
          `INSERT INTO ${E} (name, algorithm, objective_metric, objective_type, rules, created_at_ms, updated_at_ms)
           VALUES ($1, $2, $3, $4, $5, $6, $6)
           ON CONFLICT (name) DO UPDATE SET
             algorithm = CASE WHEN excluded.algorithm <> '' THEN excluded.algorithm ELSE ${E}.algorithm END,
             objective_metric = CASE WHEN excluded.objective_metric <> '' THEN excluded.objective_metric ELSE ${E}.objective_metric END,
             objective_type = CASE WHEN excluded.objective_type <> '' THEN excluded.objective_type ELSE ${E}.objective_type END,
             rules = CASE WHEN $7 = 1 THEN excluded.rules ELSE ${E}.rules END,
             updated_at_ms = CASE WHEN excluded.updated_at_ms > ${E}.updated_at_ms THEN excluded.updated_at_ms ELSE ${E}.updated_at_ms END,
             created_at_ms = CASE WHEN excluded.created_at_ms < ${E}.created_at_ms THEN excluded.created_at_ms ELSE ${E}.created_at_ms END`,
          [
            c.name,
            c.algorithm,
            c.objectiveMetric,
            c.objectiveType,
            JSON.stringify(c.rules ?? []),
            c.atMs,
            c.rules !== undefined ? 1 : 0,
          ],
        );
        return;
      case 'trial':
        await tx.run(
          `INSERT INTO ${T} (name, experiment, assignments, condition, reason, message, status_at_ms, created_at_ms)
           VALUES ($1, $2, $3, $4, '', '', NULL, $5)
           ON CONFLICT (name) DO UPDATE SET
             experiment = CASE WHEN excluded.experiment <> '' THEN excluded.experiment ELSE ${T}.experiment END,
             assignments = CASE WHEN $6 = 1 THEN excluded.assignments ELSE ${T}.assignments END,
             condition = CASE WHEN ${T}.status_at_ms IS NULL AND excluded.condition <> '' THEN excluded.condition ELSE ${T}.condition END`,
          [
            c.name,
            c.experiment,
            JSON.stringify(c.assignments ?? []),
            c.listedCondition ?? '',
            c.atMs,
            c.assignments !== undefined && c.assignments.length > 0 ? 1 : 0,
          ],
        );
        return;
      case 'status':
        await tx.run(
          `INSERT INTO ${T} (name, experiment, assignments, condition, reason, message, status_at_ms, created_at_ms)
           VALUES ($1, $2, '[]', $3, $4, $5, $6, $6)
           ON CONFLICT (name) DO UPDATE SET
             experiment = CASE WHEN excluded.experiment <> '' THEN excluded.experiment ELSE ${T}.experiment END,
             condition = excluded.condition, reason = excluded.reason, message = excluded.message,
             status_at_ms = excluded.status_at_ms`,
          [c.name, c.experiment, c.condition, c.reason, c.message, c.atMs],
        );
        return;
    }
  };

  const experiment = async (name: string): Promise<ExperimentView | undefined> => {
    const rows = await sql.all<ExperimentRow>(`${experimentSelect} WHERE e.name = $1`, [name]);
    return rows[0] ? toExperiment(rows[0]) : undefined;
  };

  return {
    apply: (changes) =>
      changes.length === 0
        ? Promise.resolve()
        : sql.transaction(async (tx) => {
            for (const change of changes) await applyOne(tx, change);
          }),
    isEmpty: async () => {
      const e = await sql.all(`SELECT 1 AS one FROM ${E} LIMIT 1`, []);
      const t = await sql.all(`SELECT 1 AS one FROM ${T} LIMIT 1`, []);
      return e.length === 0 && t.length === 0;
    },
    experiments: async () =>
      (await sql.all<ExperimentRow>(`${experimentSelect} ORDER BY e.updated_at_ms DESC, e.name`, [])).map(
        toExperiment,
      ),
    experiment,
    trials: async (name) => {
      const exp = await experiment(name);
      const rows = await sql.all<TrialRow>(
        `SELECT ${trialColumns} FROM ${T} WHERE experiment = $1 ORDER BY id`,
        [name],
      );
      const metric = exp?.objectiveMetric ?? '';
      const values =
        metric === ''
          ? []
          : await sql.all<{ trial_name: string; value: string }>(
              `SELECT o.trial_name, o.value FROM ${p}observation_logs o
               WHERE o.metric_name = $1 AND o.trial_name IN (SELECT name FROM ${T} WHERE experiment = $2)
               ORDER BY o.time, o.id`,
              [metric, name],
            );
      const best = bestObjectives(
        values.map((v) => ({ trialName: v.trial_name, value: v.value })),
        exp?.objectiveType ?? '',
      );
      return rows.map((r, i) => {
        const b = best.get(r.name);
        return { ...toTrial(r, i + 1), bestObjective: b?.best ?? null, objectivePoints: b?.points ?? 0 };
      });
    },
    trial: async (name) => {
      const rows = await sql.all<TrialRow>(`SELECT ${trialColumns} FROM ${T} WHERE name = $1`, [name]);
      if (!rows[0]) return undefined;
      const before = await sql.all<{ n: number | string }>(
        `SELECT count(*) AS n FROM ${T} WHERE experiment = $1 AND id <= (SELECT id FROM ${T} WHERE name = $2)`,
        [rows[0].experiment, name],
      );
      return toTrial(rows[0], Number(before[0]?.n ?? 0));
    },
    trialNames: async (name) =>
      (await sql.all<{ name: string }>(`SELECT name FROM ${T} WHERE experiment = $1`, [name])).map(
        (r) => r.name,
      ),
    close: () => sql.close(),
  };
}
