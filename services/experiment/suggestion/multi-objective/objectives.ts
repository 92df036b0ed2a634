// The algorithm setting `objectives` (`accuracy:maximize,latency_ms:minimize`) and the loss vector
// of every completed trial under it. A Katib request carries a multi-objective experiment
// unchanged: the first objective is the experiment's objective (objective_metric_name and type),
// so Katib's controller, UI and any client that knows nothing of the others still see a valid
// single-objective experiment; every further objective must be one of the objective's
// additional_metric_names, because Katib's metrics collector gathers only those, and a metric it
// does not gather would never reach a trial's observation.

import { invalidArgument } from '../../../../shared/errors.ts';
import { type Direction, type Objective, readFinite, type TrialRecord } from '../katib-space.ts';
import type { Point } from '../space.ts';
import type { Losses } from './pareto.ts';

export const OBJECTIVES_SETTING = 'objectives';

export interface NamedObjective {
  readonly metricName: string;
  readonly direction: Direction;
}

const DIRECTIONS: Readonly<Record<string, Direction>> = { maximize: 'MAXIMIZE', minimize: 'MINIMIZE' };
const FORMAT =
  'a comma-separated list of metric:direction with direction maximize or minimize, e.g. accuracy:maximize,latency_ms:minimize';

/** Parses the setting's text; INVALID_ARGUMENT naming the setting, its value and what is allowed. */
export function parseObjectives(text: string): NamedObjective[] {
  const fail = (problem: string) =>
    invalidArgument(`${OBJECTIVES_SETTING} "${text}": ${problem}; allowed: ${FORMAT}`);
  if (text.trim() === '') throw fail('no objective');
  const seen = new Set<string>();
  return text.split(',').map((entry) => {
    const colon = entry.lastIndexOf(':');
    if (colon < 0) throw fail(`entry "${entry.trim()}" has no direction`);
    const metricName = entry.slice(0, colon).trim();
    const word = entry.slice(colon + 1).trim();
    if (metricName === '') throw fail(`entry "${entry.trim()}" has no metric name`);
    // Optuna writes directions in lower case, Katib's ObjectiveType in upper case: both read.
    const direction = DIRECTIONS[word.toLowerCase()];
    if (direction === undefined)
      throw fail(`direction "${word}" of ${metricName} is neither maximize nor minimize`);
    if (seen.has(metricName)) throw fail(`metric ${metricName} is listed twice`);
    seen.add(metricName);
    return { metricName, direction };
  });
}

/**
 * The objectives of an experiment: the setting's when given (checked against the experiment's
 * objective as the header says), else the experiment's objective alone.
 */
export function resolveObjectives(text: string | undefined, experiment: Objective): NamedObjective[] {
  if (text === undefined) {
    return experiment.direction === undefined
      ? []
      : [{ metricName: experiment.metricName, direction: experiment.direction }];
  }
  const objectives = parseObjectives(text);
  const fail = (problem: string) => invalidArgument(`${OBJECTIVES_SETTING} "${text}": ${problem}`);
  const [first, ...others] = objectives as [NamedObjective, ...NamedObjective[]];
  if (first.metricName !== experiment.metricName)
    throw fail(
      `the first objective must be the experiment's objective_metric_name "${experiment.metricName}", got "${first.metricName}"`,
    );
  if (experiment.direction !== undefined && first.direction !== experiment.direction)
    throw fail(
      `${first.metricName} is to ${first.direction.toLowerCase()} but the experiment's objective type is ${experiment.direction}; they must agree`,
    );
  const collected = experiment.additionalMetricNames ?? [];
  for (const { metricName } of others) {
    if (!collected.includes(metricName))
      throw fail(
        `${metricName} must also be one of objective.additional_metric_names (now: ${collected.length === 0 ? 'none' : collected.join(', ')}), or Katib's metrics collector never reports it`,
      );
  }
  return objectives;
}

export interface ScoredTrial {
  /** Index in the request's trial records. */
  readonly index: number;
  readonly point: Point;
  /** One loss per objective (MAXIMIZE negated), in the objectives' order. */
  readonly losses: Losses;
}

/**
 * The completed trials that report every objective, in request order. The first objective is the
 * value every algorithm reads (the trial's own objective name first, the last value reported);
 * the others are the last finite value of that metric in the observation. A completed trial
 * missing one of them is left out: it cannot be ranked against the others.
 */
export function scoreTrials(
  records: readonly TrialRecord[],
  objectives: readonly NamedObjective[],
): ScoredTrial[] {
  const scored: ScoredTrial[] = [];
  records.forEach((record, index) => {
    if (record.point === undefined || record.objective === undefined) return;
    const losses: number[] = [];
    for (let k = 0; k < objectives.length; k++) {
      const { metricName, direction } = objectives[k]!;
      const text = k === 0 ? undefined : record.metrics.findLast((m) => m.name === metricName)?.value;
      const value = k === 0 ? record.objective : text === undefined ? undefined : readFinite(text);
      if (value === undefined) return;
      losses.push(direction === 'MAXIMIZE' ? -value : value);
    }
    scored.push({ index, point: record.point, losses });
  });
  return scored;
}
