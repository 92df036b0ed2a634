// What every suggestion algorithm provides, and the adapter that turns a Sampler (./space.ts)
// into one: the registry (./registry.ts) holds these under Katib's names.

import type { NasConfig__Output } from '../../../proto/gen/api/v1/beta1/NasConfig.ts';
import type { ParameterAssignment } from '../../../proto/gen/api/v1/beta1/ParameterAssignment.ts';
import { internal } from '../../../shared/errors.ts';
import { type Objective, type Trials, toAssignments } from './katib-space.ts';
import { resolveObjectives, scoreTrials } from './multi-objective/objectives.ts';
import { createRng } from './rng.ts';
import type { Setting } from './settings/read.ts';
import type { Dimension, Observation, Sampler } from './space.ts';
import { pointKey } from './space.ts';

export interface ExperimentView {
  readonly name: string;
  readonly dimensions: readonly Dimension[];
  readonly objective: Objective;
  readonly parallelTrialCount: number;
  readonly maxTrialCount: number;
  /** The architecture search space (enas, darts); null when the request has none. */
  readonly nasConfig?: NasConfig__Output | null;
}

export interface Seeds {
  /** Stable for the whole experiment: random_state, else a hash of the experiment name. */
  readonly experiment: number;
  /** For this call: the experiment seed mixed with how many trials the request carries. */
  readonly call: number;
}

export interface SuggestionInput<Config> {
  readonly experiment: ExperimentView;
  readonly config: Config;
  readonly trials: Trials;
  /** current_request_number: exactly this many suggestions. */
  readonly count: number;
  /** How many suggestions this experiment had before this call (sequence positions, unique names). */
  readonly issuedBefore: number;
  readonly seeds: Seeds;
  /** The experiment's latest stored controller state (stateful algorithms), as saved. */
  readonly controllerState?: Uint8Array;
}

export interface Suggestion {
  readonly assignments: ParameterAssignment[];
  readonly trialName?: string;
  readonly labels?: Readonly<Record<string, string>>;
}

export interface SuggestionOutput {
  readonly suggestions: readonly Suggestion[];
  /** State to carry to the next call in the reply's algorithm settings (hyperband). */
  readonly algorithmSettings?: readonly Setting[];
  /** The controller state to store before the reply is sent (stateful algorithms, when it changed). */
  readonly controllerState?: Uint8Array;
  /** What the caller should log (a stored state that could not be used, a rebuild). */
  readonly notes?: readonly string[];
}

export interface Algorithm<Config> {
  /**
   * Architecture search: the request's nas_config is the search space (no parameter_specs), checked
   * by this before the settings (Katib's order).
   */
  checkNasConfig?(nasConfig: NasConfig__Output | null): void;
  /** Reads its controller state before each call and returns the next one (enas). */
  readonly stateful?: boolean;
  /** Reads and checks the settings: INVALID_ARGUMENT with Katib's message. */
  readSettings(settings: ReadonlyMap<string, string>): Config;
  /** Checks what the algorithm needs of the experiment (search space, parallelism). */
  checkExperiment?(experiment: ExperimentView, config: Config): void;
  suggest(input: SuggestionInput<Config>): SuggestionOutput;
}

/**
 * An algorithm that only draws points: the Sampler sees numbers and a loss to minimise. Its options
 * are its defaults, each replaced by the setting of the same name when the experiment gives it.
 * With `objectives` the algorithm takes the `objectives` setting (checked against the experiment
 * as nsga2 checks it): `'checked'` only checks it (the sampler needs no loss, as random), a Sampler
 * is used instead of `sampler` when there are several objectives, and reads each completed trial's
 * losses (the trials reporting every objective). One objective, or none given: `sampler` alone.
 */
export function fromSampler<
  Options extends object,
  Config extends { readonly randomState?: number; readonly objectives?: string } & {
    readonly [K in keyof Options]?: Options[K];
  },
>(definition: {
  readSettings(settings: ReadonlyMap<string, string>): Config;
  checkExperiment?(experiment: ExperimentView, config: Config): void;
  sampler: Sampler<Options>;
  defaults: Options;
  objectives?: 'checked' | Sampler<Options>;
}): Algorithm<Config> {
  const objectivesOf = (experiment: ExperimentView, config: Config) =>
    definition.objectives === undefined || config.objectives === undefined
      ? []
      : resolveObjectives(config.objectives, experiment.objective);
  const checkExperiment = (experiment: ExperimentView, config: Config) => {
    objectivesOf(experiment, config);
    definition.checkExperiment?.(experiment, config);
  };
  return {
    readSettings: definition.readSettings,
    ...(definition.checkExperiment || definition.objectives ? { checkExperiment } : {}),
    suggest({ experiment, config, trials, count, seeds }) {
      const objectives = objectivesOf(experiment, config);
      const several = objectives.length > 1 && typeof definition.objectives === 'function';
      const history: readonly Observation[] = several
        ? scoreTrials(trials.records, objectives).map((t) => ({
            point: t.point,
            loss: t.losses[0]!,
            losses: t.losses,
          }))
        : trials.history;
      const sampler = several ? (definition.objectives as Sampler<Options>) : definition.sampler;
      const points = sampler({
        dimensions: experiment.dimensions,
        history,
        pending: trials.pending,
        count,
        rng: createRng(seeds.call),
        options: withSettings(definition.defaults, config),
        budget: experiment.maxTrialCount > 0 ? experiment.maxTrialCount : undefined,
      });
      if (points.length !== count)
        throw internal(`the sampler returned ${points.length} points for ${count} requested`);
      return {
        suggestions: points.map((point) => ({ assignments: toAssignments(experiment.dimensions, point) })),
      };
    },
  };
}

/** Whether the points are pairwise different (samplers promise it whenever the space allows). */
export const allDistinct = (points: readonly (readonly (number | string)[])[]): boolean =>
  new Set(points.map(pointKey)).size === points.length;

/** The defaults, each replaced by the setting of the same name when it is given. */
function withSettings<Options extends object>(
  defaults: Options,
  config: { readonly [K in keyof Options]?: Options[K] },
): Options {
  const options = { ...defaults };
  for (const key of Object.keys(defaults) as (keyof Options)[]) {
    const given = config[key];
    if (given !== undefined) options[key] = given as Options[keyof Options];
  }
  return options;
}
