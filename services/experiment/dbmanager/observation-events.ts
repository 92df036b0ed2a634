// The DBManager's writes: a report or delete request checked (one bad entry rejects the whole call)
// and turned into its event, and each event of the observation and trial-status topics turned into
// the change the persistence consumer applies to the store.
import type {
  ObservationLogDeletedV1,
  ObservationLogReportedV1,
  TypedEvent,
} from '../../../schemas/gen/events.ts';
import { invalidArgument } from '../../../shared/errors.ts';
import { normalizeRfc3339 } from '../../../shared/rfc3339.ts';
import { requireTrialName } from '../common/observation-query.ts';
import type { MetricLogRow, ObservationChange } from '../common/ports.ts';

/** The request shapes as grpc-js delivers them (proto3 defaults filled, messages may be null). */
export interface MetricLogInput {
  readonly time_stamp: string;
  readonly metric: { readonly name: string; readonly value: string } | null;
}
export interface ReportObservationLogInput {
  readonly trial_name: string;
  readonly observation_log: { readonly metric_logs: readonly MetricLogInput[] } | null;
}

// One bad entry among tens of thousands must not produce a megabyte of error text.
const MAX_LISTED_PROBLEMS = 5;

function fail(problems: string[]): never {
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS).join('; ');
  const more =
    problems.length > MAX_LISTED_PROBLEMS ? `; and ${problems.length - MAX_LISTED_PROBLEMS} more` : '';
  throw invalidArgument(`${listed}${more}; nothing was written`);
}

/** Validates a whole report (one bad entry rejects it all) and builds its event. */
export function toReportedEvent(
  request: ReportObservationLogInput,
  ids: { eventId: string; now: number },
): ObservationLogReportedV1<number> {
  requireTrialName(request.trial_name);
  if (request.observation_log === null) fail(['observation_log: is missing']);
  const entries = request.observation_log.metric_logs;
  if (entries.length === 0) fail(['observation_log.metric_logs: is empty']);
  const problems: string[] = [];
  const logs = entries.map((entry, i) => {
    const field = `observation_log.metric_logs[${i}]`;
    const time = entry.time_stamp === '' ? undefined : normalizeRfc3339(entry.time_stamp);
    if (time === undefined) problems.push(`${field}.time_stamp: is empty`);
    else if (!time.ok)
      problems.push(`${field}.time_stamp: ${JSON.stringify(entry.time_stamp)} ${time.reason}`);
    if (entry.metric === null) problems.push(`${field}.metric: is missing`);
    else if (entry.metric.name === '') problems.push(`${field}.metric.name: is empty`);
    return {
      time_stamp: time?.ok ? time.value : '',
      metric_name: entry.metric?.name ?? '',
      value: entry.metric?.value ?? '',
    };
  });
  if (problems.length > 0) fail(problems);
  return { event_id: ids.eventId, occurred_at: ids.now, trial_name: request.trial_name, metric_logs: logs };
}

export function toDeletedEvent(
  trialName: string,
  ids: { eventId: string; now: number },
): ObservationLogDeletedV1<number> {
  requireTrialName(trialName);
  return { event_id: ids.eventId, occurred_at: ids.now, trial_name: trialName };
}

/**
 * What the persistence consumer applies for an event of `experiment.observations` or
 * `experiment.trial-status`, as decoded by the catalog.
 */
export function toChange(event: TypedEvent): ObservationChange {
  switch (event.eventType) {
    case 'ObservationLogDeleted':
      return { kind: 'deleted', eventId: event.payload.event_id, trialName: event.payload.trial_name };
    case 'ObservationLogReported': {
      const { event_id, trial_name, metric_logs } = event.payload;
      const logs = metric_logs.map(
        (log): MetricLogRow => ({ time: log.time_stamp, metricName: log.metric_name, value: log.value }),
      );
      return { kind: 'reported', eventId: event_id, trialName: trial_name, logs };
    }
    case 'TrialStatusChanged': {
      const { event_id, trial_name, condition, reason, message, occurred_at } = event.payload;
      return {
        kind: 'status',
        eventId: event_id,
        trialName: trial_name,
        condition,
        reason,
        message,
        changedAtMs: occurred_at.getTime(),
      };
    }
    default:
      throw invalidArgument(
        `the persistence consumer applies ObservationLogReported, ObservationLogDeleted and TrialStatusChanged events, not ${event.eventType}`,
      );
  }
}
