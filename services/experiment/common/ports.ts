/**
 * Ports the experiment service's features share: what their use cases need from the outside world.
 * Adapters live in each feature's `adapters/`; every adapter of a port passes the same contract tests.
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

export interface Assignment {
  readonly name: string;
  readonly value: string;
}

export interface EarlyStoppingRuleView {
  readonly name: string;
  readonly value: string;
  readonly comparison: string;
  readonly startStep: number;
}

/** One objective of an experiment: a metric and the direction it is optimised in. */
export interface ObjectiveView {
  readonly metricName: string;
  readonly type: 'MAXIMIZE' | 'MINIMIZE';
}

/** One parameter of an experiment's search space, as Katib's ParameterSpec gives it (text as sent). */
export interface SearchParameterView {
  readonly name: string;
  /** DOUBLE, INT, DISCRETE or CATEGORICAL. */
  readonly parameterType: string;
  readonly min: string;
  readonly max: string;
  readonly step: string;
  readonly list: readonly string[];
  /** Katib's Distribution name (LOG_UNIFORM, ...); '' when unspecified. */
  readonly distribution: string;
}

export interface ExperimentView {
  readonly name: string;
  readonly algorithm: string;
  readonly objectiveMetric: string;
  readonly objectiveType: string;
  /**
   * Every objective, the first being the experiment's own: those of the algorithm setting
   * `objectives` when it has one, else objectiveMetric alone; empty while no direction is known.
   */
  readonly objectives: readonly ObjectiveView[];
  /** The search space as the last GetSuggestions request carried it; empty before one did (or for NAS). */
  readonly parameters: readonly SearchParameterView[];
  readonly rules: readonly EarlyStoppingRuleView[];
  readonly trialCount: number;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
}

export interface TrialView {
  readonly name: string;
  readonly experiment: string;
  /** 1-based order in which the trial appeared in its experiment. */
  readonly order: number;
  readonly assignments: readonly Assignment[];
  /**
   * The latest status recorded in the observation store (Katib's TrialConditionType name); before
   * one is, the condition a request listed; '' when neither.
   */
  readonly condition: string;
  readonly reason: string;
  readonly message: string;
  readonly statusAtMs: number | null;
  readonly createdAtMs: number;
}

export interface TrialWithObjective extends TrialView {
  /** Best value of the experiment's objective metric (max when maximizing, min when minimizing, else the latest). */
  readonly bestObjective: number | null;
  readonly objectivePoints: number;
}

/** What a trials table sorts by: one of the trial's columns or a parameter's value. */
export type TrialSort =
  | { readonly column: 'order' | 'name' | 'condition' | 'bestObjective' }
  | { readonly parameter: string };

/** One page of an experiment's trials, sorted and filtered where the data is. */
export interface TrialPageQuery {
  readonly offset: number;
  readonly limit: number;
  readonly sort: TrialSort;
  /**
   * Descending instead of ascending. Either way a trial without the value (no objective yet, no such
   * parameter) comes last, numbers sort as numbers and before text, and ties keep the trials' order.
   */
  readonly descending: boolean;
  /** Only trials shown with this condition (`EARLYSTOPPED`, ...); undefined = every one. */
  readonly condition?: string;
  /** Only trials whose name contains this, ignoring ASCII case; undefined = every one. */
  readonly nameContains?: string;
}

export interface TrialPage {
  /** Trials that pass the filters (all pages). */
  readonly total: number;
  readonly trials: TrialWithObjective[];
}

/** Every trial of an experiment in a few columns (in the trials' order): what its charts draw. */
export interface TrialSummary {
  readonly names: string[];
  readonly conditions: string[];
  readonly best: (number | null)[];
  /** Every parameter any trial has, sorted. */
  readonly parameters: string[];
  /** Per parameter (in `parameters`' order), each trial's value as given; '' when it has none. */
  readonly values: string[][];
}

/** Every trial of an experiment with its value of each objective asked for: what its front and importance read. */
export interface TrialObjectiveValues {
  /** In the trials' order. */
  readonly names: string[];
  readonly conditions: string[];
  readonly assignments: Assignment[][];
  /**
   * Per objective (in the order asked), each trial's best value in that objective's direction (the
   * highest when maximizing, the lowest when minimizing), from the store's summary of the metric;
   * null when the trial reported no number for it.
   */
  readonly values: (number | null)[][];
}

/** The Pareto front of an experiment's counted trials (SUCCEEDED or EARLYSTOPPED, every objective reported). */
export interface ParetoView {
  readonly objectives: readonly ObjectiveView[];
  /** Every counted trial in the trials' order: its rank (0 on the front) and its value of each objective. */
  readonly trials: readonly {
    readonly name: string;
    readonly rank: number;
    readonly values: readonly number[];
  }[];
  /** Names of the rank-0 trials: the experiment's best trials. */
  readonly front: readonly string[];
  /** The reference point, in the metrics' units; null when no trial counts and none was given. */
  readonly reference: readonly number[] | null;
  /** `query`: the one asked for; `default`: each objective's worst value plus 10% of its range. */
  readonly referenceFrom: 'query' | 'default';
  readonly hypervolume: number;
}

/** Each parameter's importance for each objective of an experiment. */
export interface ImportanceView {
  /** Counted trials inside the search space: what importance could learn from. */
  readonly trials: number;
  /** How many of them the forests learnt from: all, or a bounded sample drawn among them. */
  readonly fittedOn: number;
  /** Per objective, each parameter's share in the search space's order, summing to 1; null below two trials or without a search space. */
  readonly objectives: readonly (ObjectiveView & {
    readonly importances: readonly { readonly parameter: string; readonly importance: number }[] | null;
  })[];
}

/**
 * What the experiment page's objective views compute from the read model's trials (the suggestion
 * feature's domain provides it; main.ts hands it to the web side). Synchronous and bounded in time.
 */
export interface ObjectiveAnalysis {
  /** `reference`: one value per objective in the metrics' units (RangeError otherwise); undefined: the default point. */
  front(
    objectives: readonly ObjectiveView[],
    trials: TrialObjectiveValues,
    reference?: readonly number[],
  ): ParetoView;
  /**
   * fANOVA importance; the answer for `experiment` is kept until the trials it learns from, their
   * values, the objectives or the search space change, so asking again without change costs no forest.
   */
  importance(
    experiment: string,
    parameters: readonly SearchParameterView[],
    objectives: readonly ObjectiveView[],
    trials: TrialObjectiveValues,
  ): ImportanceView;
}

/**
 * The read model of experiments and trials (kept by the persistence consumer, read by the web
 * side). Failures are `AppError`s: `UNAVAILABLE` when the database cannot answer or is closed.
 */
export interface ReadModel {
  /** Every experiment, the most recently updated first. */
  experiments(): Promise<ExperimentView[]>;
  experiment(name: string): Promise<ExperimentView | undefined>;
  /** One page of the experiment's trials; an unknown experiment has none. */
  trialPage(experiment: string, query: TrialPageQuery): Promise<TrialPage>;
  /** The experiment's trials in columns; empty for an unknown experiment. */
  trialSummary(experiment: string): Promise<TrialSummary>;
  /** The experiment's trials with their value of each objective; empty for an unknown experiment. */
  trialObjectives(experiment: string, objectives: readonly ObjectiveView[]): Promise<TrialObjectiveValues>;
  trial(name: string): Promise<TrialView | undefined>;
  /** Names of the experiment's trials (for a live stream's filter). */
  trialNames(experiment: string): Promise<string[]>;
}

/** One problem of a refused Experiment file, named by its path (`spec.parameters[0].feasibleSpace.min`). */
export interface SubmissionProblem {
  readonly path: string;
  readonly message: string;
}

export type SubmissionAnswer =
  | {
      readonly accepted: true;
      readonly name: string;
      readonly generation: number;
      /** The same YAML as the last submission: nothing was written. */
      readonly unchanged: boolean;
    }
  | { readonly accepted: false; readonly problems: readonly SubmissionProblem[] };

/** Takes Experiments to run (POST /api/experiments, `experiment run`). */
export interface ExperimentSubmitter {
  /**
   * Reads `yaml` as a Katib v1beta1 Experiment. Refused: every problem, nothing written. Accepted:
   * an ExperimentSubmitted event, resolved once Kafka acknowledged it; UNAVAILABLE when it cannot.
   */
  submit(yaml: string, source: string): Promise<SubmissionAnswer>;
}

/** An experiment as the trial controller last wrote it on experiment.experiments. */
export interface ExperimentStatusView {
  readonly name: string;
  /** The latest submission's generation. */
  readonly generation: number;
  /** The generation the status is about; a status older than `generation` is from before the last submission. */
  readonly statusGeneration: number;
  /** Katib's condition; '' before the controller wrote one. */
  readonly condition: string;
  readonly reason: string;
  readonly message: string;
  readonly trials: {
    readonly pending: number;
    readonly running: number;
    readonly succeeded: number;
    readonly failed: number;
    readonly killed: number;
    readonly early_stopped: number;
    readonly metrics_unavailable: number;
  };
  readonly best_trial: {
    readonly name: string;
    readonly objective: string;
    readonly assignments: readonly { readonly name: string; readonly value: string }[];
  } | null;
}

export interface ExperimentStatuses {
  /** The experiment's latest status, after everything on its topic when called was read; undefined when never submitted. */
  latest(name: string): Promise<ExperimentStatusView | undefined>;
}
