// ReportObservationLogRequest read where its bytes are, without building a message object per log:
// the fast path of the report (see report-event.ts). Anything this reader does not handle exactly as
// protobufjs would (a field twice, a group, a known field of another wire type) is handed to the
// method's own deserializer, and malformed bytes fail there, with grpc-js's own error.
//
//   ReportObservationLogRequest { string trial_name = 1; ObservationLog observation_log = 2; }
//   ObservationLog              { repeated MetricLog metric_logs = 1; }
//   MetricLog                   { string time_stamp = 1; Metric metric = 2; }
//   Metric                      { string name = 1; string value = 2; }
import type { ServiceDefinition } from '@grpc/grpc-js';

/**
 * Slots per log in `ParsedReport.logs`: the time stamp's start and end, whether a metric is there
 * (1) or not (0), the metric name's start and end, the value's start and end. A string left out
 * has start = end = -1 (proto3: the empty string).
 */
export const LOG_SLOTS = 7;
export const TIME = 0;
export const METRIC = 2;
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

/** The reader steps aside: the generic decoder reads these bytes (or fails on them). */
const ASIDE = -1;

/**
 * The report's fields, or ASIDE. `scratch` holds the positions while reading (grown as needed).
 * One pass, no object per log: nested messages are read in place, each to its end.
 */
export function parseReport(
  bytes: Buffer,
  scratch: { buffer: Int32Array },
  generic: (bytes: Buffer) => unknown,
): ParsedReport | number {
  let at = 0;
  /** A varint of up to 31 bits at `at`, or ASIDE. */
  const varint = (end: number): number => {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (at >= end) return ASIDE;
      const byte = bytes[at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value > 0x7fffffff ? ASIDE : value;
    }
    return ASIDE;
  };
  /** The end of the length-delimited field at `at`, or ASIDE. */
  const delimited = (end: number): number => {
    const length = varint(end);
    return length < 0 || at + length > end ? ASIDE : at + length;
  };
  /** Skips a field this reader does not know; ASIDE for groups and malformed bytes. */
  const skip = (wireType: number, end: number): number => {
    if (wireType === 0) {
      for (let i = 0; i < 10; i++) {
        if (at >= end) return ASIDE;
        if (bytes[at++]! < 0x80) return 0;
      }
      return ASIDE;
    }
    if (wireType === 2) {
      const to = delimited(end);
      if (to < 0) return ASIDE;
      at = to;
      return 0;
    }
    if (wireType !== 1 && wireType !== 5) return ASIDE;
    at += wireType === 1 ? 8 : 4;
    return at > end ? ASIDE : 0;
  };
  /** A string field into out[slot], out[slot + 1]; ASIDE when seen before (protobufjs keeps the last). */
  const string = (wireType: number, end: number, out: Int32Array, slot: number): number => {
    if (wireType !== 2 || out[slot]! >= 0) return ASIDE;
    const to = delimited(end);
    if (to < 0) return ASIDE;
    out[slot] = at;
    out[slot + 1] = to;
    at = to;
    return 0;
  };

  const trial = new Int32Array([-1, -1]);
  let observationLog = false;
  let count = 0;
  while (at < bytes.length) {
    const tag = varint(bytes.length);
    if (tag < 8) return ASIDE; // field 0, or malformed
    const field = tag >>> 3;
    const wireType = tag & 7;
    if (field === 1) {
      if (string(wireType, bytes.length, trial, 0) < 0) return ASIDE;
      continue;
    }
    if (field !== 2) {
      if (skip(wireType, bytes.length) < 0) return ASIDE;
      continue;
    }
    if (wireType !== 2 || observationLog) return ASIDE;
    observationLog = true;
    const listEnd = delimited(bytes.length);
    if (listEnd < 0) return ASIDE;
    while (at < listEnd) {
      const listTag = varint(listEnd);
      if (listTag < 8) return ASIDE;
      if (listTag >>> 3 !== 1) {
        if (skip(listTag & 7, listEnd) < 0) return ASIDE;
        continue;
      }
      if ((listTag & 7) !== 2) return ASIDE;
      const logEnd = delimited(listEnd);
      if (logEnd < 0) return ASIDE;
      if ((count + 1) * LOG_SLOTS > scratch.buffer.length) {
        const grown = new Int32Array(Math.max(scratch.buffer.length * 2, (count + 1) * LOG_SLOTS));
        grown.set(scratch.buffer);
        scratch.buffer = grown;
      }
      const out = scratch.buffer;
      const slot = count * LOG_SLOTS;
      out.fill(-1, slot, slot + LOG_SLOTS);
      out[slot + METRIC] = 0;
      count++;
      while (at < logEnd) {
        const logTag = varint(logEnd);
        if (logTag < 8) return ASIDE;
        const logField = logTag >>> 3;
        if (logField === 1) {
          if (string(logTag & 7, logEnd, out, slot + TIME) < 0) return ASIDE;
          continue;
        }
        if (logField !== 2) {
          if (skip(logTag & 7, logEnd) < 0) return ASIDE;
          continue;
        }
        if ((logTag & 7) !== 2 || out[slot + METRIC] === 1) return ASIDE;
        out[slot + METRIC] = 1;
        const metricEnd = delimited(logEnd);
        if (metricEnd < 0) return ASIDE;
        while (at < metricEnd) {
          const metricTag = varint(metricEnd);
          if (metricTag < 8) return ASIDE;
          const metricField = metricTag >>> 3;
          const read =
            metricField === 1
              ? string(metricTag & 7, metricEnd, out, slot + NAME)
              : metricField === 2
                ? string(metricTag & 7, metricEnd, out, slot + VALUE)
                : skip(metricTag & 7, metricEnd);
          if (read < 0) return ASIDE;
        }
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
        const parsed = parseReport(bytes, scratch, method.requestDeserialize);
        return typeof parsed === 'number' ? method.requestDeserialize(bytes) : parsed;
      },
    },
  };
}
