import { describe, expect, it } from 'vitest';
import {
  CSV_HEADER,
  csvField,
  formatRecord,
  headerFor,
  type ReplayRecord,
  toCsvRow,
  toJsonLine,
  toJsonValue,
} from '../../../services/replay/format.ts';

const decoded: ReplayRecord = {
  topic: 'experiment.observations',
  partition: 1,
  offset: '42',
  timestamp: Date.UTC(2026, 4, 1, 12, 0, 0, 250),
  key: 'trial-1',
  correlationId: 'corr-1',
  decoded: true,
  eventType: 'ObservationLogDeleted',
  schemaVersion: 1,
  event: { event_id: 'e-1', occurred_at: new Date(Date.UTC(2026, 4, 1, 11)), trial_name: 'trial-1' },
};

const raw: ReplayRecord = {
  topic: 't',
  partition: 0,
  offset: '7',
  timestamp: Date.UTC(2026, 4, 1),
  key: null,
  correlationId: null,
  decoded: false,
  eventType: null,
  schemaVersion: null,
  error: 'not an Avro single-object encoded value (no C3 01 marker)',
  value: Buffer.from('hello'),
};

describe('JSON lines', () => {
  it('prints a decoded record with every field, dates as ISO strings', () => {
    expect(JSON.parse(toJsonLine(decoded))).toEqual({
      topic: 'experiment.observations',
      partition: 1,
      offset: '42',
      timestamp: '2026-05-01T12:00:00.250Z',
      key: 'trial-1',
      eventType: 'ObservationLogDeleted',
      schemaVersion: 1,
      correlationId: 'corr-1',
      event: { event_id: 'e-1', occurred_at: '2026-05-01T11:00:00.000Z', trial_name: 'trial-1' },
    });
  });

  it('keeps the field order', () => {
    expect(Object.keys(JSON.parse(toJsonLine(decoded)))).toEqual([
      'topic',
      'partition',
      'offset',
      'timestamp',
      'key',
      'eventType',
      'schemaVersion',
      'correlationId',
      'event',
    ]);
  });

  it('prints an undecodable record with the error and the value in base64 instead of the event', () => {
    const line = JSON.parse(toJsonLine(raw));
    expect(line).toEqual({
      topic: 't',
      partition: 0,
      offset: '7',
      timestamp: '2026-05-01T00:00:00.000Z',
      key: null,
      eventType: null,
      schemaVersion: null,
      correlationId: null,
      error: 'not an Avro single-object encoded value (no C3 01 marker)',
      valueBase64: Buffer.from('hello').toString('base64'),
    });
    expect(line).not.toHaveProperty('event');
  });

  it('prints a tombstone with a null value', () => {
    expect(
      JSON.parse(toJsonLine({ ...raw, value: null, error: 'empty value (tombstone)' })).valueBase64,
    ).toBeNull();
  });

  it('ends each record with one LF and has no header', () => {
    const line = formatRecord('jsonl', decoded);
    expect(line.endsWith('}\n')).toBe(true);
    expect(line.split('\n')).toHaveLength(2);
    expect(headerFor('jsonl')).toBeUndefined();
  });
});

describe('JSON values', () => {
  it('turns bigints into strings, bytes into base64 and keeps nested records', () => {
    expect(
      toJsonValue({
        n: 12345678901234567890n,
        b: Buffer.from([1, 2, 3]),
        list: [{ at: new Date(0), skip: undefined }],
        bad: new Date(Number.NaN),
        m: new Map([['a', 1n]]),
      }),
    ).toEqual({
      n: '12345678901234567890',
      b: 'AQID',
      list: [{ at: '1970-01-01T00:00:00.000Z' }],
      bad: null,
      m: { a: '1' },
    });
  });
});

describe('CSV', () => {
  it('has the header', () => {
    expect(CSV_HEADER).toBe('topic,partition,offset,timestamp,key,event_type,correlation_id,event');
    expect(headerFor('csv')).toBe(`${CSV_HEADER}\r\n`);
  });

  it('quotes fields with commas, quotes, CR or LF, doubling the quotes (RFC 4180)', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line1\nline2')).toBe('"line1\nline2"');
    expect(csvField('cr\r')).toBe('"cr\r"');
    expect(csvField(null)).toBe('');
    expect(csvField(3)).toBe('3');
  });

  it('prints a decoded record with the payload as JSON in the event column', () => {
    expect(toCsvRow(decoded)).toBe(
      'experiment.observations,1,42,2026-05-01T12:00:00.250Z,trial-1,ObservationLogDeleted,corr-1,' +
        '"{""event_id"":""e-1"",""occurred_at"":""2026-05-01T11:00:00.000Z"",""trial_name"":""trial-1""}"',
    );
  });

  it('quotes a key with a comma, a quote and a newline', () => {
    const row = toCsvRow({ ...decoded, key: 'a,"b"\nc' });
    expect(row.split(',').slice(0, 4).join(',')).toBe(
      'experiment.observations,1,42,2026-05-01T12:00:00.250Z',
    );
    expect(row).toContain(',"a,""b""\nc",ObservationLogDeleted,');
  });

  it('prints an undecodable record with the error and base64 value as JSON in the event column', () => {
    expect(toCsvRow(raw)).toBe(
      `t,0,7,2026-05-01T00:00:00.000Z,,,,"{""error"":""not an Avro single-object encoded value (no C3 01 marker)"",""valueBase64"":""aGVsbG8=""}"`,
    );
  });

  it('ends each row with CRLF', () => {
    expect(formatRecord('csv', decoded).endsWith('"\r\n')).toBe(true);
  });
});
