/** Submitting Experiments to run, and the status the trial controller writes back. */

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
