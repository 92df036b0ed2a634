// The read model's trial queries: a trial's status comes from the observation store's
// trial_statuses and its best objective from the store's metric_series (both kept in the batch that
// writes the logs). A page is found in one statement that joins, over the experiment's trials, only
// what its sort and filters need; the page's rows then get the rest by id.
import type {
  Assignment,
  ObjectiveView,
  ReadModel,
  TrialObjectiveValues,
  TrialPage,
  TrialPageQuery,
  TrialSummary,
  TrialView,
  TrialWithObjective,
} from '../../common/read-model.ts';
import type { Sql } from './read-model-sql.ts';

interface TrialRow {
  id: number | string;
  name: string;
  experiment: string;
  assignments: string;
  condition: string;
  reason: string;
  message: string;
  status_at_ms: number | string | null;
  created_at_ms: number | string;
  best: number | null;
  points: number | string | null;
}

const toTrial = (r: TrialRow, order: number): TrialWithObjective => ({
  name: r.name,
  experiment: r.experiment,
  order,
  assignments: JSON.parse(r.assignments) as Assignment[],
  condition: r.condition,
  reason: r.reason,
  message: r.message,
  statusAtMs: r.status_at_ms === null ? null : Number(r.status_at_ms),
  createdAtMs: Number(r.created_at_ms),
  bestObjective: r.best === null ? null : Number(r.best),
  objectivePoints: Number(r.points ?? 0),
});

/** The objective's column of metric_series: max when maximizing, min when minimizing, else the latest. */
const bestColumn = (objectiveType: string) =>
  objectiveType === 'MAXIMIZE'
    ? 'm.max_value'
    : objectiveType === 'MINIMIZE'
      ? 'm.min_value'
      : 'm.last_value';

export function trialQueries(
  sql: Sql,
  p: string,
): Pick<ReadModel, 'trialPage' | 'trialSummary' | 'trialObjectives' | 'trial' | 'trialNames'> {
  const { dialect } = sql;
  const T = `${p}read_trials`;
  const statusJoin = `LEFT JOIN ${p}trial_statuses s ON s.trial_name = t.name`;
  // $2 is the objective metric in every statement that joins it.
  const seriesJoin = `LEFT JOIN ${p}metric_series m ON m.trial_name = t.name AND m.metric_name = $2`;
  const objective = async (experiment: string) =>
    (
      await sql.all<{ objective_metric: string; objective_type: string }>(
        `SELECT objective_metric, objective_type FROM ${p}read_experiments WHERE name = $1`,
        [experiment],
      )
    )[0] ?? { objective_metric: '', objective_type: '' };
  /** Trials of experiment $1 with every column, the objective metric being $2. */
  const details = (objectiveType: string, where: string) =>
    `SELECT t.id, t.name, t.experiment, t.assignments, COALESCE(s.condition, t.condition) AS condition,
       COALESCE(s.reason, '') AS reason, COALESCE(s.message, '') AS message, s.changed_at_ms AS status_at_ms,
       t.created_at_ms, ${bestColumn(objectiveType)} AS best, m.points AS points
     FROM ${T} t ${statusJoin} ${seriesJoin} WHERE t.experiment = $1 AND ${where}`;

  const trialPage = async (experiment: string, q: TrialPageQuery): Promise<TrialPage> => {
    const { objective_metric: metric, objective_type: type } = await objective(experiment);
    const dir = q.descending ? 'DESC' : 'ASC';
    const sort = 'parameter' in q.sort ? 'parameter' : q.sort.column;
    const params: unknown[] = [experiment];
    /** The placeholder of a new parameter. */
    const bind = (value: unknown) => `$${params.push(value)}`;
    // A missing value comes last either way; numbers before text; ties in the trials' order.
    const last = (value: string) => `(${value} IS NULL) ASC, ${value} ${dir}`;
    const keys = ['t.id', 't.name', 'row_number() OVER (ORDER BY t.id) AS ord'];
    const joins: string[] = [];
    if (q.condition !== undefined || sort === 'condition') {
      keys.push('COALESCE(s.condition, t.condition) AS condition');
      joins.push(statusJoin);
    }
    if (sort === 'bestObjective') {
      keys.push(`${bestColumn(type)} AS best`);
      joins.push(
        `LEFT JOIN ${p}metric_series m ON m.trial_name = t.name AND m.metric_name = ${bind(metric)}`,
      );
    }
    if ('parameter' in q.sort)
      keys.push(`${dialect.parameterValue('t.assignments', bind(q.sort.parameter))} AS pv`);
    const order = {
      order: `k.ord ${dir}`,
      name: `${dialect.binary('k.name')} ${dir}`,
      condition: `${dialect.binary('k.condition')} ${dir}`,
      bestObjective: last('k.best'),
      parameter: `${last(dialect.number('k.pv'))}, ${last(dialect.binary('k.pv'))}`,
    }[sort];
    const filters = [
      ...(q.condition === undefined ? [] : [`k.condition = ${bind(q.condition)}`]),
      ...(q.nameContains === undefined
        ? []
        : [`lower(k.name) LIKE ${bind(likePattern(q.nameContains))} ESCAPE '\\'`]),
    ];
    const page = await sql.all<{ id: number | string; ord: number | string; total: number | string }>(
      `SELECT k.id, k.ord, count(*) OVER () AS total
       FROM (SELECT ${keys.join(', ')} FROM ${T} t ${joins.join(' ')} WHERE t.experiment = $1) k
       ${filters.length > 0 ? `WHERE ${filters.join(' AND ')}` : ''}
       ORDER BY ${order}, k.ord LIMIT ${bind(q.limit)} OFFSET ${bind(q.offset)}`,
      params,
    );
    if (page.length === 0) {
      if (q.offset === 0) return { total: 0, trials: [] };
      // Past the last page: the count alone.
      return { total: (await trialPage(experiment, { ...q, offset: 0, limit: 1 })).total, trials: [] };
    }
    const ids = page.map((r) => Number(r.id));
    const rows = await sql.all<TrialRow>(
      details(type, `t.id IN (${ids.map((_, i) => `$${i + 3}`).join(', ')})`),
      [experiment, metric, ...ids],
    );
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    return {
      total: Number(page[0]!.total),
      trials: page.map((r) => toTrial(byId.get(Number(r.id))!, Number(r.ord))),
    };
  };

  return {
    trialPage,

    trialSummary: async (experiment): Promise<TrialSummary> => {
      const { objective_metric: metric, objective_type: type } = await objective(experiment);
      const rows = await sql.all<Pick<TrialRow, 'name' | 'condition' | 'best' | 'assignments'>>(
        `SELECT t.name, COALESCE(s.condition, t.condition) AS condition, ${bestColumn(type)} AS best, t.assignments
         FROM ${T} t ${statusJoin} ${seriesJoin} WHERE t.experiment = $1 ORDER BY t.id`,
        [experiment, metric],
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

    trialObjectives: async (experiment, objectives): Promise<TrialObjectiveValues> => {
      // One join per objective, each through metric_series' primary key (trial, metric).
      const joins = objectives.map(
        (_, k) =>
          `LEFT JOIN ${p}metric_series m${k} ON m${k}.trial_name = t.name AND m${k}.metric_name = $${k + 2}`,
      );
      const columns = objectives.map(
        (o: ObjectiveView, k) => `m${k}.${o.type === 'MAXIMIZE' ? 'max_value' : 'min_value'} AS v${k}`,
      );
      const rows = await sql.all<
        Pick<TrialRow, 'name' | 'condition' | 'assignments'> & Record<string, unknown>
      >(
        `SELECT t.name, COALESCE(s.condition, t.condition) AS condition, t.assignments${columns.map((c) => `, ${c}`).join('')}
         FROM ${T} t ${statusJoin} ${joins.join(' ')} WHERE t.experiment = $1 ORDER BY t.id`,
        [experiment, ...objectives.map((o) => o.metricName)],
      );
      return {
        names: rows.map((r) => r.name),
        conditions: rows.map((r) => r.condition),
        assignments: rows.map((r) => JSON.parse(r.assignments) as Assignment[]),
        values: objectives.map((_, k) =>
          rows.map((r) => {
            const v = r[`v${k}`];
            return v === null || v === undefined ? null : Number(v);
          }),
        ),
      };
    },

    trial: async (name) => {
      const found = await sql.all<{ experiment: string; id: number | string }>(
        `SELECT experiment, id FROM ${T} WHERE name = $1`,
        [name],
      );
      if (!found[0]) return undefined;
      const { experiment, id } = found[0];
      const { objective_metric: metric, objective_type: type } = await objective(experiment);
      const rows = await sql.all<TrialRow>(details(type, 't.name = $3'), [experiment, metric, name]);
      const before = await sql.all<{ n: number | string }>(
        `SELECT count(*) AS n FROM ${T} WHERE experiment = $1 AND id <= $2`,
        [experiment, id],
      );
      const {
        bestObjective: _,
        objectivePoints: __,
        ...trial
      } = toTrial(rows[0]!, Number(before[0]?.n ?? 0));
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
