// ReportObservationLog's fast path against the generic one it stands in for: parseReport
// (report-request.ts) against protobufjs through proto-loader (grpc-js's deserializer), and the Avro
// fast writer (report-event.ts's encodeReportedEvent, published through producer.publishEncoded)
// against avsc through the event catalog (toReportedEvent + catalog.encode). Whenever the fast path
// answers, its fields and its bytes are the generic path's; when the generic decoder refuses the
// bytes, the fast path must not answer.
import { encodeReportedEvent } from '../../../services/experiment/dbmanager/adapters/report-event.ts';
import {
  HAS_METRIC,
  LOG_SLOTS,
  NAME,
  type ParsedReport,
  parseReport,
  TIME,
  VALUE,
} from '../../../services/experiment/dbmanager/adapters/report-request.ts';
import {
  type ReportObservationLogInput,
  toReportedEvent,
} from '../../../services/experiment/dbmanager/observation-events.ts';
import { loadCatalog } from '../../../shared/avro/catalog.ts';
import { loadPackageDefinition, lookupService } from '../../../shared/grpc.ts';
import { canonical, check, type FuzzTarget, outcome, pick, type Rng, text } from '../fuzz-core.ts';
import { messageType, randomMessage } from '../protobuf-random.ts';
import { randomTimestamp } from './rfc3339.ts';

const DBManager = lookupService(loadPackageDefinition(['api/v1beta1/api.proto']), 'api.v1.beta1.DBManager');
const generic = DBManager.service.ReportObservationLog!.requestDeserialize as (bytes: Buffer) => unknown;
const requestType = messageType('api/v1beta1/api.proto', 'api.v1.beta1.ReportObservationLogRequest');
const catalog = loadCatalog();
const header = catalog.current('ObservationLogReported').header;
const ids = { eventId: '6f1c1f5e-8f2a-4d0e-9a7b-3c2d1e0f9a8b', now: 1_767_225_600_123 };

/** Reports as trainers send them (valid times, names, values), with fields left out at random. */
function randomReport(rng: Rng): Record<string, unknown> {
  const logs = Array.from({ length: rng.int(5) }, () => {
    const log: Record<string, unknown> = {};
    if (rng.int(10) > 0) log.time_stamp = randomTimestamp(rng);
    if (rng.int(10) > 0)
      log.metric = {
        ...(rng.int(10) > 0 ? { name: pick(rng, ['loss', 'accuracy', text(rng, 10)]) } : {}),
        ...(rng.int(10) > 0 ? { value: pick(rng, ['0.5', '-1e-3', 'NaN', text(rng, 8)]) } : {}),
      };
    return log;
  });
  return {
    ...(rng.int(10) > 0 ? { trial_name: pick(rng, ['trial-1', ' ', text(rng, 16)]) } : {}),
    ...(rng.int(10) > 0 ? { observation_log: { metric_logs: logs } } : {}),
  };
}

interface GenericReport {
  trial_name: string;
  observation_log: {
    metric_logs: Array<{ time_stamp: string; metric: { name: string; value: string } | null }>;
  } | null;
}

const slice = (bytes: Buffer, start: number, end: number): string =>
  start < 0 ? '' : bytes.toString('utf8', start, end);

/** The fields the fast reader found, as the generic decoder gives them. */
function asGeneric(parsed: ParsedReport): GenericReport {
  const { bytes, logs } = parsed;
  const metricLogs: GenericReport['observation_log'] = { metric_logs: [] };
  for (let slot = 0; slot < parsed.count * LOG_SLOTS; slot += LOG_SLOTS) {
    metricLogs.metric_logs.push({
      time_stamp: slice(bytes, logs[slot + TIME]!, logs[slot + TIME + 1]!),
      metric:
        logs[slot + HAS_METRIC] === 1
          ? {
              name: slice(bytes, logs[slot + NAME]!, logs[slot + NAME + 1]!),
              value: slice(bytes, logs[slot + VALUE]!, logs[slot + VALUE + 1]!),
            }
          : null,
    });
  }
  return {
    trial_name: slice(bytes, parsed.trialStart, parsed.trialEnd),
    observation_log: parsed.hasObservationLog ? metricLogs : null,
  };
}

/** The generic decode kept to the fields the fast reader reads. */
const known = (request: GenericReport): GenericReport => ({
  trial_name: request.trial_name,
  observation_log:
    request.observation_log === null
      ? null
      : {
          metric_logs: request.observation_log.metric_logs.map((log) => ({
            time_stamp: log.time_stamp,
            metric: log.metric === null ? null : { name: log.metric.name, value: log.metric.value },
          })),
        },
});

/** undefined when both paths agree on `bytes`, else what differs. */
export function compareReport(bytes: Buffer): string | undefined {
  const expected = outcome(() => generic(bytes) as GenericReport);
  const parsed = parseReport(bytes, { buffer: new Int32Array(8 * LOG_SLOTS) }, generic);
  if (parsed === undefined) return undefined; // stepped aside: the generic decoder reads it
  if (!expected.ok)
    return `the fast reader took bytes protobufjs refuses (${(expected.error as Error).message})`;
  const fields = canonical(asGeneric(parsed));
  if (fields !== canonical(known(expected.value)))
    return `fields ${fields}, protobufjs ${canonical(known(expected.value))}`;
  const fast = encodeReportedEvent(parsed, ids, header);
  if (fast === undefined) return undefined; // the generic path answers
  const event = outcome(() => toReportedEvent(expected.value as ReportObservationLogInput, ids));
  if (!event.ok)
    return `the fast writer wrote an event the generic path refuses (${(event.error as Error).message})`;
  const avsc = catalog.encode('ObservationLogReported', event.value);
  if (!fast.value.equals(avsc)) return `Avro ${fast.value.toString('hex')}, avsc ${avsc.toString('hex')}`;
  if (fast.trialName !== expected.value.trial_name)
    return `key ${fast.trialName}, protobufjs ${expected.value.trial_name}`;
  return undefined;
}

export const reportRequestTarget: FuzzTarget = {
  name: 'report-request',
  oracle: 'protobufjs (proto-loader) decode, then avsc encode of the generic event',
  run(rng, count, found) {
    for (let i = 0; i < count; i++) {
      const bytes = randomMessage(rng, requestType, randomReport(rng));
      check(
        found,
        () => bytes.toString('hex'),
        () => compareReport(bytes),
      );
    }
  },
};
