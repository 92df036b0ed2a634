// Katib's StdOut and File collector rules (pkg/metricscollector/v1beta1/file-metricscollector),
// applied line by line as a trial writes, so each value is reported as it appears:
// - TEXT: a line counts only if it contains one of the metric names; each filter (Katib's default
//   `name=value` one unless the experiment gives its own) is matched everywhere on it, group 1 the
//   name and group 2 the value, both trimmed, kept when the name is one of the experiment's metrics;
//   a first space-separated token that parses as RFC 3339 is the line's time.
// - JSON: one object per line; each metric's key gives its value, key `timestamp` the time (RFC 3339
//   text, or seconds since the epoch).
// Where Katib has nothing better (a line without a time of its own) it stamps year 1; here the time
// the runner read the line is used, so curves and "first N values" keep the order of writing.
// JSON values that are numbers are taken too (Katib drops everything but strings).
import { normalizeRfc3339 } from '../../../shared/rfc3339.ts';
import { compileMetricFilter, DEFAULT_METRIC_FILTER } from '../common/metric-filters.ts';
import type { MetricsFormat } from '../common/trial-run.ts';
import { UNAVAILABLE_METRIC_VALUE, ZERO_TIME } from '../common/trial-run.ts';

export interface MetricLog {
  readonly timeStamp: string;
  readonly name: string;
  readonly value: string;
}

export interface ParsedLine {
  readonly logs: MetricLog[];
  /** Why the line could not be read (a JSON line that is not an object); undefined when it could. */
  readonly problem?: string;
}

/** Splits text arriving in pieces into whole lines; a piece may end in the middle of one. */
export class LineSplitter {
  private partial = '';

  /** The lines completed by `chunk` (without their `\n` or `\r\n`). */
  push(chunk: string): string[] {
    const text = this.partial + chunk;
    const lines = text.split('\n');
    this.partial = lines.pop()!;
    return lines.map(stripCarriageReturn);
  }

  /** The last line when the text ended without a newline; undefined when it ended with one. */
  end(): string | undefined {
    const rest = this.partial;
    this.partial = '';
    return rest === '' ? undefined : stripCarriageReturn(rest);
  }
}

const stripCarriageReturn = (line: string): string => (line.endsWith('\r') ? line.slice(0, -1) : line);

const isRfc3339 = (text: string): boolean => normalizeRfc3339(text).ok;

/** Seconds since the epoch (with a fraction) as an RFC 3339 time in UTC. */
export function epochSecondsToRfc3339(seconds: number): string | undefined {
  if (!Number.isFinite(seconds)) return undefined;
  const whole = Math.floor(seconds);
  const micros = Math.round((seconds - whole) * 1e6);
  const date = new Date(whole * 1000);
  if (Number.isNaN(date.getTime())) return undefined;
  const base = date.toISOString().slice(0, 19);
  return micros === 0 ? `${base}Z` : `${base}.${String(micros).padStart(6, '0').replace(/0+$/, '')}Z`;
}

export interface LineParserOptions {
  readonly format: MetricsFormat;
  /** Regular expressions from spec.metricsCollectorSpec.source.filter; empty: Katib's default. */
  readonly filters: readonly string[];
  /** The objective first, then the additional metrics. */
  readonly metricNames: readonly string[];
}

export type LineParser = (line: string, readAt: string) => ParsedLine;

export function createLineParser(options: LineParserOptions): LineParser {
  const metrics = new Set(options.metricNames);
  if (options.format === 'JSON') return (line, readAt) => parseJsonLine(line, metrics, readAt);
  const filters = (options.filters.length > 0 ? options.filters : [DEFAULT_METRIC_FILTER]).flatMap(
    (source) => {
      const compiled = compileMetricFilter(source);
      return compiled.ok ? [compiled.regexp] : [];
    },
  );
  return (line, readAt) => parseTextLine(line, options.metricNames, metrics, filters, readAt);
}

function parseTextLine(
  line: string,
  names: readonly string[],
  metrics: ReadonlySet<string>,
  filters: readonly RegExp[],
  readAt: string,
): ParsedLine {
  if (!names.some((name) => line.includes(name))) return { logs: [] };
  const space = line.indexOf(' ');
  const first = space < 0 ? '' : line.slice(0, space);
  const timeStamp = first !== '' && isRfc3339(first) ? first : readAt;
  const logs: MetricLog[] = [];
  for (const filter of filters) {
    filter.lastIndex = 0;
    for (const match of line.matchAll(filter)) {
      if (match.length < 3 || match[1] === undefined || match[2] === undefined) continue;
      const name = match[1].trim();
      const value = match[2].trim();
      if (metrics.has(name)) logs.push({ timeStamp, name, value });
    }
  }
  return { logs };
}

function parseJsonLine(line: string, metrics: ReadonlySet<string>, readAt: string): ParsedLine {
  if (line.trim() === '') return { logs: [] };
  let object: unknown;
  try {
    object = JSON.parse(line);
  } catch (error) {
    return { logs: [], problem: `not JSON (${(error as Error).message}): ${line.slice(0, 200)}` };
  }
  if (typeof object !== 'object' || object === null || Array.isArray(object))
    return { logs: [], problem: `not a JSON object: ${line.slice(0, 200)}` };
  const record = object as Record<string, unknown>;
  const stamp = record.timestamp;
  const timeStamp =
    typeof stamp === 'string' && isRfc3339(stamp)
      ? stamp
      : typeof stamp === 'number'
        ? (epochSecondsToRfc3339(stamp) ?? readAt)
        : readAt;
  const logs: MetricLog[] = [];
  for (const name of metrics) {
    const value = record[name];
    if (typeof value === 'string') logs.push({ timeStamp, name, value });
    else if (typeof value === 'number' && Number.isFinite(value))
      logs.push({ timeStamp, name, value: String(value) });
  }
  return { logs };
}

/**
 * What a trial reported over its life: whether its objective ever appeared. At the end, a trial
 * that never reported it gets Katib's single `unavailable` log (time year 1), which makes it
 * MetricsUnavailable.
 */
export class ObjectiveWatch {
  private seen = false;
  private readonly objective: string;
  constructor(objective: string) {
    this.objective = objective;
  }

  observe(logs: readonly MetricLog[]): void {
    if (!this.seen && logs.some((log) => log.name === this.objective)) this.seen = true;
  }

  get reported(): boolean {
    return this.seen;
  }

  /** The log to report when the trial ended without its objective; [] otherwise. */
  finalLogs(): MetricLog[] {
    return this.seen ? [] : [{ timeStamp: ZERO_TIME, name: this.objective, value: UNAVAILABLE_METRIC_VALUE }];
  }
}
