// The SuggestionsIssued event (schemas/suggestions-issued.v3.avsc) for one reply.

import type { GetSuggestionsRequest__Output } from '../../../proto/gen/api/v1/beta1/GetSuggestionsRequest.ts';
import type { SuggestionsIssuedV3 } from '../../../schemas/gen/events.ts';
import type { TrialsToList } from './published-trials.ts';
import type { SuggestResult } from './suggest.ts';

export function toSuggestionsIssuedEvent(
  request: GetSuggestionsRequest__Output,
  result: SuggestResult,
  listed: TrialsToList,
  meta: { eventId: string; now: number },
): SuggestionsIssuedV3<number> {
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
  };
}

function objectiveType(type: string | undefined): SuggestionsIssuedV3['objective_type'] {
  return type === 'MINIMIZE' || type === 'MAXIMIZE' ? type : 'UNKNOWN';
}
