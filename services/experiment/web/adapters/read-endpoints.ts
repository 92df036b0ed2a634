// The read API: experiments and trials from the read model (a page at a time, sorted and filtered
// there; every trial in columns for the charts), a trial's observations and its curves reduced to
// a chart's columns from the store (JSON, or CSV with ?format=csv or Accept: text/csv), and the
// live streams (SSE).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { invalidArgument, notFound } from '../../../../shared/errors.ts';
import { toQuery } from '../../common/observation-query.ts';
import type { ObservationStore } from '../../common/ports.ts';
import type { ReadModel } from '../../common/read-model.ts';
import { toCsv } from '../csv.ts';
import { columnsOf, TRIAL_PAGE_PARAMETERS, trialPageQuery } from '../read-queries.ts';
import { csv, formatOf, json, params } from './http-replies.ts';
import type { LiveHub } from './live-hub.ts';

/** What a handler of the route table gets. */
export interface HttpContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  /** The path's named segments, percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
}

export type HttpHandler = (context: HttpContext) => Promise<void>;

/** Katib's GetObservationLog filters from ?metric, ?from and ?to; errors name the query parameter. */
function observationQueryOf(trialName: string, query: Map<string, string>) {
  try {
    return toQuery({
      trial_name: trialName,
      metric_name: query.get('metric') ?? '',
      start_time: query.get('from') ?? '',
      end_time: query.get('to') ?? '',
    });
  } catch (error) {
    const message = (error as Error).message
      .replace(/^start_time:/, 'query parameter from:')
      .replace(/^end_time:/, 'query parameter to:')
      .replace(/is after end_time/, 'is after to');
    throw invalidArgument(message, error);
  }
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

const EXPERIMENT_COLUMNS = [
  'name',
  'algorithm',
  'objective_metric',
  'objective_type',
  'trial_count',
  'created_at',
  'updated_at',
];

/** A trial name from the path; an empty one is refused. */
function trialName(context: HttpContext): string {
  const name = context.params.trial!;
  if (name.trim() === '') throw invalidArgument('trial name: must not be empty');
  return name;
}

export function createReadEndpoints(deps: {
  readonly readModel: ReadModel;
  readonly store: Pick<ObservationStore, 'query' | 'curves'>;
  readonly hub: LiveHub;
}) {
  const { readModel, store, hub } = deps;

  /** The experiment of the path, after its query parameters are checked. */
  const experimentOf = async (name: string) => {
    const experiment = await readModel.experiment(name);
    if (!experiment) throw notFound(`experiment ${JSON.stringify(name)}: not found`);
    return experiment;
  };

  const experiments: HttpHandler = async ({ req, res, url }) => {
    const format = formatOf(params(url, ['format']), req);
    const all = await readModel.experiments();
    if (format === 'json') return json(res, 200, { experiments: all });
    const rows = all.map((e) => [
      e.name,
      e.algorithm,
      e.objectiveMetric,
      e.objectiveType,
      e.trialCount,
      iso(e.createdAtMs),
      iso(e.updatedAtMs),
    ]);
    csv(res, 'experiments', toCsv(EXPERIMENT_COLUMNS, rows));
  };

  const experiment: HttpHandler = async ({ res, url, params: path }) => {
    params(url, []);
    json(res, 200, await experimentOf(path.experiment!));
  };

  const experimentTrials: HttpHandler = async ({ req, res, url, params: path }) => {
    const name = path.experiment!;
    const query = params(url, ['format', ...TRIAL_PAGE_PARAMETERS]);
    const format = formatOf(query, req);
    const pageQuery = trialPageQuery(query, format === 'csv');
    const found = await experimentOf(name);
    const { total, trials } = await readModel.trialPage(name, pageQuery);
    if (format === 'json') {
      const { offset, limit } = pageQuery;
      return json(res, 200, { experiment: found, total, offset, limit, trials });
    }
    const parameterNames = [...new Set(trials.flatMap((t) => t.assignments.map((a) => a.name)))].sort();
    const rows = trials.map((t) => [
      t.order,
      t.name,
      t.condition,
      t.bestObjective,
      ...parameterNames.map((p) => t.assignments.find((a) => a.name === p)?.value ?? ''),
    ]);
    csv(
      res,
      `${name}-trials`,
      toCsv(['order', 'name', 'condition', 'best_objective', ...parameterNames], rows),
    );
  };

  const experimentSummary: HttpHandler = async ({ res, url, params: path }) => {
    const name = path.experiment!;
    params(url, []);
    const found = await experimentOf(name);
    json(res, 200, { experiment: found, ...(await readModel.trialSummary(name)) });
  };

  const experimentStream: HttpHandler = async ({ res, url, params: path }) => {
    const name = path.experiment!;
    params(url, []);
    const names = await readModel.trialNames(name);
    hub.attach(res, { experiment: name }, { experiment: name, trials: names });
  };

  const trial: HttpHandler = async (context) => {
    const name = trialName(context);
    params(context.url, []);
    const found = await readModel.trial(name);
    if (!found) throw notFound(`trial ${JSON.stringify(name)}: not found`);
    const of = found.experiment === '' ? undefined : await readModel.experiment(found.experiment);
    json(context.res, 200, { trial: found, experiment: of ?? null });
  };

  const trialObservations: HttpHandler = async (context) => {
    const name = trialName(context);
    const query = params(context.url, ['format', 'metric', 'from', 'to']);
    const format = formatOf(query, context.req);
    const rows = await store.query(observationQueryOf(name, query));
    if (format === 'csv') {
      const cells = rows.map((r) => [r.time, r.metricName, r.value]);
      return csv(context.res, `${name}-observations`, toCsv(['time', 'metric', 'value'], cells));
    }
    json(context.res, 200, {
      trial: name,
      observations: rows.map((r) => ({ time: r.time, metric: r.metricName, value: r.value })),
    });
  };

  const trialCurves: HttpHandler = async (context) => {
    const name = trialName(context);
    const query = params(context.url, ['metric', 'from', 'to', 'columns']);
    const observed = observationQueryOf(name, query);
    const curves = await store.curves({ ...observed, columns: columnsOf(query) });
    json(context.res, 200, { trial: name, curves });
  };

  const trialStream: HttpHandler = async (context) => {
    const name = trialName(context);
    params(context.url, []);
    const found = await readModel.trial(name);
    hub.attach(context.res, { trial: name }, { experiment: found?.experiment ?? '', trials: [name] });
  };

  return {
    experiments,
    experiment,
    experimentTrials,
    experimentSummary,
    experimentStream,
    trial,
    trialObservations,
    trialCurves,
    trialStream,
  };
}
