// The Katib calls the trial controller makes, built from what it knows (as Katib's experiment and
// suggestion controllers build them): GetSuggestions with the experiment's spec and every trial
// (assignments, condition, each metric's value by its strategy), GetEarlyStoppingRules likewise,
// and the new trials read back from a GetSuggestions reply. Pure: the world comes in.
import type { Distribution as ProtoDistribution } from '../../../proto/gen/api/v1/beta1/Distribution.ts';
import type { Experiment } from '../../../proto/gen/api/v1/beta1/Experiment.ts';
import type { GetEarlyStoppingRulesRequest } from '../../../proto/gen/api/v1/beta1/GetEarlyStoppingRulesRequest.ts';
import type { GetObservationLogReply__Output } from '../../../proto/gen/api/v1/beta1/GetObservationLogReply.ts';
import type { GetSuggestionsReply__Output } from '../../../proto/gen/api/v1/beta1/GetSuggestionsReply.ts';
import type { GetSuggestionsRequest } from '../../../proto/gen/api/v1/beta1/GetSuggestionsRequest.ts';
import type { ObjectiveSpec } from '../../../proto/gen/api/v1/beta1/ObjectiveSpec.ts';
import type { ParameterType as ProtoParameterType } from '../../../proto/gen/api/v1/beta1/ParameterType.ts';
import type { Trial } from '../../../proto/gen/api/v1/beta1/Trial.ts';
import type { Distribution, ExperimentDefinition, ParameterType, Setting } from './definition/definition.ts';
import { type ObservedMetric, summarizeLogs, valueByStrategy } from './domain/observation.ts';
import type { SuggestedTrial } from './domain/suggestion-answers.ts';
import type { ExperimentRecord, TrialRecord, World } from './domain/world.ts';

const PARAMETER_TYPES: Readonly<Record<ParameterType, ProtoParameterType>> = {
  double: 'DOUBLE',
  int: 'INT',
  discrete: 'DISCRETE',
  categorical: 'CATEGORICAL',
};

const DISTRIBUTIONS: Readonly<Record<Distribution, ProtoDistribution>> = {
  uniform: 'UNIFORM',
  logUniform: 'LOG_UNIFORM',
  normal: 'NORMAL',
  logNormal: 'LOG_NORMAL',
};

const rfc3339 = (ms: number | undefined): string => (ms === undefined ? '' : new Date(ms).toISOString());

function objectiveSpec(definition: ExperimentDefinition): ObjectiveSpec {
  const o = definition.objective;
  return {
    type: o.type === 'minimize' ? 'MINIMIZE' : 'MAXIMIZE',
    goal: o.goal ?? 0,
    objective_metric_name: o.metricName,
    additional_metric_names: [...o.additionalMetricNames],
  };
}

export function experimentMessage(
  experiment: ExperimentRecord,
  definition: ExperimentDefinition,
  algorithmSettings: readonly Setting[],
): Experiment {
  return {
    name: experiment.name,
    spec: {
      parameter_specs: {
        parameters: definition.parameters.map((p) => ({
          name: p.name,
          parameter_type: PARAMETER_TYPES[p.type],
          feasible_space: {
            min: p.min,
            max: p.max,
            step: p.step,
            list: [...p.list],
            distribution: DISTRIBUTIONS[p.distribution],
          },
        })),
      },
      objective: objectiveSpec(definition),
      algorithm: {
        algorithm_name: definition.algorithm.name,
        algorithm_settings: algorithmSettings.map((s) => ({ name: s.name, value: s.value })),
      },
      ...(definition.earlyStopping
        ? {
            early_stopping: {
              algorithm_name: definition.earlyStopping.name,
              algorithm_settings: definition.earlyStopping.settings.map((s) => ({
                name: s.name,
                value: s.value,
              })),
            },
          }
        : {}),
      parallel_trial_count: definition.parallelTrialCount,
      max_trial_count: definition.maxTrialCount ?? 0,
    },
  };
}

/** A trial as Katib's suggestion client sends it: its observation is each metric by its strategy. */
export function trialMessage(
  trial: TrialRecord,
  definition: ExperimentDefinition,
  observation: readonly ObservedMetric[] | undefined,
): Trial {
  return {
    name: trial.name,
    spec: {
      objective: objectiveSpec(definition),
      parameter_assignments: {
        assignments: trial.assignments.map((a) => ({ name: a.name, value: a.value })),
      },
      labels: { ...trial.labels },
    },
    status: {
      start_time: rfc3339(trial.firstStartMs),
      completion_time: rfc3339(trial.finishedAtMs),
      condition: trial.condition,
      observation: {
        metrics: (observation ?? []).map((m) => ({
          name: m.name,
          value: valueByStrategy(m, definition.objective.strategies[m.name]),
        })),
      },
    },
  };
}

/** Settings a reply left merged over the experiment's own (hyperband's state): the ones sent next. */
const settingsToSend = (
  experiment: ExperimentRecord,
  definition: ExperimentDefinition,
): readonly Setting[] =>
  experiment.algorithmSettings.length > 0 ? experiment.algorithmSettings : definition.algorithm.settings;

export function suggestionsRequest(
  world: World,
  name: string,
  count: number,
): GetSuggestionsRequest | undefined {
  const experiment = world.experiments.get(name);
  const definition = experiment?.definition;
  if (!experiment || !definition) return undefined;
  return {
    experiment: experimentMessage(experiment, definition, settingsToSend(experiment, definition)),
    trials: world
      .trialsOf(experiment)
      .map((t) => trialMessage(t, definition, world.observations.get(t.name))),
    current_request_number: count,
    total_request_number: experiment.totalRequests + count,
  };
}

export function earlyStoppingRulesRequest(
  world: World,
  name: string,
): GetEarlyStoppingRulesRequest | undefined {
  const experiment = world.experiments.get(name);
  const definition = experiment?.definition;
  if (!experiment || !definition) return undefined;
  return {
    experiment: experimentMessage(experiment, definition, settingsToSend(experiment, definition)),
    trials: world
      .trialsOf(experiment)
      .map((t) => trialMessage(t, definition, world.observations.get(t.name))),
    db_manager_address: '',
  };
}

export function suggestedTrials(reply: GetSuggestionsReply__Output): {
  trials: SuggestedTrial[];
  algorithmSettings: Setting[];
} {
  return {
    trials: reply.parameter_assignments.map((p) => ({
      trialName: p.trial_name,
      assignments: p.assignments.map((a) => ({ name: a.name, value: a.value })),
      labels: { ...p.labels },
    })),
    algorithmSettings: (reply.algorithm?.algorithm_settings ?? []).map((s) => ({
      name: s.name,
      value: s.value,
    })),
  };
}

/** A trial's observation from its GetObservationLog answer, as Katib's trial controller makes it. */
export const observationOf = (reply: GetObservationLogReply__Output): ObservedMetric[] =>
  summarizeLogs(
    (reply.observation_log?.metric_logs ?? []).map((log) => ({
      time: log.time_stamp,
      name: log.metric?.name ?? '',
      value: log.metric?.value ?? '',
    })),
  );
