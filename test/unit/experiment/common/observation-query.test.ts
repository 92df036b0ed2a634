import { describe, expect, it } from 'vitest';
import { toQuery } from '../../../../services/experiment/common/observation-query.ts';

const query = (
  fields: Partial<{ trial_name: string; metric_name: string; start_time: string; end_time: string }>,
) => ({
  trial_name: 'trial-1',
  metric_name: '',
  start_time: '',
  end_time: '',
  ...fields,
});

describe('toQuery', () => {
  it('treats empty filters as unbounded, as Katib does', () => {
    expect(toQuery(query({}))).toEqual({ trialName: 'trial-1' });
  });

  it('normalizes inclusive bounds and keeps the metric name', () => {
    expect(
      toQuery(
        query({
          metric_name: 'loss',
          start_time: '2019-02-03T04:05:06+09:00',
          end_time: '2019-02-03T00:00:00Z',
        }),
      ),
    ).toEqual({
      trialName: 'trial-1',
      metricName: 'loss',
      from: '2019-02-02T19:05:06.000000Z',
      to: '2019-02-03T00:00:00.000000Z',
    });
  });

  it('accepts start equal to end', () => {
    expect(
      toQuery(query({ start_time: '2019-01-01T00:00:00Z', end_time: '2019-01-01T00:00:00Z' })).from,
    ).toBe('2019-01-01T00:00:00.000000Z');
  });

  it.each([
    ['an empty trial name', { trial_name: '' }, /^trial_name: must not be empty$/],
    ['a bad start time', { start_time: 'abc' }, /^start_time: "abc" is not an RFC 3339 time/],
    [
      'a bad end time',
      { end_time: '2019-13-01T00:00:00Z' },
      /^end_time: "2019-13-01T00:00:00Z" has a month out of range$/,
    ],
    [
      'start after end',
      { start_time: '2020-01-01T00:00:00Z', end_time: '2019-01-01T00:00:00Z' },
      /^start_time: "2020-01-01T00:00:00Z" is after end_time "2019-01-01T00:00:00Z"$/,
    ],
  ])('rejects %s with INVALID_ARGUMENT', (_, fields, message) => {
    expect(() => toQuery(query(fields))).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(message) }),
    );
  });
});
