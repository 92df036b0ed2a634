// Katib's GetObservationLog filters, checked and normalized: the DBManager's reads and the web
// side's observation endpoint take the same query.
import { invalidArgument } from '../../../shared/errors.ts';
import { normalizeRfc3339 } from '../../../shared/rfc3339.ts';
import type { ObservationQuery } from './ports.ts';

/** The request as grpc-js delivers it (proto3 defaults filled). */
export interface GetObservationLogInput {
  readonly trial_name: string;
  readonly metric_name: string;
  readonly start_time: string;
  readonly end_time: string;
}

export function requireTrialName(trialName: string): void {
  if (trialName.trim() === '') throw invalidArgument('trial_name: must not be empty');
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
