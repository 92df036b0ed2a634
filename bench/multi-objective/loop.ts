// Our side of bench:multi-objective: one experiment run as Katib's controller runs it, one
// suggestion at a time, each trial told SUCCEEDED with every objective in its observation
// (the first as the objective metric, the others as additional metrics named in `objectives`).
// The request is the decoded proto shape and goes to the use case in process.

import type { Experiment__Output } from '../../proto/gen/api/v1/beta1/Experiment.ts';
import type { Trial__Output } from '../../proto/gen/api/v1/beta1/Trial.ts';
import { ALGORITHMS } from '../../services/experiment/suggestion/registry.ts';
import { suggest } from '../../services/experiment/suggestion/suggest.ts';
import type { MultiObjectiveProblem } from './problems.ts';

/** The settings every run of a sampler gets (besides `objectives` and `random_state`). */
const SETTINGS: Readonly<Record<string, Record<string, string>>> = {};

/** The loss vectors of `trials` trials, in the order they were suggested. */
export function runOurs(
  algorithm: string,
  problem: MultiObjectiveProblem,
  seed: number,
  trials: number,
): number[][] {
  const exp = experimentOf(algorithm, problem, seed, trials);
  const done: Trial__Output[] = [];
  const losses: number[][] = [];
  while (done.length < trials) {
    const { reply } = suggest(
      { experiment: exp, trials: done, current_request_number: 1, total_request_number: done.length + 1 },
      ALGORITHMS,
    );
    const assignments = (reply.parameter_assignments ?? [])[0]!.assignments!.map((a) => ({
      name: a.name!,
      value: a.value!,
    }));
    const values = problem.evaluate(Object.fromEntries(assignments.map((a) => [a.name, a.value])));
    losses.push(values);
    done.push(completed(done.length, assignments, problem.metrics, values));
  }
  return losses;
}

function experimentOf(
  algorithm: string,
  problem: MultiObjectiveProblem,
  seed: number,
  trials: number,
): Experiment__Output {
  const settings = {
    ...SETTINGS[algorithm],
    objectives: problem.metrics.map((m) => `${m}:minimize`).join(','),
    random_state: String(seed),
  };
  return {
    name: `bench-mo-${algorithm}-${problem.name}-${seed}`,
    spec: {
      parameter_specs: {
        parameters: problem.parameters.map((p) => ({
          name: p.name,
          parameter_type: p.parameterType,
          feasible_space: {
            min: p.feasibleSpace.min ?? '',
            max: p.feasibleSpace.max ?? '',
            list: [...(p.feasibleSpace.list ?? [])],
            step: '',
            distribution: 'DISTRIBUTION_UNSPECIFIED',
          },
        })),
      },
      objective: {
        type: 'MINIMIZE',
        goal: 0,
        objective_metric_name: problem.metrics[0]!,
        additional_metric_names: problem.metrics.slice(1),
      },
      algorithm: {
        algorithm_name: algorithm,
        algorithm_settings: Object.entries(settings).map(([name, value]) => ({ name, value })),
      },
      early_stopping: null,
      parallel_trial_count: 1,
      max_trial_count: trials,
      nas_config: null,
    },
  };
}

function completed(
  index: number,
  assignments: readonly { name: string; value: string }[],
  metrics: readonly string[],
  values: readonly number[],
): Trial__Output {
  // nsga2 orders its generations by completion time.
  const second = (offset: number) =>
    new Date(Date.UTC(2024, 0, 1) + (2 * index + offset) * 1000).toISOString().replace('.000', '');
  return {
    name: `trial-${String(index).padStart(4, '0')}`,
    spec: {
      objective: null,
      parameter_assignments: { assignments: [...assignments] },
      labels: {},
    },
    status: {
      start_time: second(0),
      completion_time: second(1),
      condition: 'SUCCEEDED',
      observation: { metrics: metrics.map((name, k) => ({ name, value: String(values[k]) })) },
    },
  } as unknown as Trial__Output;
}
