// A Katib `kubeflow.org/v1beta1` Experiment as it runs here: what read-experiment.ts makes of the
// YAML a user wrote, defaults applied as Katib's webhook applies them (experiment_defaults.go).
import type { MetricsCollectorConfig } from '../../common/trial-run.ts';

export type ObjectiveType = 'minimize' | 'maximize';
export type MetricStrategy = 'min' | 'max' | 'latest';
export type ParameterType = 'double' | 'int' | 'discrete' | 'categorical';
export type Distribution = 'uniform' | 'logUniform' | 'normal' | 'logNormal';
export type ResumePolicy = 'Never' | 'LongRunning' | 'FromVolume';

export interface Setting {
  readonly name: string;
  readonly value: string;
}

export interface ParameterDefinition {
  readonly name: string;
  readonly type: ParameterType;
  /** Numbers as text, as Katib carries them; '' when not given. */
  readonly min: string;
  readonly max: string;
  readonly step: string;
  readonly list: readonly string[];
  readonly distribution: Distribution;
}

export interface TrialParameter {
  readonly name: string;
  readonly description: string;
  /** A parameter name, or a meta key such as `${trialSpec.Name}`. */
  readonly reference: string;
}

/** The primary container of the trial's Job: what runs as a local process. */
export interface ContainerDefinition {
  readonly name: string;
  readonly command: readonly string[];
  readonly args: readonly string[];
  readonly env: readonly Setting[];
  readonly workingDir: string;
}

export interface TrialTemplateDefinition {
  readonly primaryContainerName: string;
  readonly trialParameters: readonly TrialParameter[];
  readonly apiVersion: string;
  readonly kind: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly container: ContainerDefinition;
}

export interface ExperimentDefinition {
  readonly name: string;
  readonly namespace: string;
  readonly objective: {
    readonly type: ObjectiveType;
    readonly goal: number | undefined;
    readonly metricName: string;
    readonly additionalMetricNames: readonly string[];
    /** Per metric (objective and additional ones), how a trial's value is picked from its logs. */
    readonly strategies: Readonly<Record<string, MetricStrategy>>;
  };
  readonly algorithm: { readonly name: string; readonly settings: readonly Setting[] };
  readonly earlyStopping: { readonly name: string; readonly settings: readonly Setting[] } | undefined;
  readonly parameters: readonly ParameterDefinition[];
  readonly parallelTrialCount: number;
  readonly maxTrialCount: number | undefined;
  readonly maxFailedTrialCount: number | undefined;
  readonly resumePolicy: ResumePolicy;
  readonly collector: MetricsCollectorConfig;
  readonly trialTemplate: TrialTemplateDefinition;
}

/** One problem of a file: where (`spec.trialTemplate.trialParameters[1].reference`) and what. */
export interface Problem {
  readonly path: string;
  readonly message: string;
}

export type ReadResult =
  | { readonly ok: true; readonly definition: ExperimentDefinition }
  | { readonly ok: false; readonly problems: readonly Problem[] };

/** Katib's default number of trials in flight (DefaultTrialParallelCount). */
export const DEFAULT_PARALLEL_TRIAL_COUNT = 3;

/** Every problem, one per line, as an error message says them. */
export const problemsText = (problems: readonly Problem[]): string =>
  problems.map((p) => (p.path === '' ? p.message : `${p.path}: ${p.message}`)).join('\n');
