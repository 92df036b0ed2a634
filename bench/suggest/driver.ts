// One optimisation loop as Katib's controller runs it: ask for one suggestion, run the trial
// (evaluate the problem), report it SUCCEEDED with its objective, repeat. The requests are the
// decoded proto shape, so the same loop drives the service in-process or through gRPC.

import type { Experiment__Output } from '../../proto/gen/api/v1/beta1/Experiment.ts';
import type { GetSuggestionsReply__Output } from '../../proto/gen/api/v1/beta1/GetSuggestionsReply.ts';
import type { GetSuggestionsRequest__Output } from '../../proto/gen/api/v1/beta1/GetSuggestionsRequest.ts';
import type { ParameterSpec__Output } from '../../proto/gen/api/v1/beta1/ParameterSpec.ts';
import type { Trial__Output } from '../../proto/gen/api/v1/beta1/Trial.ts';
import type { ParameterSpec, Problem } from './problems.ts';

export type Transport = (request: GetSuggestionsRequest__Output) => Promise<GetSuggestionsReply__Output>;

export const CHECKPOINTS = [25, 50, 100] as const;

/** Extra settings, and for hyperband the resource parameter it schedules (ignored by the objective). */
const ALGORITHM_SETUP: Readonly<
  Record<string, { settings: Record<string, string>; extra?: ParameterSpec; parallel?: number }>
> = {
  hyperband: {
    settings: { r_l: '9', resource_name: 'budget', eta: '3' },
    // Katib requires parallel_trial_count ≥ eta^s_max; the loop still runs one trial at a time.
    parallel: 9,
    extra: { name: 'budget', parameterType: 'INT', feasibleSpace: { min: '1', max: '9' } },
  },
  pbt: {
    settings: { suggestion_trial_dir: '/tmp/bench-pbt', n_population: '5', truncation_threshold: '0.2' },
  },
};

export interface LoopResult {
  /** Regret (best loss so far − optimum) after each checkpoint's number of trials. */
  readonly regrets: number[];
  /** The request that asks for the next suggestion with every trial completed (for timing). */
  readonly finalRequest: GetSuggestionsRequest__Output;
}

/**
 * `batch` suggestions per round (as many trials run in parallel), all told together before the
 * next round, as the anchors' batch-5 protocol does; batch 1 is the sequential loop.
 */
export async function runLoop(
  transport: Transport,
  algorithm: string,
  problem: Problem,
  seed: number,
  trials: number,
  batch = 1,
  checkpoints: readonly number[] = CHECKPOINTS,
): Promise<LoopResult> {
  const setup = ALGORITHM_SETUP[algorithm] ?? { settings: {} };
  const specs = [
    ...(algorithm === 'grid' ? problem.gridParameters : problem.parameters),
    ...(setup.extra ? [setup.extra] : []),
  ];
  let settings = Object.entries(setup.settings).map(([name, value]) => ({ name, value }));
  const done: Trial__Output[] = [];
  const regrets: number[] = [];
  let best = Number.POSITIVE_INFINITY;
  const requestFor = (count: number): GetSuggestionsRequest__Output => ({
    experiment: experiment(
      `bench-${algorithm}-${problem.name}-${seed}-b${batch}`,
      algorithm,
      specs,
      settings,
      trials,
      Math.max(batch, setup.parallel ?? 1),
    ),
    trials: done,
    current_request_number: count,
    total_request_number: done.length + count,
  });
  while (done.length < trials) {
    const count = Math.min(batch, trials - done.length);
    const reply = await transport(requestFor(count));
    if (reply.parameter_assignments.length < count) {
      throw new Error(
        `${algorithm} on ${problem.name}: ${reply.parameter_assignments.length} of ${count} suggestions at trial ${done.length}`,
      );
    }
    // Every suggestion of the round is evaluated before any is told.
    const round = reply.parameter_assignments.slice(0, count).map((suggestion) => {
      const assignment = Object.fromEntries(suggestion.assignments.map((a) => [a.name, a.value]));
      return { suggestion, loss: problem.evaluate(assignment) };
    });
    for (const { suggestion, loss } of round) {
      const t = done.length;
      best = Math.min(best, loss);
      done.push(completedTrial(suggestion, t, loss));
      if (checkpoints.includes(t + 1)) regrets.push(best - problem.optimum);
    }
    // The controller merges the reply's settings (hyperband's state) into the next request.
    for (const { name, value } of reply.algorithm?.algorithm_settings ?? []) {
      settings = [...settings.filter((s) => s.name !== name), { name, value }];
    }
  }
  return { regrets, finalRequest: requestFor(batch) };
}

function experiment(
  name: string,
  algorithm: string,
  specs: readonly ParameterSpec[],
  settings: { name: string; value: string }[],
  maxTrials: number,
  parallel: number,
): Experiment__Output {
  return {
    name,
    spec: {
      parameter_specs: { parameters: specs.map(toProtoSpec) },
      objective: OBJECTIVE,
      algorithm: { algorithm_name: algorithm, algorithm_settings: settings },
      early_stopping: null,
      parallel_trial_count: parallel,
      max_trial_count: maxTrials,
      nas_config: null,
    },
  };
}

const OBJECTIVE = {
  type: 'MINIMIZE' as const,
  goal: 0,
  objective_metric_name: 'loss',
  additional_metric_names: [],
};

function toProtoSpec(spec: ParameterSpec): ParameterSpec__Output {
  const space = spec.feasibleSpace;
  return {
    name: spec.name,
    parameter_type: spec.parameterType,
    feasible_space: {
      min: space.min ?? '',
      max: space.max ?? '',
      list: [...(space.list ?? [])],
      step: space.step ?? '',
      distribution: space.distribution ?? 'DISTRIBUTION_UNSPECIFIED',
    },
  };
}

function completedTrial(
  suggestion: GetSuggestionsReply__Output['parameter_assignments'][number],
  index: number,
  loss: number,
): Trial__Output {
  const second = (offset: number) =>
    new Date(Date.UTC(2024, 0, 1) + (2 * index + offset) * 1000).toISOString().replace('.000', '');
  return {
    name: suggestion.trial_name || `trial-${String(index).padStart(4, '0')}`,
    spec: {
      objective: OBJECTIVE,
      parameter_assignments: { assignments: suggestion.assignments },
      labels: { ...suggestion.labels },
    },
    status: {
      start_time: second(0),
      completion_time: second(1),
      condition: 'SUCCEEDED',
      observation: { metrics: [{ name: 'loss', value: String(loss) }] },
    },
  };
}
