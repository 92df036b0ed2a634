// GET /api/experiments/{name}/pareto: the Pareto rank of every counted trial, the front and its
// hypervolume (?reference=a,b in the metrics' units; default the worst values plus 10% of each
// range). GET /api/experiments/{name}/importance: each parameter's fANOVA importance per objective,
// kept per experiment until its trials change. Both JSON, or CSV with ?format=csv or Accept: text/csv.
import { notFound } from '../../../../shared/errors.ts';
import type { ObjectiveAnalysis, ReadModel } from '../../common/read-model.ts';
import { toCsv } from '../csv.ts';
import { objectivesOf, referenceOf } from '../objective-queries.ts';
import { csv, formatOf, json, params } from './http-replies.ts';
import type { HttpHandler } from './read-endpoints.ts';

export function createObjectiveEndpoints(deps: {
  readonly readModel: Pick<ReadModel, 'experiment' | 'trialObjectives'>;
  readonly analysis: ObjectiveAnalysis;
}): { pareto: HttpHandler; importance: HttpHandler } {
  const { readModel, analysis } = deps;
  const experimentOf = async (name: string) => {
    const experiment = await readModel.experiment(name);
    if (!experiment) throw notFound(`experiment ${JSON.stringify(name)}: not found`);
    return experiment;
  };

  const pareto: HttpHandler = async ({ req, res, url, params: path }) => {
    const name = path.experiment!;
    const query = params(url, ['format', 'reference']);
    const format = formatOf(query, req);
    const experiment = await experimentOf(name);
    const objectives = objectivesOf(experiment);
    const reference = referenceOf(query.get('reference'), objectives);
    const answer = analysis.front(objectives, await readModel.trialObjectives(name, objectives), reference);
    if (format === 'json') return json(res, 200, { experiment, ...answer });
    const rows = answer.trials.map((t) => [t.name, t.rank, ...t.values]);
    csv(res, `${name}-pareto`, toCsv(['name', 'rank', ...objectives.map((o) => o.metricName)], rows));
  };

  const importance: HttpHandler = async ({ req, res, url, params: path }) => {
    const name = path.experiment!;
    const format = formatOf(params(url, ['format']), req);
    const experiment = await experimentOf(name);
    const objectives = objectivesOf(experiment);
    const trials = await readModel.trialObjectives(name, objectives);
    const answer = analysis.importance(name, experiment.parameters, objectives, trials);
    if (format === 'json') return json(res, 200, { experiment, ...answer });
    const rows = answer.objectives.flatMap((o) =>
      (o.importances ?? []).map((p) => [o.metricName, p.parameter, p.importance]),
    );
    csv(res, `${name}-importance`, toCsv(['objective', 'parameter', 'importance'], rows));
  };

  return { pareto, importance };
}
