/**
 * The read model the experiment service's web side shows: experiments, trials and what their
 * charts, fronts and importances read. Kept by the persistence consumer; adapters pass the same
 * contract tests.
 */

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
