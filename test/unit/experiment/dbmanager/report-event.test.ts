import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReportObservationLogRequest } from '../../../../proto/gen/api/v1/beta1/ReportObservationLogRequest.ts';
import {
  encodeReportedEvent,
  REPORTED_EVENT_VERSION,
} from '../../../../services/experiment/dbmanager/adapters/report-event.ts';
import {
  isParsedReport,
  withReportReader,
} from '../../../../services/experiment/dbmanager/adapters/report-request.ts';
import {
  type ReportObservationLogInput,
  toReportedEvent,
} from '../../../../services/experiment/dbmanager/observation-events.ts';
import { loadCatalog } from '../../../../shared/avro/catalog.ts';
import { loadPackageDefinition, lookupService } from '../../../../shared/grpc.ts';

// The fast path (report-request.ts + report-event.ts) against the generic one (grpc-js's decoder,
// toReportedEvent, the catalog's Avro encoder): the same bytes whenever the fast path answers, and
// it answers only for reports the generic path accepts.
const DBManager = lookupService(loadPackageDefinition(['api/v1beta1/api.proto']), 'api.v1.beta1.DBManager');
const generic = DBManager.service.ReportObservationLog!;
const fast = withReportReader(DBManager.service).ReportObservationLog!;
const catalog = loadCatalog();
const header = catalog.current('ObservationLogReported').header;
const ids = { eventId: '6f1c1f5e-8f2a-4d0e-9a7b-3c2d1e0f9a8b', now: 1_767_225_600_123 };

describe('the fast writer is pinned to its schema version', () => {
  it('writes the current ObservationLogReported schema: a new version in schemas/ fails here until the writer follows', () => {
    const versions = readdirSync(join(import.meta.dirname, '../../../../schemas'))
      .map((file) => /^observation-log-reported\.v(\d+)\.avsc$/.exec(file)?.[1])
      .filter((v) => v !== undefined)
      .map(Number);
    expect(Math.max(...versions)).toBe(REPORTED_EVENT_VERSION);
    expect(catalog.current('ObservationLogReported').version).toBe(REPORTED_EVENT_VERSION);
  });
});

type Outcome = { fast: 'answered' | 'generic path'; bytes?: Buffer; error?: string };

/** Both paths over the same request bytes. */
function both(bytes: Buffer): Outcome {
  let expected: { value: Buffer; trial: string } | { error: string };
  try {
    const request = generic.requestDeserialize(bytes) as ReportObservationLogInput;
    const event = toReportedEvent(request, ids);
    expected = { value: catalog.encode('ObservationLogReported', event), trial: request.trial_name };
  } catch (error) {
    expected = { error: (error as Error).message };
  }
  let parsed: unknown;
  try {
    parsed = fast.requestDeserialize(bytes);
  } catch (error) {
    // Malformed bytes fail in the generic decoder either way.
    expect(expected).toEqual({ error: (error as Error).message });
    return { fast: 'generic path', error: (error as Error).message };
  }
  const answered = isParsedReport(parsed as object)
    ? encodeReportedEvent(parsed as never, ids, header)
    : undefined;
  if (answered === undefined)
    return { fast: 'generic path', ...('error' in expected ? { error: expected.error } : {}) };
  expect('value' in expected).toBe(true);
  if ('value' in expected) {
    expect(answered.value.equals(expected.value)).toBe(true);
    expect(answered.trialName).toBe(expected.trial);
  }
  return { fast: 'answered', bytes: answered.value };
}

const serialize = (request: ReportObservationLogRequest): Buffer => generic.requestSerialize(request);
const log = (time_stamp: string, name = 'loss', value = '0.5') => ({ time_stamp, metric: { name, value } });
const report = (...logs: ReturnType<typeof log>[]) =>
  serialize({ trial_name: 'trial-1', observation_log: { metric_logs: logs } });

/** Protobuf by hand, for what no encoder writes (fields twice, unknown fields, other wire types). */
const varint = (value: number): number[] => {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return out;
};
const field = (number: number, body: Buffer | string): Buffer => {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return Buffer.concat([Buffer.from([...varint((number << 3) | 2), ...varint(bytes.length)]), bytes]);
};
const raw = (...parts: (Buffer | number[])[]): Buffer =>
  Buffer.concat(parts.map((p) => (Buffer.isBuffer(p) ? p : Buffer.from(p))));
const metricLog = (...parts: (Buffer | number[])[]) => field(1, raw(...parts));
const observationLog = (...logs: (Buffer | number[])[]) => field(2, raw(...logs));
const metric = (name: string | Buffer, value: string | Buffer) =>
  field(2, raw(field(1, name), field(2, value)));

const ANSWERED: Record<string, Buffer> = {
  'one log': report(log('2026-01-01T00:00:00Z')),
  'fractions of 1 to 9 digits, comma or dot': report(
    log('2026-01-01T00:00:00.1Z'),
    log('2026-01-01T00:00:00.123456Z'),
    log('2026-01-01T00:00:00,123456789Z'),
  ),
  'an offset (normalized through the generic parser)': report(log('2026-01-01T05:30:00.25+05:30')),
  'February 29th of a leap year, and of 2000': report(
    log('2024-02-29T23:59:59Z'),
    log('2000-02-29T00:00:00Z'),
  ),
  'year 0000 and 9999': report(log('0000-01-01T00:00:00Z'), log('9999-12-31T23:59:59.999999Z')),
  'an empty value, and a value left out': raw(
    field(1, 't'),
    observationLog(
      metricLog(field(1, '2026-01-01T00:00:00Z'), metric('loss', '')),
      metricLog(field(1, '2026-01-01T00:00:00Z'), field(2, field(1, 'loss'))),
    ),
  ),
  'non-ASCII trial, names and values': serialize({
    trial_name: 'essai-é-精度',
    observation_log: { metric_logs: [log('2026-01-01T00:00:00Z', 'précision 🙂', '½')] },
  }),
  'fields in another order, unknown fields at every level': raw(
    [0x18, 0x96, 0x01], // field 3, varint
    observationLog(
      metricLog(metric('loss', '1'), [0x21, 1, 2, 3, 4, 5, 6, 7, 8], field(1, '2026-01-01T00:00:00Z')),
      [0x15, 1, 2, 3, 4], // field 2 of ObservationLog, fixed32
    ),
    field(1, 'trial-order'),
  ),
  'a thousand logs and long strings (multi-byte lengths)': report(
    ...Array.from({ length: 1_000 }, (_, i) =>
      log(
        `2026-01-01T00:${String(i % 60).padStart(2, '0')}:00.${i}Z`,
        'm'.repeat(1 + (i % 300)),
        String(i).repeat(i % 50),
      ),
    ),
    log('2026-01-01T00:00:00Z', 'x'.repeat(20_000), 'y'.repeat(70_000)),
  ),
};

const GENERIC: Record<string, Buffer> = {
  'no trial name': serialize({ observation_log: { metric_logs: [log('2026-01-01T00:00:00Z')] } }),
  'a blank trial name': serialize({
    trial_name: ' \t',
    observation_log: { metric_logs: [log('2026-01-01T00:00:00Z')] },
  }),
  'a trial name of a no-break space': serialize({
    trial_name: '\u00a0',
    observation_log: { metric_logs: [log('2026-01-01T00:00:00Z')] },
  }),
  'no observation log': serialize({ trial_name: 't' }),
  'no logs': serialize({ trial_name: 't', observation_log: { metric_logs: [] } }),
  'an empty time stamp': report(log('')),
  'month 13': report(log('2026-13-01T00:00:00Z')),
  'April 31st': report(log('2026-04-31T00:00:00Z')),
  'February 29th of 2026 and 1900': report(log('2026-02-29T00:00:00Z'), log('1900-02-29T00:00:00Z')),
  'hour 24, minute 60, second 60': report(
    log('2026-01-01T24:00:00Z'),
    log('2026-01-01T00:60:00Z'),
    log('2026-01-01T00:00:60Z'),
  ),
  'lower-case t and z, a space': report(
    log('2026-01-01t00:00:00Z'),
    log('2026-01-01T00:00:00z'),
    log('2026-01-01 00:00:00Z'),
  ),
  'a dot without digits, a letter among digits': report(
    log('2026-01-01T00:00:00.Z'),
    log('2026-01-01T00:00:0aZ'),
    log('2026-01-01T00:00:00.1a2Z'),
  ),
  'no zone': report(log('2026-01-01T00:00:00')),
  'an empty metric name': report(log('2026-01-01T00:00:00Z', '')),
  'a log without a metric': raw(field(1, 't'), observationLog(metricLog(field(1, '2026-01-01T00:00:00Z')))),
  'a name that is not UTF-8': raw(
    field(1, 't'),
    observationLog(metricLog(field(1, '2026-01-01T00:00:00Z'), metric(Buffer.from([0xff, 0x41]), '1'))),
  ),
  'a trial name twice (protobufjs keeps the last)': raw(
    field(1, 'first'),
    field(1, 'second'),
    observationLog(metricLog(field(1, '2026-01-01T00:00:00Z'), metric('loss', '1'))),
  ),
  'a time stamp twice': raw(
    field(1, 't'),
    observationLog(metricLog(field(1, 'bad'), field(1, '2026-01-01T00:00:00Z'), metric('loss', '1'))),
  ),
  'a metric twice': raw(
    field(1, 't'),
    observationLog(metricLog(field(1, '2026-01-01T00:00:00Z'), metric('', '1'), metric('loss', '1'))),
  ),
  'an observation log twice': raw(
    field(1, 't'),
    observationLog(),
    observationLog(metricLog(field(1, '2026-01-01T00:00:00Z'), metric('loss', '1'))),
  ),
  'the trial name as a varint': raw(
    [0x08, 0x01],
    observationLog(metricLog(field(1, '2026-01-01T00:00:00Z'), metric('loss', '1'))),
  ),
  'a group': raw(
    field(1, 't'),
    [0x1b, 0x1c],
    observationLog(metricLog(field(1, '2026-01-01T00:00:00Z'), metric('loss', '1'))),
  ),
  'a truncated message': report(log('2026-01-01T00:00:00Z')).subarray(0, 20),
  'a length past the end': raw([0x0a, 0x7f], Buffer.from('abc')),
};

describe('ReportObservationLog fast path', () => {
  it.each(Object.entries(ANSWERED))('%s: answered, the same bytes as the generic path', (_, bytes) => {
    expect(both(bytes).fast).toBe('answered');
  });

  it.each(Object.entries(GENERIC))('%s: left to the generic path', (_, bytes) => {
    expect(both(bytes).fast).toBe('generic path');
  });

  it('decodes back with the catalog to the event of the generic path', () => {
    const { bytes } = both(report(log('2026-01-01T05:30:00.25+05:30', 'loss', '0.25')));
    expect(catalog.decode(bytes!).payload).toEqual({
      event_id: ids.eventId,
      occurred_at: new Date(ids.now),
      trial_name: 'trial-1',
      metric_logs: [{ time_stamp: '2026-01-01T00:00:00.250000Z', metric_name: 'loss', value: '0.25' }],
    });
  });

  it('agrees with the generic path on 2,000 random time stamps', () => {
    let answered = 0;
    const pick = (n: number) => Math.floor(Math.random() * n);
    for (let i = 0; i < 2_000; i++) {
      const p = (n: number, w: number) => String(n).padStart(w, '0');
      const time = `${p(pick(10_000), 4)}-${p(pick(14), 2)}-${p(pick(33), 2)}T${p(pick(26), 2)}:${p(pick(62), 2)}:${p(pick(62), 2)}${['', '.5', ',123', '.1234567'][pick(4)]}${['Z', '+01:00', '-23:59', 'z', ''][pick(5)]}`;
      if (both(report(log(time))).fast === 'answered') answered++;
    }
    expect(answered).toBeGreaterThan(100);
  });
});
