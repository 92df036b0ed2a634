import { describe, expect, it } from 'vitest';
import { normalizeRfc3339, toKatibTime } from '../../../shared/rfc3339.ts';

const normalized = (text: string) => {
  const result = normalizeRfc3339(text);
  if (!result.ok) throw new Error(`${text}: ${result.reason}`);
  return result.value;
};

describe('normalizeRfc3339', () => {
  it.each([
    ['2019-02-03T04:05:06+09:00', '2019-02-02T19:05:06.000000Z'],
    ['2016-12-31T20:02:05.123456Z', '2016-12-31T20:02:05.123456Z'],
    ['2016-12-31T20:02:05.1234Z', '2016-12-31T20:02:05.123400Z'],
    ['2016-12-31T20:02:05.123456789Z', '2016-12-31T20:02:05.123456Z'],
    ['2016-12-31T20:02:05,5Z', '2016-12-31T20:02:05.500000Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000000Z'],
    ['0001-01-01T00:30:00+01:00', '0000-12-31T23:30:00.000000Z'],
    ['2024-02-29T23:59:59-00:30', '2024-03-01T00:29:59.000000Z'],
    ['2000-02-29T12:00:00Z', '2000-02-29T12:00:00.000000Z'],
    ['1969-12-31T23:59:59.999999Z', '1969-12-31T23:59:59.999999Z'],
    ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59.000000Z'],
    ['2026-11-22T10:00:00-07:30', '2026-11-22T17:30:00.000000Z'],
  ])('%s → %s', (input, expected) => {
    expect(normalized(input)).toBe(expected);
  });

  it.each([
    ['abc', 'is not an RFC 3339 time'],
    ['', 'is not an RFC 3339 time'],
    ['2019-02-03 04:05:06Z', 'is not an RFC 3339 time'],
    ['2019-02-03t04:05:06Z', 'is not an RFC 3339 time'],
    ['2019-02-03T04:05:06z', 'is not an RFC 3339 time'],
    ['2019-02-03T04:05:06', 'is not an RFC 3339 time'],
    ['2019-02-03T04:05Z', 'is not an RFC 3339 time'],
    ['2019-02-03T04:05:06.Z', 'is not an RFC 3339 time'],
    ['2019-02-03T04:05:06+0900', 'is not an RFC 3339 time'],
    ['2019-13-03T04:05:06Z', 'has a month out of range'],
    ['2019-00-03T04:05:06Z', 'has a month out of range'],
    ['2019-02-30T04:05:06Z', 'has a day out of range'],
    ['2023-02-29T04:05:06Z', 'has a day out of range'],
    ['1900-02-29T04:05:06Z', 'has a day out of range'],
    ['2019-04-31T04:05:06Z', 'has a day out of range'],
    ['2019-02-03T24:00:00Z', 'has an hour out of range'],
    ['2019-02-03T04:60:06Z', 'has a minute out of range'],
    ['2016-12-31T23:59:60Z', 'has a second out of range'],
    ['2019-02-03T04:05:06+24:00', 'has a time zone offset out of range'],
    ['9999-12-31T23:59:59-01:00', 'is outside the years 0000–9999 in UTC'],
  ])('rejects %j: %s', (input, reason) => {
    const result = normalizeRfc3339(input);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain(reason);
  });

  it('agrees with Date for times JavaScript can represent', () => {
    for (let i = 0; i < 2000; i++) {
      const ms = Math.floor((i * 7919.123 * 86_400_000) % 4_000_000_000_000) - 1_000_000_000_000;
      const offset = ((i % 27) - 13) * 60 + (i % 2) * 30;
      const local = new Date(ms + offset * 60_000).toISOString().slice(0, 23);
      const sign = offset < 0 ? '-' : '+';
      const abs = Math.abs(offset);
      const zone = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
      expect(normalized(`${local}${zone}`)).toBe(`${new Date(ms).toISOString().slice(0, 23)}000Z`);
    }
  });

  it('keeps text order equal to time order', () => {
    const times = [
      '0001-01-01T00:00:00Z',
      '1969-12-31T23:59:59.9Z',
      '1970-01-01T00:00:00Z',
      '2019-02-02T19:05:06.000001Z',
    ];
    const forms = times.map(normalized);
    expect([...forms].sort()).toEqual(forms);
  });
});

describe('toKatibTime', () => {
  it.each([
    ['2019-02-02T19:05:06.000000Z', '2019-02-02T19:05:06Z'],
    ['2016-12-31T20:02:05.123456Z', '2016-12-31T20:02:05.123456Z'],
    ['2016-12-31T20:02:05.123400Z', '2016-12-31T20:02:05.1234Z'],
    ['0001-01-01T00:00:00.000000Z', '0001-01-01T00:00:00Z'],
    ['2016-12-31T20:02:05.100000Z', '2016-12-31T20:02:05.1Z'],
    ['2016-12-31T20:02:00.000010Z', '2016-12-31T20:02:00.00001Z'],
    // Without a fraction, the zeros of the seconds stay.
    ['2019-02-02T19:05:00Z', '2019-02-02T19:05:00Z'],
  ])('%s → %s', (input, expected) => {
    expect(toKatibTime(input)).toBe(expected);
  });
});
