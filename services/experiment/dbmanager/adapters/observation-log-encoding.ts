// GetObservationLogReply's wire encoding, written straight into one buffer. The generic encoder
// (protobufjs through proto-loader) builds a message object and a list of write operations per
// field: ~10 objects per metric log, which at 10,000 logs a reply made garbage collection 30% of
// the server's CPU (cpu profile of 200 reads of a 10,000-log trial). The bytes are those of the
// generic encoder, field for field (test/unit/experiment/dbmanager/observation-log-encoding.test.ts).
//
//   GetObservationLogReply { ObservationLog observation_log = 1; }
//   ObservationLog         { repeated MetricLog metric_logs = 1; }
//   MetricLog              { string time_stamp = 1; Metric metric = 2; }
//   Metric                 { string name = 1; string value = 2; }
import type { ServiceDefinition } from '@grpc/grpc-js';
import type { GetObservationLogReply } from '../../../../proto/gen/api/v1/beta1/GetObservationLogReply.ts';

/** Field 1 or 2, wire type 2 (length-delimited). */
const FIELD_1 = 0x0a;
const FIELD_2 = 0x12;

const varintSize = (value: number): number =>
  value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;

function writeVarint(buffer: Buffer, at: number, value: number): number {
  let rest = value;
  while (rest >= 0x80) {
    buffer[at++] = (rest & 0x7f) | 0x80;
    rest >>>= 7;
  }
  buffer[at++] = rest;
  return at;
}

/** Bytes of a string field (tag, length, UTF-8), or 0 when absent: proto-loader writes "" too. */
const stringFieldSize = (text: string | undefined | null): number => {
  if (text == null) return 0;
  const bytes = Buffer.byteLength(text);
  return 1 + varintSize(bytes) + bytes;
};

function writeStringField(buffer: Buffer, at: number, tag: number, text: string | undefined | null): number {
  if (text == null) return at;
  buffer[at++] = tag;
  const bytes = Buffer.byteLength(text);
  at = writeVarint(buffer, at, bytes);
  return at + buffer.write(text, at, bytes, 'utf8');
}

export function encodeGetObservationLogReply(reply: GetObservationLogReply): Buffer {
  const log = reply.observation_log;
  if (log == null) return Buffer.alloc(0);
  const logs = log.metric_logs ?? [];
  // Sizes first (each log's and its metric's), then one buffer written front to back.
  const logSizes = new Uint32Array(logs.length);
  const metricSizes = new Int32Array(logs.length);
  let logsSize = 0;
  for (let i = 0; i < logs.length; i++) {
    const entry = logs[i]!;
    const metric = entry.metric;
    let size = stringFieldSize(entry.time_stamp);
    if (metric == null) metricSizes[i] = -1;
    else {
      const metricSize = stringFieldSize(metric.name) + stringFieldSize(metric.value);
      metricSizes[i] = metricSize;
      size += 1 + varintSize(metricSize) + metricSize;
    }
    logSizes[i] = size;
    logsSize += 1 + varintSize(size) + size;
  }
  const buffer = Buffer.allocUnsafe(1 + varintSize(logsSize) + logsSize);
  let at = 0;
  buffer[at++] = FIELD_1;
  at = writeVarint(buffer, at, logsSize);
  for (let i = 0; i < logs.length; i++) {
    const entry = logs[i]!;
    buffer[at++] = FIELD_1;
    at = writeVarint(buffer, at, logSizes[i]!);
    at = writeStringField(buffer, at, FIELD_1, entry.time_stamp);
    const metricSize = metricSizes[i]!;
    if (metricSize >= 0) {
      buffer[at++] = FIELD_2;
      at = writeVarint(buffer, at, metricSize);
      at = writeStringField(buffer, at, FIELD_1, entry.metric!.name);
      at = writeStringField(buffer, at, FIELD_2, entry.metric!.value);
    }
  }
  return buffer;
}

/** The DBManager definition with GetObservationLog's replies encoded by the function above. */
export function withObservationLogEncoder(definition: ServiceDefinition): ServiceDefinition {
  const method = definition.GetObservationLog;
  if (method === undefined) throw new Error('not the DBManager service: no GetObservationLog');
  return {
    ...definition,
    GetObservationLog: {
      ...method,
      responseSerialize: (reply: GetObservationLogReply) => encodeGetObservationLogReply(reply),
    },
  };
}
