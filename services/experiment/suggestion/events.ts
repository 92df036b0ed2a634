// The SuggestionsIssued event (schemas/suggestions-issued.v4.avsc) for one reply.

import type { GetSuggestionsRequest__Output } from '../../../proto/gen/api/v1/beta1/GetSuggestionsRequest.ts';
import type { SuggestionsIssuedV4 } from '../../../schemas/gen/events.ts';
import { readObjective } from './katib-space.ts';
import { OBJECTIVES_SETTING, resolveObjectives } from './multi-objective/objectives.ts';
import type { TrialsToList } from './published-trials.ts';
import { settingsMap } from './settings/read.ts';
import type { SuggestResult } from './suggest.ts';

export function toSuggestionsIssuedEvent(
  request: GetSuggestionsRequest__Output,
  result: SuggestResult,
  listed: TrialsToList,
  meta: { eventId: string; now: number },
): SuggestionsIssuedV4<number> {
  return {
    event_id: meta.eventId,
    occurred_at: meta.now,
    experiment_name: request.experiment?.name ?? '',
    algorithm_name: result.algorithmName,
    objective_metric: request.experiment?.spec?.objective?.objective_metric_name ?? '',
    objective_type: objectiveType(request.experiment?.spec?.objective?.type),
    current_request_number: request.current_request_number,
    total_request_number: request.total_request_number,
    trial_count: request.trials.length,
    completed_trial_count: result.completedTrials,
    suggestions: (result.reply.parameter_assignments ?? []).map((s) => ({
      trial_name: s.trial_name ?? '',
      assignments: (s.assignments ?? []).map((a) => ({ name: a.name ?? '', value: a.value ?? '' })),
      labels: { ...s.labels },
    })),
    algorithm_settings: (result.reply.algorithm?.algorithm_settings ?? []).map((a) => ({
      name: a.name ?? '',
      value: a.value ?? '',
    })),
    trials: listed.trials,
    trials_complete: listed.complete,
    objectives: objectivesOf(request),
    parameters: (request.experiment?.spec?.parameter_specs?.parameters ?? []).map((p) => ({
      name: p.name,
      parameter_type: String(p.parameter_type ?? ''),
      min: p.feasible_space?.min ?? '',
      max: p.feasible_space?.max ?? '',
      step: p.feasible_space?.step ?? '',
      list: [...(p.feasible_space?.list ?? [])],
      distribution:
        p.feasible_space?.distribution === 'DISTRIBUTION_UNSPECIFIED'
          ? ''
          : String(p.feasible_space?.distribution ?? ''),
    })),
  };
}

/**
 * The `objectives` setting as the algorithm reads it; none when absent, or when it does not fit the
 * experiment (an algorithm that took the call without reading it): the read model then knows the
 * experiment's objective alone.
 */
function objectivesOf(request: GetSuggestionsRequest__Output): SuggestionsIssuedV4['objectives'] {
  const spec = request.experiment?.spec ?? null;
  const text = settingsMap(spec?.algorithm?.algorithm_settings).get(OBJECTIVES_SETTING);
  if (text === undefined) return [];
  try {
    return resolveObjectives(text, readObjective(spec)).map((o) => ({
      metric_name: o.metricName,
      type: o.direction,
    }));
  } catch {
    return [];
  }
}

function objectiveType(type: string | undefined): SuggestionsIssuedV4['objective_type'] {
  return type === 'MINIMIZE' || type === 'MAXIMIZE' ? type : 'UNKNOWN';
}
