// What a trial controller hands a runner (the trials feature writes it into a TrialAssigned event,
// the runner feature reads it back): the process to start and how its metrics are collected.

/** Katib's metrics collector kinds that run without a sidecar here. */
export type CollectorKind = 'StdOut' | 'File';
/** Katib's FileSystemPath formats. */
export type MetricsFormat = 'TEXT' | 'JSON';

export interface MetricsCollectorConfig {
  readonly kind: CollectorKind;
  /** File: the metrics file, relative to the trial's working directory unless absolute; '' for StdOut. */
  readonly path: string;
  readonly format: MetricsFormat;
  /** `metricsFormat` regular expressions as the experiment wrote them; empty: Katib's default filter. */
  readonly filters: readonly string[];
}

export interface TrialRunSpec {
  /** The container's command then its args, with every `${trialParameters.…}` and `$(VAR)` substituted. */
  readonly command: readonly string[];
  /** The container's env, added to the runner's own environment. */
  readonly env: readonly { readonly name: string; readonly value: string }[];
  /** '' runs the trial in the runner's working directory; relative paths are resolved against it. */
  readonly workingDir: string;
  readonly collector: MetricsCollectorConfig;
  /** The objective metric first, then the additional ones (Katib's `-m` of the collector). */
  readonly metricNames: readonly string[];
  readonly objectiveType: 'minimize' | 'maximize';
}

/** Katib's value for a metric that was never reported. */
export const UNAVAILABLE_METRIC_VALUE = 'unavailable';
/** The time Katib's collectors give a log without a timestamp of its own (Go's zero time). */
export const ZERO_TIME = '0001-01-01T00:00:00Z';
