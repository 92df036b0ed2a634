// ReportObservationLogRequest read where its bytes are, without building a message object per log:
// the fast path of the report (see report-event.ts). Anything this reader does not handle exactly as
// protobufjs would (a field twice, a group, a known field of another wire type) is handed to the
// method's own deserializer, and malformed bytes fail there, with grpc-js's own error.
import type { ServiceDefinition } from '@grpc/grpc-js';
import { fieldNumbers, type SchemaDeclaration } from '../../../../shared/protobuf/schema.ts';
import { STEP_ASIDE, StepAsideReader } from '../../../../shared/protobuf/step-aside-reader.ts';

/** What this reader reads of api.proto. */
export const REPORT_REQUEST_SCHEMA = {
  'api.v1.beta1.ReportObservationLogRequest': {
    trial_name: [1, 'string'],
    observation_log: [2, 'api.v1.beta1.ObservationLog'],
  },
  'api.v1.beta1.ObservationLog': { metric_logs: [1, 'repeated api.v1.beta1.MetricLog'] },
  'api.v1.beta1.MetricLog': { time_stamp: [1, 'string'], metric: [2, 'api.v1.beta1.Metric'] },
  'api.v1.beta1.Metric': { name: [1, 'string'], value: [2, 'string'] },
} as const satisfies SchemaDeclaration;
const REQUEST = fieldNumbers(REPORT_REQUEST_SCHEMA['api.v1.beta1.ReportObservationLogRequest']);
const OBSERVATION_LOG = fieldNumbers(REPORT_REQUEST_SCHEMA['api.v1.beta1.ObservationLog']);
const METRIC_LOG = fieldNumbers(REPORT_REQUEST_SCHEMA['api.v1.beta1.MetricLog']);
const METRIC = fieldNumbers(REPORT_REQUEST_SCHEMA['api.v1.beta1.Metric']);

/**
 * Slots per log in `ParsedReport.logs`: the time stamp's start and end, whether a metric is there
 * (1) or not (0), the metric name's start and end, the value's start and end. A string left out
 * has start = end = -1 (proto3: the empty string).
 */
export const LOG_SLOTS = 7;
export const TIME = 0;
export const HAS_METRIC = 2;
export const NAME = 3;
export const VALUE = 5;

export interface ParsedReport {
  readonly kind: 'parsed report';
  readonly bytes: Buffer;
  /** -1 when the request has no trial name. */
  readonly trialStart: number;
  readonly trialEnd: number;
  readonly hasObservationLog: boolean;
  readonly count: number;
  readonly logs: Int32Array;
  /** The method's generic decoder, for when the fast path leaves the report to the generic path. */
  readonly generic: (bytes: Buffer) => unknown;
}

/**
 * The report's fields, or undefined when the generic decoder is to read these bytes. `scratch`
 * holds the positions while reading (grown as needed). One pass, no object per log: nested
 * messages are read in place, each to its end.
 */
export function parseReport(
  bytes: Buffer,
  scratch: { buffer: Int32Array },
  generic: (bytes: Buffer) => unknown,
): ParsedReport | undefined {
  try {
    return readReport(new StepAsideReader(bytes), bytes, scratch, generic);
  } catch (error) {
    if (error === STEP_ASIDE) return undefined;
    throw error;
  }
}

/** A string field's bounds into out[slot], out[slot + 1]; a second one is left aside (protobufjs keeps the last). */
function stringInto(r: StepAsideReader, tag: number, end: number, out: Int32Array, slot: number): void {
  if (out[slot]! >= 0) throw STEP_ASIDE;
  out[slot] = r.passString(tag, end);
  out[slot + 1] = r.at;
}

function readReport(
  r: StepAsideReader,
  bytes: Buffer,
  scratch: { buffer: Int32Array },
  generic: (bytes: Buffer) => unknown,
): ParsedReport {
  const trial = new Int32Array([-1, -1]);
  let observationLog = false;
  let count = 0;
  const end = bytes.length;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === REQUEST.trial_name) stringInto(r, tag, end, trial, 0);
    else if (field !== REQUEST.observation_log) r.skip(tag, end);
    else {
      if (observationLog) throw STEP_ASIDE;
      observationLog = true;
      const listEnd = r.messageEnd(tag, end);
      while (r.at < listEnd) {
        const listTag = r.tag(listEnd);
        if (listTag >>> 3 !== OBSERVATION_LOG.metric_logs) {
          r.skip(listTag, listEnd);
          continue;
        }
        const logEnd = r.messageEnd(listTag, listEnd);
        if ((count + 1) * LOG_SLOTS > scratch.buffer.length) {
          const grown = new Int32Array(Math.max(scratch.buffer.length * 2, (count + 1) * LOG_SLOTS));
          grown.set(scratch.buffer);
          scratch.buffer = grown;
        }
        readMetricLog(r, logEnd, scratch.buffer, count * LOG_SLOTS);
        count++;
      }
    }
  }
  return {
    kind: 'parsed report',
    bytes,
    trialStart: trial[0]!,
    trialEnd: trial[1]!,
    hasObservationLog: observationLog,
    count,
    logs: scratch.buffer.slice(0, count * LOG_SLOTS),
    generic,
  };
}

function readMetricLog(r: StepAsideReader, logEnd: number, out: Int32Array, slot: number): void {
  out.fill(-1, slot, slot + LOG_SLOTS);
  out[slot + HAS_METRIC] = 0;
  while (r.at < logEnd) {
    const tag = r.tag(logEnd);
    const field = tag >>> 3;
    if (field === METRIC_LOG.time_stamp) stringInto(r, tag, logEnd, out, slot + TIME);
    else if (field !== METRIC_LOG.metric) r.skip(tag, logEnd);
    else {
      if (out[slot + HAS_METRIC] === 1) throw STEP_ASIDE;
      out[slot + HAS_METRIC] = 1;
      const metricEnd = r.messageEnd(tag, logEnd);
      while (r.at < metricEnd) {
        const metricTag = r.tag(metricEnd);
        const metricField = metricTag >>> 3;
        if (metricField === METRIC.name) stringInto(r, metricTag, metricEnd, out, slot + NAME);
        else if (metricField === METRIC.value) stringInto(r, metricTag, metricEnd, out, slot + VALUE);
        else r.skip(metricTag, metricEnd);
      }
    }
  }
}

/** A request for the handler: the fast reader's positions, or the generic decoder's message. */
export type ReportRequest<Generic> = ParsedReport | Generic;

export const isParsedReport = <G>(request: ReportRequest<G>): request is ParsedReport =>
  (request as ParsedReport).kind === 'parsed report';

/**
 * The DBManager definition with ReportObservationLog's requests read by `parseReport`; what it
 * steps aside from, or finds malformed, goes through the generic decoder (which throws for the latter).
 */
export function withReportReader(definition: ServiceDefinition): ServiceDefinition {
  const method = definition.ReportObservationLog;
  if (method === undefined) throw new Error('not the DBManager service: no ReportObservationLog');
  const scratch = { buffer: new Int32Array(128 * LOG_SLOTS) };
  return {
    ...definition,
    ReportObservationLog: {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        return parseReport(bytes, scratch, method.requestDeserialize) ?? method.requestDeserialize(bytes);
      },
    },
  };
}
