// Katib-shaped requests for the suggestion tests, as proto-loader decodes them (defaults filled).
import { expect } from 'vitest';
import type { Experiment__Output } from '../../../../proto/gen/api/v1/beta1/Experiment.ts';
import type { GetSuggestionsRequest__Output } from '../../../../proto/gen/api/v1/beta1/GetSuggestionsRequest.ts';
import type { ParameterSpec__Output } from '../../../../proto/gen/api/v1/beta1/ParameterSpec.ts';
import type { Trial__Output } from '../../../../proto/gen/api/v1/beta1/Trial.ts';
import { AppError } from '../../../../shared/errors.ts';

type Space = Partial<ParameterSpec__Output['feasible_space'] & object>;

export function param(name: string, type: string, space: Space = {}): ParameterSpec__Output {
  return {
    name,
    parameter_type: type as ParameterSpec__Output['parameter_type'],
    feasible_space: {
      min: '',
      max: '',
      list: [],
      step: '',
      distribution: 'DISTRIBUTION_UNSPECIFIED',
      ...space,
    } as ParameterSpec__Output['feasible_space'],
  };
}

export const double = (name: string, min: string, max: string, extra: Space = {}) =>
  param(name, 'DOUBLE', { min, max, ...extra });
export const int = (name: string, min: string, max: string, extra: Space = {}) =>
  param(name, 'INT', { min, max, ...extra });
export const categorical = (name: string, list: string[]) => param(name, 'CATEGORICAL', { list });
export const discrete = (name: string, list: string[]) => param(name, 'DISCRETE', { list });

/** DOUBLE, INT, DISCRETE and CATEGORICAL: the mixed space of the integration tests. */
export const MIXED = [
  double('lr', '0.0001', '0.1', { distribution: 'LOG_UNIFORM' }),
  int('layers', '1', '8'),
  discrete('batch_size', ['16', '32', '64', '128']),
  categorical('optimizer', ['sgd', 'adam', 'rmsprop']),
];

export interface ExperimentOptions {
  name?: string;
  algorithm: string;
  settings?: Record<string, string> | [string, string][];
  parameters?: ParameterSpec__Output[];
  type?: 'MINIMIZE' | 'MAXIMIZE' | 'UNKNOWN';
  metric?: string;
  parallel?: number;
  max?: number;
}

export function experiment(options: ExperimentOptions): Experiment__Output {
  const settings = Array.isArray(options.settings)
    ? options.settings
    : Object.entries(options.settings ?? {});
  return {
    name: options.name ?? 'exp',
    spec: {
      parameter_specs: { parameters: options.parameters ?? MIXED },
      objective: {
        type: options.type ?? 'MAXIMIZE',
        goal: 0,
        objective_metric_name: options.metric ?? 'accuracy',
        additional_metric_names: [],
      },
      algorithm: {
        algorithm_name: options.algorithm,
        algorithm_settings: settings.map(([name, value]) => ({ name, value })),
      },
      early_stopping: null,
      parallel_trial_count: options.parallel ?? 3,
      max_trial_count: options.max ?? 0,
      nas_config: null,
    },
  };
}

export function trial(
  name: string,
  assignments: Record<string, string>,
  condition: string,
  metrics: Record<string, string> | [string, string][] = {},
  extra: { startTime?: string; objectiveName?: string } = {},
): Trial__Output {
  const metricList = Array.isArray(metrics) ? metrics : Object.entries(metrics);
  return {
    name,
    spec: {
      objective: extra.objectiveName
        ? {
            type: 'MAXIMIZE',
            goal: 0,
            objective_metric_name: extra.objectiveName,
            additional_metric_names: [],
          }
        : null,
      parameter_assignments: {
        assignments: Object.entries(assignments).map(([n, value]) => ({ name: n, value })),
      },
      labels: {},
    },
    status: {
      start_time: extra.startTime ?? '',
      completion_time: '',
      condition: condition as Trial__Output['status'] extends infer S
        ? S extends { condition: infer C }
          ? C
          : never
        : never,
      observation: { metrics: metricList.map(([n, value]) => ({ name: n, value })) },
    },
  };
}

export function request(
  exp: Experiment__Output,
  trials: Trial__Output[] = [],
  count = 3,
  total?: number,
): GetSuggestionsRequest__Output {
  return {
    experiment: exp,
    trials,
    current_request_number: count,
    total_request_number: total ?? trials.length + count,
  };
}

/** A reply's assignment sets as name → value maps. */
export const assignmentsOf = (reply: {
  parameter_assignments?: { assignments?: { name?: string; value?: string }[] }[];
}) =>
  (reply.parameter_assignments ?? []).map((set) =>
    Object.fromEntries((set.assignments ?? []).map((a) => [a.name ?? '', a.value ?? ''])),
  );

/** The message of the INVALID_ARGUMENT refusal `call` must throw (a call that is accepted fails the test). */
export function invalidArgumentMessage(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('INVALID_ARGUMENT');
    return (error as Error).message;
  }
  throw new Error('accepted');
}
