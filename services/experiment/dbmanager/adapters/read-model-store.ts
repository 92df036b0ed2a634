// The read model's upserts and experiment queries over its tables (./read-model-sql.ts); the trial
// queries are ./read-model-trials.ts. A trial's status is not kept here: it is read from the
// observation store's trial_statuses, which the persistence consumer writes in the same batch as the
// observations, so it is written once.
import type { ObservationStore } from '../../common/ports.ts';
import type {
  EarlyStoppingRuleView,
  ExperimentView,
  ObjectiveView,
  ReadModel,
  SearchParameterView,
} from '../../common/read-model.ts';
import type { ReadModelChange } from '../read-model.ts';
import { openPostgresReadModelSql, openSqliteReadModelSql, type Sql } from './read-model-sql.ts';
import { trialQueries } from './read-model-trials.ts';

/** The read model as the persistence consumer keeps it. */
export interface ReadModelStore extends ReadModel {
  /** Applies changes in order, in one transaction. */
  apply(changes: readonly ReadModelChange[]): Promise<void>;
  /** Whether nothing was ever applied (a rebuild from the topics is due). */
  isEmpty(): Promise<boolean>;
  close(): Promise<void>;
}

/** Where the observation store keeps its tables: the read model's go beside them. */
export type ReadModelDatabase =
  | { readonly kind: 'sqlite'; readonly file: string }
  | { readonly kind: 'postgres'; readonly url: string; readonly schema: string };

/** Opens the read model beside the observation store, once that store's tables exist (it reads them). */
export async function openReadModel(
  database: ReadModelDatabase,
  store: Pick<ObservationStore, 'ping'>,
): Promise<ReadModelStore> {
  await store.ping();
  return database.kind === 'sqlite'
    ? openSqliteReadModel({ file: database.file })
    : await openPostgresReadModel({ url: database.url, schema: database.schema });
}

/** In the SQLite file of the observation store (whose trial_statuses it reads). */
export function openSqliteReadModel(options: { file: string }): ReadModelStore {
  const { sql, prefix } = openSqliteReadModelSql(options.file);
  return readModel(sql, prefix);
}

/** In the PostgreSQL schema of the observation store (whose trial_statuses it reads). */
export async function openPostgresReadModel(options: {
  url: string;
  schema: string;
  poolSize?: number;
}): Promise<ReadModelStore> {
  const { sql, prefix } = await openPostgresReadModelSql(options);
  return readModel(sql, prefix);
}

interface ExperimentRow {
  name: string;
  algorithm: string;
  objective_metric: string;
  objective_type: string;
  rules: string;
  objectives: string;
  parameters: string;
  created_at_ms: number | string;
  updated_at_ms: number | string;
  trial_count: number | string;
}

/** The stored objectives, else the experiment's objective alone when its direction is known. */
function objectivesOf(r: ExperimentRow): ObjectiveView[] {
  const listed = JSON.parse(r.objectives) as ObjectiveView[];
  if (listed.length > 0) return listed;
  const type = r.objective_type;
  return r.objective_metric !== '' && (type === 'MAXIMIZE' || type === 'MINIMIZE')
    ? [{ metricName: r.objective_metric, type }]
    : [];
}

function readModel(sql: Sql, p: string): ReadModelStore {
  const E = `${p}read_experiments`;
  const T = `${p}read_trials`;
  const experimentSelect = `SELECT e.name, e.algorithm, e.objective_metric, e.objective_type, e.rules,
      e.objectives, e.parameters, e.created_at_ms, e.updated_at_ms,
      (SELECT count(*) FROM ${T} t WHERE t.experiment = e.name) AS trial_count
    FROM ${E} e`;
  const toExperiment = (r: ExperimentRow): ExperimentView => ({
    name: r.name,
    algorithm: r.algorithm,
    objectiveMetric: r.objective_metric,
    objectiveType: r.objective_type,
    objectives: objectivesOf(r),
    parameters: JSON.parse(r.parameters) as SearchParameterView[],
    rules: JSON.parse(r.rules) as EarlyStoppingRuleView[],
    trialCount: Number(r.trial_count),
    createdAtMs: Number(r.created_at_ms),
    updatedAtMs: Number(r.updated_at_ms),
  });
  const applyOne = async (tx: Sql, c: ReadModelChange): Promise<void> => {
    switch (c.kind) {
      case 'experiment':
        await tx.run(
          `INSERT INTO ${E} (name, algorithm, objective_metric, objective_type, rules, created_at_ms, updated_at_ms,
             objectives, parameters)
           VALUES ($1, $2, $3, $4, $5, $6, $6, $8, $9)
           ON CONFLICT (name) DO UPDATE SET
             algorithm = CASE WHEN excluded.algorithm <> '' THEN excluded.algorithm ELSE ${E}.algorithm END,
             objective_metric = CASE WHEN excluded.objective_metric <> '' THEN excluded.objective_metric ELSE ${E}.objective_metric END,
             objective_type = CASE WHEN excluded.objective_type <> '' THEN excluded.objective_type ELSE ${E}.objective_type END,
             rules = CASE WHEN $7 = 1 THEN excluded.rules ELSE ${E}.rules END,
             objectives = CASE WHEN $10 = 1 THEN excluded.objectives ELSE ${E}.objectives END,
             parameters = CASE WHEN $11 = 1 THEN excluded.parameters ELSE ${E}.parameters END,
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
            JSON.stringify(c.objectives ?? []),
            JSON.stringify(c.parameters ?? []),
            c.objectives !== undefined ? 1 : 0,
            c.parameters !== undefined ? 1 : 0,
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
             condition = CASE WHEN excluded.condition <> '' THEN excluded.condition ELSE ${T}.condition END`,
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
    ...trialQueries(sql, p),
    close: () => sql.close(),
  };
}
