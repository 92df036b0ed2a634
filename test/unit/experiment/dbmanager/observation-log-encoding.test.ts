import { describe, expect, it } from 'vitest';
import type { GetObservationLogReply } from '../../../../proto/gen/api/v1/beta1/GetObservationLogReply.ts';
import {
  ObservationLogWriter,
  withObservationLogEncoder,
} from '../../../../services/experiment/dbmanager/adapters/observation-log-encoding.ts';
import { loadPackageDefinition, lookupService } from '../../../../shared/grpc.ts';

const DBManager = lookupService(loadPackageDefinition(['api/v1beta1/api.proto']), 'api.v1.beta1.DBManager');
const generic = DBManager.service.GetObservationLog!;

const logs = (count: number, text: (i: number) => string = String) =>
  Array.from({ length: count }, (_, i) => ({
    time_stamp: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.${i}Z`,
    metric: { name: i % 2 ? 'accuracy' : 'loss', value: text(i) },
  }));

const CASES: Record<string, GetObservationLogReply> = {
  'no observation log': {},
  'an empty observation log': { observation_log: { metric_logs: [] } },
  'one log': { observation_log: { metric_logs: logs(1) } },
  'a log without a metric': { observation_log: { metric_logs: [{ time_stamp: '2026-01-01T00:00:00Z' }] } },
  'empty strings': {
    observation_log: { metric_logs: [{ time_stamp: '', metric: { name: '', value: '' } }] },
  },
  'non-ASCII names and values': {
    observation_log: {
      metric_logs: [{ time_stamp: 't', metric: { name: 'précision-精度', value: '½ 🙂' } }],
    },
  },
  'ASCII logs, then one with a Latin-1 value at the end': {
    observation_log: {
      metric_logs: [
        ...logs(50),
        { time_stamp: '2026-01-01T00:01:00Z', metric: { name: 'loss', value: 'é' } },
      ],
    },
  },
  'ASCII logs, then one whose metric name is not ASCII': {
    observation_log: {
      metric_logs: [
        ...logs(5),
        { time_stamp: '2026-01-01T00:01:00Z', metric: { name: 'точность', value: '1' } },
      ],
    },
  },
  'lengths past one varint byte': {
    observation_log: { metric_logs: logs(3, (i) => 'x'.repeat(200 + i * 20_000)) },
  },
  '10,000 logs': { observation_log: { metric_logs: logs(10_000, (i) => String(i / 7)) } },
};

describe('GetObservationLogReply encoding', () => {
  const installed = withObservationLogEncoder(DBManager.service).GetObservationLog!;
  it.each(Object.entries(CASES))('%s, as plain objects: the generic encoder', (_, reply) => {
    expect(installed.responseSerialize(reply).equals(generic.responseSerialize(reply))).toBe(true);
  });

  const complete = Object.entries(CASES).filter(([, reply]) =>
    reply.observation_log?.metric_logs?.every((l) => l.time_stamp != null && l.metric != null),
  );
  it.each(complete)('%s, written log by log: the same bytes as the generic encoder', (_, reply) => {
    const writer = new ObservationLogWriter();
    for (const l of reply.observation_log!.metric_logs!)
      writer.add(l.time_stamp!, l.metric!.name!, l.metric!.value!);
    const written = writer.finish();
    expect(written.bytes.equals(generic.responseSerialize(reply))).toBe(true);
    // The installed serializer sends them as they are.
    expect(withObservationLogEncoder(DBManager.service).GetObservationLog!.responseSerialize(written)).toBe(
      written.bytes,
    );
  });

  it('is installed on GetObservationLog only', () => {
    const definition = withObservationLogEncoder(DBManager.service);
    expect(definition.GetObservationLog!.responseSerialize).not.toBe(generic.responseSerialize);
    expect(definition.ReportObservationLog).toBe(DBManager.service.ReportObservationLog);
    expect(() =>
      withObservationLogEncoder(
        lookupService(loadPackageDefinition(['api/v1beta1/api.proto']), 'api.v1.beta1.Suggestion').service,
      ),
    ).toThrow(/GetObservationLog/);
  });
});
