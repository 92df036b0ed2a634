import type {
  ObservationLogDeletedV1,
  ObservationLogReportedV1,
  TypedEvent,
} from '../../../schemas/gen/events.ts';
import { invalidArgument } from '../../../shared/errors.ts';
import { normalizeRfc3339 } from '../../../shared/rfc3339.ts';
import type { MetricLogRow, ObservationChange, ObservationQuery } from '../common/ports.ts';

/** The request shapes as grpc-js delivers them (proto3 defaults filled, messages may be null). */
export interface MetricLogInput {
  readonly time_stamp: string;
  readonly metric: { readonly name: string; readonly value: string } | null;
}
export interface ReportObservationLogInput {
  readonly trial_name: string;
  readonly observation_log: { readonly metric_logs: readonly MetricLogInput[] } | null;
}
export interface GetObservationLogInput {
  readonly trial_name: string;
  readonly metric_name: string;
  readonly start_time: string;
  readonly end_time: string;
}

// One bad entry among tens of thousands must not produce a megabyte of error text.
const MAX_LISTED_PROBLEMS = 5;

function requireTrialName(trialName: string): void {
  if (trialName.trim() === '') throw invalidArgument('trial_name: must not be empty');
}

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

/** Katib's filters: empty metric name means all metrics; empty bounds are open; bounds inclusive. */
export function toQuery(request: GetObservationLogInput): ObservationQuery {
  requireTrialName(request.trial_name);
  const bound = (field: 'start_time' | 'end_time'): string | undefined => {
    const text = request[field];
    if (text === '') return undefined;
    const time = normalizeRfc3339(text);
    if (!time.ok) throw invalidArgument(`${field}: ${JSON.stringify(text)} ${time.reason}`);
    return time.value;
  };
  const from = bound('start_time');
  const to = bound('end_time');
  if (from !== undefined && to !== undefined && from > to) {
    throw invalidArgument(
      `start_time: ${JSON.stringify(request.start_time)} is after end_time ${JSON.stringify(request.end_time)}`,
    );
  }
  return {
    trialName: request.trial_name,
    ...(request.metric_name === '' ? {} : { metricName: request.metric_name }),
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
  };
}

/**
 * What the persistence worker applies for an event of `experiment.observations` or
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
        `the persistence worker applies ObservationLogReported, ObservationLogDeleted and TrialStatusChanged events, not ${event.eventType}`,
      );
  }
}
