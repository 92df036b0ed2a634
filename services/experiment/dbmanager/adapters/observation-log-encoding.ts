// GetObservationLogReply's wire encoding, written straight into one buffer as the store scans the
// logs. The generic encoder (protobufjs through proto-loader) builds a message object and a list of
// write operations per field: ~10 objects per metric log, which at 10,000 logs a reply made garbage
// collection 30% of the server's CPU (cpu profile of 200 reads of a 10,000-log trial). The bytes are
// those of the generic encoder, field for field (test/unit/experiment/dbmanager/observation-log-encoding.test.ts).
import type { ServiceDefinition } from '@grpc/grpc-js';
import type { GetObservationLogReply } from '../../../../proto/gen/api/v1/beta1/GetObservationLogReply.ts';
import { fieldNumbers, type SchemaDeclaration } from '../../../../shared/protobuf/schema.ts';
import {
  oneByteTag,
  varint32Size as varintSize,
  WIRE,
  writeVarint32 as writeVarint,
} from '../../../../shared/protobuf/wire.ts';

/** What this writer writes of api.proto. */
export const OBSERVATION_LOG_REPLY_SCHEMA = {
  'api.v1.beta1.GetObservationLogReply': { observation_log: [1, 'api.v1.beta1.ObservationLog'] },
  'api.v1.beta1.ObservationLog': { metric_logs: [1, 'repeated api.v1.beta1.MetricLog'] },
  'api.v1.beta1.MetricLog': { time_stamp: [1, 'string'], metric: [2, 'api.v1.beta1.Metric'] },
  'api.v1.beta1.Metric': { name: [1, 'string'], value: [2, 'string'] },
} as const satisfies SchemaDeclaration;
const fields = <K extends keyof typeof OBSERVATION_LOG_REPLY_SCHEMA>(message: K) =>
  fieldNumbers(OBSERVATION_LOG_REPLY_SCHEMA[message]);
const REPLY_LOG = oneByteTag(fields('api.v1.beta1.GetObservationLogReply').observation_log, WIRE.bytes);
const LOGS = oneByteTag(fields('api.v1.beta1.ObservationLog').metric_logs, WIRE.bytes);
const TIME_STAMP = oneByteTag(fields('api.v1.beta1.MetricLog').time_stamp, WIRE.bytes);
const METRIC = oneByteTag(fields('api.v1.beta1.MetricLog').metric, WIRE.bytes);
const NAME = oneByteTag(fields('api.v1.beta1.Metric').name, WIRE.bytes);
const VALUE = oneByteTag(fields('api.v1.beta1.Metric').value, WIRE.bytes);

/** Bytes of a string field: tag, length, UTF-8. */
const stringFieldSize = (text: string): number => {
  const bytes = Buffer.byteLength(text);
  return 1 + varintSize(bytes) + bytes;
};

function writeStringField(buffer: Buffer, at: number, tag: number, text: string): number {
  buffer[at++] = tag;
  const bytes = Buffer.byteLength(text);
  at = writeVarint(buffer, at, bytes);
  return at + buffer.write(text, at, bytes, 'utf8');
}

function isAscii(text: string): boolean {
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) > 0x7f) return false;
  return true;
}

const asciiFieldSize = (text: string): number => 1 + varintSize(text.length) + text.length;

/** A string field of ASCII characters (checked by the caller): one byte a character, no native call. */
function writeAscii(buffer: Buffer, start: number, tag: number, text: string): number {
  buffer[start] = tag;
  let at = writeVarint(buffer, start + 1, text.length);
  for (let k = 0; k < text.length; k++) buffer[at++] = text.charCodeAt(k);
  return at;
}

/** A reply whose bytes were written already (by an ObservationLogWriter): sent as they are. */
export class EncodedObservationLogReply {
  readonly bytes: Buffer;
  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }
}

/**
 * Writes a GetObservationLogReply log by log as a store scans them, so that no object per log is
 * made (on a 10,000-log read the garbage collector was 45 % of the server's time, the rows being
 * alive when a collection came). The bytes are those of the generic encoder for the same logs.
 */
export class ObservationLogWriter {
  #buffer = Buffer.allocUnsafe(64 * 1024);
  /** Where the next log goes; the first 6 bytes are kept for the observation log's tag and length. */
  #at = 6;

  add(time: string, name: string, value: string): void {
    // At most: 3 tags, 3 lengths of ≤ 5 bytes and 3 bytes of UTF-8 per UTF-16 unit, then 2 × (1 + 5) around.
    const most = 12 + 18 + 3 * (time.length + name.length + value.length);
    if (this.#at + most > this.#buffer.length) this.#grow(most);
    const ascii = isAscii(time) && isAscii(name) && isAscii(value);
    const fieldSize = ascii ? asciiFieldSize : stringFieldSize;
    const writeField = ascii ? writeAscii : writeStringField;
    const metricSize = fieldSize(name) + fieldSize(value);
    const size = fieldSize(time) + 1 + varintSize(metricSize) + metricSize;
    const buffer = this.#buffer;
    let at = this.#at;
    buffer[at++] = LOGS;
    at = writeVarint(buffer, at, size);
    at = writeField(buffer, at, TIME_STAMP, time);
    buffer[at++] = METRIC;
    at = writeVarint(buffer, at, metricSize);
    at = writeField(buffer, at, NAME, name);
    this.#at = writeField(buffer, at, VALUE, value);
  }

  /** The reply: one observation log holding every log added (an empty one when none was). */
  finish(): EncodedObservationLogReply {
    const logsSize = this.#at - 6;
    const start = 6 - 1 - varintSize(logsSize);
    this.#buffer[start] = REPLY_LOG;
    writeVarint(this.#buffer, start + 1, logsSize);
    return new EncodedObservationLogReply(this.#buffer.subarray(start, this.#at));
  }

  #grow(atLeast: number): void {
    const bigger = Buffer.allocUnsafe(Math.max(this.#buffer.length * 2, this.#at + atLeast));
    this.#buffer.copy(bigger, 0, 0, this.#at);
    this.#buffer = bigger;
  }
}

/**
 * The DBManager definition with GetObservationLog's written replies sent as they are; a reply made
 * of plain objects goes through the generic encoder.
 */
export function withObservationLogEncoder(definition: ServiceDefinition): ServiceDefinition {
  const method = definition.GetObservationLog;
  if (method === undefined) throw new Error('not the DBManager service: no GetObservationLog');
  return {
    ...definition,
    GetObservationLog: {
      ...method,
      responseSerialize: (reply: GetObservationLogReply | EncodedObservationLogReply) =>
        reply instanceof EncodedObservationLogReply ? reply.bytes : method.responseSerialize(reply),
    },
  };
}
