/**
 * Ports the experiment service's features share: what their use cases need from the outside world.
 * This file: the observation store; the read model is in read-model.ts, submissions and the
 * experiments' statuses in submissions.ts. Adapters live in each feature's `adapters/`; every
 * adapter of a port passes the same contract tests.
 */

/**
 * One metric value at one time, as Katib's `MetricLog` but flattened.
 *
 * `time` is always normalized: a UTC string of fixed width `YYYY-MM-DDTHH:MM:SS.ffffffZ` (exactly six
 * fraction digits, microseconds, truncated; years 0001–9999). Fixed width makes text order equal time
 * order, so stores compare and sort it as text with a binary collation. Callers normalize before
 * they report or query; stores never parse it.
 *
 * `metricName` and `value` are kept verbatim (`value` is any string: `"0.5"`, `"1e-3"`, `"unavailable"`).
 */
export interface MetricLogRow {
  readonly time: string;
  readonly metricName: string;
  readonly value: string;
}

/**
 * One event of `experiment.observations` or `experiment.trial-status`, as the persistence consumer
 * applies it.
 *
 * - `reported` appends its logs (in the given order) to the trial's logs; duplicates are kept, as in
 *   Katib. An empty `logs` is allowed and stores nothing.
 * - `deleted` removes every log of the trial applied before it (in earlier calls or earlier in the
 *   same batch); later reports of the trial are kept. Deleting a trial without logs is not an error.
 *
 * `eventId` identifies the event across redeliveries: a store applies each eventId at most once.
 */
export type ObservationChange =
  | {
      readonly kind: 'reported';
      readonly eventId: string;
      readonly trialName: string;
      readonly logs: readonly MetricLogRow[];
    }
  | { readonly kind: 'deleted'; readonly eventId: string; readonly trialName: string }
  | ({ readonly kind: 'status'; readonly eventId: string } & TrialStatusRecord);

/**
 * The latest status of a trial, from `experiment.trial-status` (`TrialStatusChanged`). A later
 * `status` change of the same trial replaces it (the topic's partition order is the trial's order).
 */
export interface TrialStatusRecord {
  readonly trialName: string;
  /** Katib's TrialConditionType name: `EARLYSTOPPED`, `SUCCEEDED`, ... */
  readonly condition: string;
  readonly reason: string;
  readonly message: string;
  /** When the status changed, epoch milliseconds. */
  readonly changedAtMs: number;
}

/** Katib's `GetObservationLogRequest`, with times already normalized. */
export interface ObservationQuery {
  readonly trialName: string;
  /** `undefined` = every metric of the trial (Katib: empty metric_name). */
  readonly metricName?: string;
  /** Inclusive lower bound, normalized; `undefined` = unbounded. */
  readonly from?: string;
  /** Inclusive upper bound, normalized; `undefined` = unbounded. */
  readonly to?: string;
}

/** A trial's curves reduced for a chart of `columns` columns. */
export interface CurveQuery {
  readonly trialName: string;
  /** `undefined` = every metric of the trial that has a numeric value. */
  readonly metricName?: string;
  /** Inclusive bounds, normalized; `undefined` = the series' first (last) point. */
  readonly from?: string;
  readonly to?: string;
  /** How many columns the chart has (1 or more). */
  readonly columns: number;
}

/**
 * One metric's curve as a chart of `columns` columns draws it: per column (`origin + k * columnMs`,
 * epoch ms) its first, lowest, highest and last point, so the lowest and highest of every column are
 * always there. Only numeric values count (a value that is no finite decimal is not drawn).
 */
export interface MetricCurve {
  readonly metricName: string;
  /** Numeric points of the whole series, their time span (epoch ms) and range. */
  readonly points: number;
  readonly firstMs: number;
  readonly lastMs: number;
  readonly minValue: number;
  readonly maxValue: number;
  readonly origin: number;
  readonly columnMs: number;
  /** How many points the columns stand for (those of the range, and of its edge columns). */
  readonly pointsInColumns: number;
  /** `[ms, value]` in time order; milliseconds carry the microseconds as their fraction. */
  readonly data: readonly (readonly [number, number])[];
}

/**
 * Where observation logs are kept (Katib's `observation_logs` table). Beside them, in the same
 * transaction, each store keeps a summary of every series (`metric_series`: the read model joins it
 * for best objectives) and the time buckets of large ones (`metric_buckets`), which `curves` reads.
 * Failures are `AppError`s:
 * `UNAVAILABLE` (retriable) when the store cannot be reached or is closed, `INTERNAL` when it
 * rejects the data itself (e.g. a missing field forced through a cast).
 */
/** Receives one log of a scan: its normalized time, metric name and value. */
export type LogVisitor = (time: string, metricName: string, value: string) => void;

export interface ObservationStore {
  /**
   * Applies changes in order in ONE transaction; a change whose eventId was applied before is skipped
   * (redelivery), also when it appears twice in the same batch. Returns how many changes took effect
   * (were not skipped). On failure nothing of the batch is applied, eventIds included, so the whole
   * batch can be retried.
   */
  apply(changes: readonly ObservationChange[]): Promise<number>;
  /**
   * Logs ordered by time, ties in report order (the order they were applied). An unknown trial, or
   * nothing matching, gives `[]`.
   */
  query(query: ObservationQuery): Promise<MetricLogRow[]>;
  /**
   * The logs `query` gives, handed to `visit` one by one instead of as objects (a 10,000-log read
   * through `query` made 10,000 objects more, and the collections they caused were 45 % of the
   * server's time); resolves with how many there were.
   */
  scan(query: ObservationQuery, visit: LogVisitor): Promise<number>;
  /**
   * The trial's curves, a few points per column whatever the number of logs, from a summary the store
   * keeps as logs are applied; metrics in name order. An unknown trial or metric gives `[]`.
   */
  curves(query: CurveQuery): Promise<MetricCurve[]>;
  /** The trial's latest recorded status; `undefined` when none was recorded. */
  trialStatus(trialName: string): Promise<TrialStatusRecord | undefined>;
  /** Whether the store holds anything of the trial: a log or a status. */
  knowsTrial(trialName: string): Promise<boolean>;
  /** Resolves when the store answers (health). */
  ping(): Promise<void>;
  /** Releases connections and files; idempotent. Every call afterwards rejects with UNAVAILABLE. */
  close(): Promise<void>;
}
