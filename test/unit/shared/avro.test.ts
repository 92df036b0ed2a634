import { join } from 'node:path';
import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../../shared/avro/catalog.ts';
import { crc64Avro, fingerprintBytes, toSigned64 } from '../../../shared/avro/fingerprint.ts';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'schemas');
const fp = (text: string) => crc64Avro(Buffer.from(text, 'utf8'));

describe('CRC-64-AVRO fingerprint', () => {
  // Published vectors: Avro's Ruby test_fingerprints.rb and goavro's crc64avro_test.go.
  it('matches the published fingerprint of "int"', () => {
    expect(fp('"int"')).toBe(0x7275d51a3f395c8fn);
    expect(toSigned64(fp('"int"'))).toBe(8247732601305521295n);
  });

  it('matches the published fingerprint of "string"', () => {
    expect(fp('"string"')).toBe(0x8f014872634503c7n);
  });

  it('matches the published fingerprint of "null" from Avro schema-tests.txt', () => {
    expect(toSigned64(fp('"null"'))).toBe(7195948357588979594n);
  });

  it('gives the published single-object header for "int"', () => {
    const header = Buffer.concat([Buffer.from([0xc3, 0x01]), fingerprintBytes(fp('"int"'))]);
    expect([...header]).toEqual([0xc3, 0x01, 0x8f, 0x5c, 0x39, 0x3f, 0x1a, 0xd5, 0x75, 0x72]);
  });
});

describe('event catalog', () => {
  const catalog = loadCatalog();
  const report = {
    event_id: '8b1f0c1e-0000-4000-8000-000000000001',
    occurred_at: new Date('2026-11-22T10:00:00.123Z'),
    trial_name: 'exp-1-abc',
    metric_logs: [{ time_stamp: '2026-11-22T09:59:59.000000Z', metric_name: 'loss', value: '0.25' }],
  };

  it('round-trips an event of the product, with the timestamp as a Date', () => {
    const bytes = catalog.encode('ObservationLogReported', report);
    expect(bytes.subarray(0, 10)).toEqual(catalog.current('ObservationLogReported').header);
    const decoded = catalog.decode(bytes);
    expect(decoded).toMatchObject({
      eventType: 'ObservationLogReported',
      writerVersion: 1,
      readerVersion: 1,
    });
    expect(decoded.payload).toEqual(report);
    expect(decoded.payload.occurred_at).toBeInstanceOf(Date);
  });

  it('accepts epoch milliseconds for a timestamp', () => {
    const bytes = catalog.encode('ObservationLogDeleted', {
      event_id: 'e',
      occurred_at: 1_700_000_000_000,
      trial_name: 't',
    });
    expect(catalog.decode(bytes).payload.occurred_at).toEqual(new Date(1_700_000_000_000));
  });

  it('computes each fingerprint over the Parsing Canonical Form (no doc, full names)', () => {
    const v = catalog.current('ObservationLogDeleted');
    expect(v.canonical).toBe(
      '{"name":"backbone.experiment.ObservationLogDeleted","type":"record","fields":[{"name":"event_id","type":"string"},' +
        '{"name":"occurred_at","type":"long"},{"name":"trial_name","type":"string"}]}',
    );
    expect(v.fingerprint).toBe(fp(v.canonical));
  });

  it('rejects a payload that does not fit, naming the field', () => {
    const bad = { ...report, metric_logs: [{ ...report.metric_logs[0], value: 0.25 }] };
    expect(() => catalog.encode('ObservationLogReported', bad)).toThrow(
      /metric_logs\.0\.value: 0\.25 is not a valid string/,
    );
    expect(() => catalog.encode('ObservationLogReported', { ...report, trial_name: undefined })).toThrow(
      /trial_name: missing/,
    );
  });

  it('rejects an unknown event type', () => {
    expect(() => catalog.encode('NoSuchEvent', {})).toThrow(/unknown event type "NoSuchEvent"/);
  });

  it('rejects bytes without the single-object marker', () => {
    expect(() => catalog.decode(Buffer.from('{"json":true}'))).toThrow(/no C3 01 marker/);
  });

  it('rejects an unknown fingerprint and names it', () => {
    const int = Buffer.concat([Buffer.from([0xc3, 0x01]), fingerprintBytes(fp('"int"')), Buffer.from([2])]);
    expect(() => catalog.decode(int)).toThrow(/unknown schema fingerprint 7275d51a3f395c8f/);
  });

  it('rejects a truncated or padded body', () => {
    const bytes = catalog.encode('ObservationLogReported', report);
    expect(() => catalog.decode(bytes.subarray(0, bytes.length - 3))).toThrow(
      /corrupt ObservationLogReported v1 body/,
    );
    expect(() => catalog.decode(Buffer.concat([bytes, Buffer.from([1, 2, 3])]))).toThrow(/corrupt/);
  });

  it('gives every error the INVALID_ARGUMENT code, so workers dead-letter instead of retrying', () => {
    try {
      catalog.decode(Buffer.alloc(3));
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', retriable: false });
    }
  });
});

describe('schema evolution', () => {
  const v1 = { event_id: 'e1', occurred_at: new Date(1000), name: 'n', count: 3 };
  const v2 = { ...v1, region: 'eu-west', tags: ['a', 'b'] };

  it('reads an older writer into the current reader, filling defaults', () => {
    const latest = loadCatalog(FIXTURES);
    const old = loadCatalog(FIXTURES, { pin: { SampleHappened: 1 } });
    const decoded = latest.decode(old.encode('SampleHappened', v1));
    expect(decoded).toMatchObject({ writerVersion: 1, readerVersion: 2 });
    expect(decoded.payload).toEqual({ ...v1, region: 'unknown', tags: [] });
  });

  it('reads a newer writer into a pinned older reader, dropping the new fields', () => {
    const latest = loadCatalog(FIXTURES);
    const old = loadCatalog(FIXTURES, { pin: { SampleHappened: 1 } });
    const decoded = old.decode(latest.encode('SampleHappened', v2));
    expect(decoded).toMatchObject({ writerVersion: 2, readerVersion: 1 });
    expect(decoded.payload).toEqual(v1);
  });

  it('writes with the current version and keeps both versions distinct', () => {
    const latest = loadCatalog(FIXTURES);
    expect(latest.current('SampleHappened').version).toBe(2);
    expect(latest.versions.map((v) => v.version)).toEqual([1, 2]);
    const [a, b] = latest.versions;
    expect(a!.fingerprint).not.toBe(b!.fingerprint);
  });

  it('refuses a pin to a version that does not exist', () => {
    expect(() => loadCatalog(FIXTURES, { pin: { SampleHappened: 7 } })).toThrow(
      /no schema SampleHappened v7/,
    );
  });

  it('the body after the header is plain Avro binary any library can read', () => {
    const latest = loadCatalog(FIXTURES);
    const bytes = latest.encode('SampleHappened', v2);
    const plain = avro.Type.forSchema(JSON.parse(latest.current('SampleHappened').canonical));
    expect(plain.fromBuffer(bytes.subarray(10))).toMatchObject({ name: 'n', count: 3, region: 'eu-west' });
  });
});
