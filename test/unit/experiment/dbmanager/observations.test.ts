import { describe, expect, it } from 'vitest';
import type { TypedEvent } from '../../../../schemas/gen/events.ts';
import {
  type MetricLogInput,
  toChange,
  toDeletedEvent,
  toReportedEvent,
} from '../../../../services/experiment/dbmanager/observation-events.ts';
import { loadCatalog } from '../../../../shared/avro/catalog.ts';

const ids = { eventId: 'e-1', now: 1_700_000_000_000 };
const log = (time_stamp: string, name = 'loss', value = '0.5'): MetricLogInput => ({
  time_stamp,
  metric: { name, value },
});
const report = (metric_logs: MetricLogInput[], trial_name = 'trial-1') => ({
  trial_name,
  observation_log: { metric_logs },
});

describe('toReportedEvent', () => {
  it('normalizes every time and keeps names and values verbatim', () => {
    expect(toReportedEvent(report([log('2019-02-03T04:05:06+09:00', 'acc', 'unavailable')]), ids)).toEqual({
      event_id: 'e-1',
      occurred_at: ids.now,
      trial_name: 'trial-1',
      metric_logs: [{ time_stamp: '2019-02-02T19:05:06.000000Z', metric_name: 'acc', value: 'unavailable' }],
    });
  });

  it.each([
    [
      'an empty trial name',
      { trial_name: '', observation_log: { metric_logs: [log('2019-01-01T00:00:00Z')] } },
      /^trial_name: must not be empty$/,
    ],
    [
      'a blank trial name',
      { trial_name: '  ', observation_log: { metric_logs: [log('2019-01-01T00:00:00Z')] } },
      /^trial_name: must not be empty$/,
    ],
    [
      'no observation log',
      { trial_name: 't', observation_log: null },
      /^observation_log: is missing; nothing was written$/,
    ],
    ['no metric logs', report([]), /^observation_log\.metric_logs: is empty; nothing was written$/],
    ['an empty time stamp', report([log('')]), /metric_logs\[0\]\.time_stamp: is empty/],
    [
      'a time that is not RFC 3339',
      report([log('2019-01-01T00:00:00Z'), log('abc')]),
      /metric_logs\[1\]\.time_stamp: "abc" is not an RFC 3339 time/,
    ],
    [
      'a space for T',
      report([log('2019-02-03 04:05:06Z')]),
      /time_stamp: "2019-02-03 04:05:06Z" is not an RFC 3339 time/,
    ],
    [
      'February 30',
      report([log('2019-02-30T00:00:00Z')]),
      /time_stamp: "2019-02-30T00:00:00Z" has a day out of range/,
    ],
    [
      'no metric',
      report([{ time_stamp: '2019-01-01T00:00:00Z', metric: null }]),
      /metric_logs\[0\]\.metric: is missing/,
    ],
    [
      'an empty metric name',
      report([log('2019-01-01T00:00:00Z', '')]),
      /metric_logs\[0\]\.metric\.name: is empty/,
    ],
  ])('rejects %s with INVALID_ARGUMENT', (_, request, message) => {
    expect(() => toReportedEvent(request, ids)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(message) }),
    );
  });

  it('lists the first five problems of a large bad report and counts the rest', () => {
    const bad = Array.from({ length: 12 }, (_, i) => log(`bad-${i}`));
    expect(() => toReportedEvent(report(bad), ids)).toThrow(/bad-4.*; and 7 more; nothing was written$/);
  });

  it('accepts a report of 50,000 logs', () => {
    const logs = Array.from({ length: 50_000 }, (_, i) =>
      log(new Date(1_700_000_000_000 + i * 1000).toISOString()),
    );
    expect(toReportedEvent(report(logs), ids).metric_logs).toHaveLength(50_000);
  });
});

describe('toDeletedEvent', () => {
  it('builds the event', () => {
    expect(toDeletedEvent('trial-1', ids)).toEqual({
      event_id: 'e-1',
      occurred_at: ids.now,
      trial_name: 'trial-1',
    });
  });
  it('rejects an empty trial name', () => {
    expect(() => toDeletedEvent('', ids)).toThrow(/trial_name: must not be empty/);
  });
});

/** An event as the bus hands it over; the tests leave out fields toChange does not read. */
const event = (eventType: string, payload: unknown): TypedEvent => ({ eventType, payload }) as TypedEvent;

describe('toChange', () => {
  it('maps both event types', () => {
    expect(
      toChange(
        event('ObservationLogReported', {
          event_id: 'e',
          trial_name: 't',
          metric_logs: [{ time_stamp: '2019-01-01T00:00:00.000000Z', metric_name: 'm', value: '1' }],
        }),
      ),
    ).toEqual({
      kind: 'reported',
      eventId: 'e',
      trialName: 't',
      logs: [{ time: '2019-01-01T00:00:00.000000Z', metricName: 'm', value: '1' }],
    });
    expect(toChange(event('ObservationLogDeleted', { event_id: 'e', trial_name: 't' }))).toEqual({
      kind: 'deleted',
      eventId: 'e',
      trialName: 't',
    });
  });

  it('maps a TrialStatusChanged event as the catalog decodes it', () => {
    const catalog = loadCatalog();
    const payload = {
      event_id: 'e',
      occurred_at: new Date('2026-05-01T12:00:00.125Z'),
      trial_name: 't',
      experiment_name: 'x',
      condition: 'EARLYSTOPPED',
      reason: 'TrialEarlyStopped',
      message: 'Trial is early stopped',
      source: 'SetTrialStatus',
    };
    const decoded = catalog.decode(catalog.encode('TrialStatusChanged', payload));
    expect(toChange(event(decoded.eventType, decoded.payload))).toEqual({
      kind: 'status',
      eventId: 'e',
      trialName: 't',
      condition: 'EARLYSTOPPED',
      reason: 'TrialEarlyStopped',
      message: 'Trial is early stopped',
      changedAtMs: Date.parse('2026-05-01T12:00:00.125Z'),
    });
  });

  it('rejects another event type as poison (not retriable)', () => {
    expect(() => toChange(event('EarlyStoppingRulesIssued', {}))).toThrow(
      expect.objectContaining({
        code: 'INVALID_ARGUMENT',
        retriable: false,
        message: expect.stringMatching(/TrialStatusChanged events, not EarlyStoppingRulesIssued$/),
      }),
    );
  });
});
