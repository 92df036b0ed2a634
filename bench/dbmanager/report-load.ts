// The bench's ReportObservationLog load: `reporters` callers, each reporting one trial's steps one
// call after another, over cheap hand-made HTTP/2 connections (one per caller, as Katib's metrics
// collectors each hold their own), so that the generator takes little of the machine. Requests are
// protobuf written by hand; a read through grpc-js every `lagSampleMs` measures ack → queryable.

import { varint32Size as varintLength, writeVarint32 as writeVarint } from '../../shared/protobuf/wire.ts';
import type { DbManager } from '../../test/helpers/experiment-server.ts';
import { rawGrpcConnection } from '../ratelimit/raw-grpc-client.ts';

const REPORT_PATH = '/api.v1.beta1.DBManager/ReportObservationLog';
const METRICS = ['loss', 'accuracy'] as const;
/** 2026-01-01T00:00:00Z in microseconds: the first step of every trial. */
const BASE_MICROS = Date.UTC(2026, 0, 1) * 1_000;

export interface MetricLog {
  readonly time_stamp: string;
  readonly metric: { readonly name: string; readonly value: string };
}

/** `count` logs of one step each, alternating metrics, at increasing microsecond timestamps. */
export function metricLogs(count: number, firstStep: number): MetricLog[] {
  return Array.from({ length: count }, (_, i) => {
    const micros = BASE_MICROS + (firstStep + i) * 1_000;
    const iso = new Date(Math.floor(micros / 1_000)).toISOString().replace('Z', '');
    return {
      time_stamp: `${iso}${String(micros % 1_000).padStart(3, '0')}Z`,
      metric: { name: METRICS[i % METRICS.length]!, value: String(Math.random()) },
    };
  });
}

/** A length-delimited field (tag, length, then `length` bytes the caller writes). */
const fieldLength = (length: number): number => 1 + varintLength(length) + length;

function writeString(out: Buffer, at: number, field: number, text: string): number {
  out[at] = (field << 3) | 2;
  const next = writeVarint(out, at + 1, text.length);
  return next + out.write(text, next, 'latin1');
}

/**
 * A gRPC message (5-byte prefix, then the request) of ReportObservationLogRequest, written by hand
 * as a protobuf library would (ASCII text; minimal varints), so the generator costs little.
 */
export function reportMessage(trial: string, logs: readonly MetricLog[]): Buffer {
  const metricLengths = logs.map(
    (l) => fieldLength(l.metric.name.length) + fieldLength(l.metric.value.length),
  );
  const logLengths = logs.map((l, i) => fieldLength(l.time_stamp.length) + fieldLength(metricLengths[i]!));
  const observationLog = logLengths.reduce((sum, length) => sum + fieldLength(length), 0);
  const request = fieldLength(trial.length) + fieldLength(observationLog);
  const out = Buffer.allocUnsafe(5 + request);
  out[0] = 0;
  out.writeUInt32BE(request, 1);
  let at = writeString(out, 5, 1, trial);
  out[at] = 0x12;
  at = writeVarint(out, at + 1, observationLog);
  for (const [i, log] of logs.entries()) {
    out[at] = 0x0a;
    at = writeVarint(out, at + 1, logLengths[i]!);
    at = writeString(out, at, 1, log.time_stamp);
    out[at] = 0x12;
    at = writeVarint(out, at + 1, metricLengths[i]!);
    at = writeString(out, at, 1, log.metric.name);
    at = writeString(out, at, 2, log.metric.value);
  }
  return out;
}

export interface LoadResult {
  readonly seconds: number;
  readonly calls: number;
  readonly logs: number;
  readonly errors: number;
  /** Reads after an ack that were refused. */
  readonly lagErrors: number;
  readonly ackMs: number[];
  readonly lagMs: number[];
  /** When each `lagMs` sample's report was acknowledged, seconds into the load. */
  readonly lagAtSeconds: number[];
  /** CPU seconds this process (the generator) used during the load. */
  readonly generatorCpuSeconds: number;
}

/** Runs the load for `seconds`; `trialPrefix` names each caller's trial. */
export async function reportLoad(options: {
  host: string;
  port: number;
  /** Reads back a report every `lagSampleMs`; none without it. */
  db?: DbManager;
  reporters: number;
  logsPerCall: number;
  seconds: number;
  lagSampleMs: number;
  trialPrefix: string;
}): Promise<LoadResult> {
  const { db, reporters, logsPerCall } = options;
  const connections = Array.from({ length: reporters }, () =>
    // An empty reply message: the 5-byte prefix of a zero-length ReportObservationLogReply.
    rawGrpcConnection(options.host, options.port, REPORT_PATH, (reply) => reply.length >= 5),
  );
  const ackMs: number[] = [];
  const lagMs: number[] = [];
  const lagAtSeconds: number[] = [];
  const lagChecks: Promise<void>[] = [];
  let logs = 0;
  let errors = 0;
  let lagErrors = 0;
  let nextSample = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const until = started + options.seconds * 1_000;
  try {
    await Promise.all(
      connections.map(async (connection, reporter) => {
        const trial = `${options.trialPrefix}-${reporter}`;
        for (let call = 0; performance.now() < until; call++) {
          const sent = performance.now();
          const batch = metricLogs(logsPerCall, call * logsPerCall);
          try {
            await connection.call(connection.prepare(reportMessage(trial, batch)));
          } catch {
            errors++;
            continue;
          }
          const acked = performance.now();
          ackMs.push(acked - sent);
          logs += batch.length;
          if (db === undefined || acked < nextSample) continue;
          nextSample = acked + options.lagSampleMs;
          // Queryable = a read issued right after the ack returns this call's logs.
          const first = batch[0]!.time_stamp;
          const last = batch.at(-1)!.time_stamp;
          const check = db.get({ trial_name: trial, start_time: first, end_time: last }).then(
            (reply) => {
              const seen = reply.observation_log?.metric_logs.length ?? 0;
              if (seen !== batch.length)
                throw new Error(`read after ack saw ${seen} of ${batch.length} logs`);
              lagMs.push(performance.now() - acked);
              lagAtSeconds.push((acked - started) / 1_000);
            },
            // A refused read (UNAVAILABLE on a machine too busy for Kafka to answer in time) is counted.
            () => void lagErrors++,
          );
          check.catch(() => undefined); // reported by the Promise.all below, once the load is over
          lagChecks.push(check);
        }
      }),
    );
  } finally {
    for (const connection of connections) connection.close();
  }
  const seconds = (performance.now() - started) / 1_000;
  const cpu = process.cpuUsage(cpuBefore);
  await Promise.all(lagChecks);
  return {
    seconds,
    calls: ackMs.length,
    logs,
    errors,
    lagErrors,
    ackMs,
    lagMs,
    lagAtSeconds,
    generatorCpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}
