// The read model's trial queries: a trial's status comes from the observation store's
// trial_statuses and its best objective from the store's metric_series (both kept in the batch that
// writes the logs), so sorting, filtering and paging all happen in one SQL statement.
import type {
  Assignment,
  ReadModel,
  TrialPage,
  TrialPageQuery,
  TrialSummary,
  TrialView,
  TrialWithObjective,
} from '../../common/ports.ts';
import type { Sql } from './read-model-sql.ts';

interface TrialRow {
  name: string;
  experiment: string;
  assignments: string;
  condition: string;
  reason: string;
  message: string;
  status_at_ms: number | string | null;
  created_at_ms: number | string;
  ord: number | string;
  best: number | null;
  points: number | string | null;
  total?: number | string;
}

const toTrial = (r: TrialRow): TrialWithObjective => ({
  name: r.name,
  experiment: r.experiment,
  order: Number(r.ord),
  assignments: JSON.parse(r.assignments) as Assignment[],
  condition: r.condition,
  reason: r.reason,
  message: r.message,
  statusAtMs: r.status_at_ms === null ? null : Number(r.status_at_ms),
  createdAtMs: Number(r.created_at_ms),
  bestObjective: r.best === null ? null : Number(r.best),
  objectivePoints: Number(r.points ?? 0),
});

export function trialQueries(
  sql: Sql,
  p: string,
): Pick<ReadModel, 'trialPage' | 'trialSummary' | 'trial' | 'trialNames'> {
  const { dialect } = sql;
  const T = `${p}read_trials`;
  // Each trial with its order in the experiment, shown condition and best objective: $1 is the
  // experiment; the rest of the parameters are the caller's.
  const ordered = (extra = '') => `SELECT t.id, t.name, t.experiment, t.assignments,
      COALESCE(s.condition, t.condition) AS condition, COALESCE(s.reason, '') AS reason,
      COALESCE(s.message, '') AS message, s.changed_at_ms AS status_at_ms, t.created_at_ms,
      row_number() OVER (ORDER BY t.id) AS ord,
      CASE e.objective_type WHEN 'MAXIMIZE' THEN m.max_value WHEN 'MINIMIZE' THEN m.min_value
        ELSE m.last_value END AS best,
      m.points AS points${extra}
    FROM ${T} t
    LEFT JOIN ${p}trial_statuses s ON s.trial_name = t.name
    LEFT JOIN ${p}read_experiments e ON e.name = t.experiment
    LEFT JOIN ${p}metric_series m ON m.trial_name = t.name AND m.metric_name = e.objective_metric
    WHERE t.experiment = $1`;
  const columns = `o.name, o.experiment, o.assignments, o.condition, o.reason, o.message, o.status_at_ms,
    o.created_at_ms, o.ord, o.best, o.points`;

  const trialPage = async (experiment: string, q: TrialPageQuery): Promise<TrialPage> => {
    const dir = q.descending ? 'DESC' : 'ASC';
    const params: unknown[] = [
      experiment,
      q.condition ?? '',
      likePattern(q.nameContains ?? ''),
      q.limit,
      q.offset,
    ];
    // A missing value comes last either way; numbers before text; ties in the trials' order.
    const last = (value: string) => `(${value} IS NULL) ASC, ${value} ${dir}`;
    let extra = '';
    let order: string;
    if ('parameter' in q.sort) {
      params.push(q.sort.parameter);
      extra = `, ${dialect.parameterValue('t.assignments', '$6')} AS pv`;
      order = `${last(dialect.number('o.pv'))}, ${last(dialect.binary('o.pv'))}`;
    } else
      order = {
        order: `o.ord ${dir}`,
        name: `${dialect.binary('o.name')} ${dir}`,
        condition: `${dialect.binary('o.condition')} ${dir}`,
        bestObjective: last('o.best'),
      }[q.sort.column];
    const rows = await sql.all<TrialRow>(
      `SELECT ${columns}, count(*) OVER () AS total FROM (${ordered(extra)}) o
       WHERE ($2 = '' OR o.condition = $2) AND ($3 = '%%' OR lower(o.name) LIKE $3 ESCAPE '\\')
       ORDER BY ${order}, o.ord LIMIT $4 OFFSET $5`,
      params,
    );
    if (rows.length > 0) return { total: Number(rows[0]!.total), trials: rows.map(toTrial) };
    // Past the last page: the count alone.
    const counted = await sql.all<{ n: number | string }>(
      `SELECT count(*) AS n FROM (${ordered()}) o
       WHERE ($2 = '' OR o.condition = $2) AND ($3 = '%%' OR lower(o.name) LIKE $3 ESCAPE '\\')`,
      params.slice(0, 3),
    );
    return { total: Number(counted[0]?.n ?? 0), trials: [] };
  };

  return {
    trialPage,

    trialSummary: async (experiment): Promise<TrialSummary> => {
      const rows = await sql.all<Pick<TrialRow, 'name' | 'condition' | 'best' | 'assignments'>>(
        `SELECT o.name, o.condition, o.best, o.assignments FROM (${ordered()}) o ORDER BY o.ord`,
        [experiment],
      );
      const assignments = rows.map((r) => JSON.parse(r.assignments) as Assignment[]);
      const parameters = [...new Set(assignments.flatMap((a) => a.map((x) => x.name)))].sort();
      const values = parameters.map((name) =>
        assignments.map((a) => a.find((x) => x.name === name)?.value ?? ''),
      );
      return {
        names: rows.map((r) => r.name),
        conditions: rows.map((r) => r.condition),
        best: rows.map((r) => (r.best === null ? null : Number(r.best))),
        parameters,
        values,
      };
    },

    trial: async (name) => {
      const found = await sql.all<{ experiment: string }>(`SELECT experiment FROM ${T} WHERE name = $1`, [
        name,
      ]);
      if (!found[0]) return undefined;
      const rows = await sql.all<TrialRow>(`SELECT ${columns} FROM (${ordered()}) o WHERE o.name = $2`, [
        found[0].experiment,
        name,
      ]);
      if (!rows[0]) return undefined;
      const { bestObjective: _, objectivePoints: __, ...trial } = toTrial(rows[0]);
      return trial satisfies TrialView;
    },

    trialNames: async (name) =>
      (await sql.all<{ name: string }>(`SELECT name FROM ${T} WHERE experiment = $1`, [name])).map(
        (r) => r.name,
      ),
  };
}

/** A LIKE pattern for "contains", ignoring ASCII case, with % _ and \ taken literally. */
function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
