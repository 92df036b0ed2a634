// The Suggestion use case: the same checks for ValidateAlgorithmSettings and GetSuggestions, then
// the algorithm, then the reply and the SuggestionsIssued event. Pure: no I/O, no clock.

import type { Experiment__Output } from '../../../proto/gen/api/v1/beta1/Experiment.ts';
import type { GetSuggestionsReply } from '../../../proto/gen/api/v1/beta1/GetSuggestionsReply.ts';
import type { GetSuggestionsRequest__Output } from '../../../proto/gen/api/v1/beta1/GetSuggestionsRequest.ts';
import { internal, invalidArgument } from '../../../shared/errors.ts';
import type { ExperimentView } from './algorithm.ts';
import { readObjective, readTrials, toDimensions } from './katib-space.ts';
import type { AnyAlgorithm } from './registry.ts';
import { deriveSeeds } from './seeds.ts';
import { settingsMap } from './settings/read.ts';

/** More suggestions than this in one call is a client bug, not a search. */
export const MAX_REQUEST_NUMBER = 10_000;

export interface PreparedExperiment {
  readonly algorithmName: string;
  readonly algorithm: AnyAlgorithm;
  readonly config: unknown;
  readonly view: ExperimentView;
}

/**
 * Everything both calls check: algorithm name, settings (Katib's messages), search space.
 * ValidateAlgorithmSettings without any parameter checks the settings alone, as Katib's services
 * do (their own tests send none); GetSuggestions needs a search space.
 */
export function prepareExperiment(
  experiment: Experiment__Output | null,
  algorithms: ReadonlyMap<string, AnyAlgorithm>,
  options: { readonly settingsOnlyWithoutParameters?: boolean } = {},
): PreparedExperiment {
  const spec = experiment?.spec ?? null;
  const algorithmName = spec?.algorithm?.algorithm_name ?? '';
  if (algorithmName === '') throw invalidArgument('experiment.spec.algorithm.algorithm_name is required');
  const algorithm = algorithms.get(algorithmName);
  if (algorithm === undefined) throw invalidArgument(`unknown algorithm name ${algorithmName}`);
  const nasConfig = spec?.nas_config ?? null;
  algorithm.checkNasConfig?.(nasConfig);
  const config: unknown = algorithm.readSettings(settingsMap(spec?.algorithm?.algorithm_settings));
  const parameters = spec?.parameter_specs?.parameters ?? [];
  const view: ExperimentView = {
    name: experiment?.name ?? '',
    dimensions:
      algorithm.checkNasConfig !== undefined ||
      (parameters.length === 0 && options.settingsOnlyWithoutParameters)
        ? []
        : toDimensions(parameters),
    objective: readObjective(spec),
    parallelTrialCount: spec?.parallel_trial_count ?? 0,
    maxTrialCount: spec?.max_trial_count ?? 0,
    nasConfig,
  };
  algorithm.checkExperiment?.(view, config);
  return { algorithmName, algorithm, config, view };
}

export interface SuggestResult {
  readonly reply: GetSuggestionsReply;
  readonly algorithmName: string;
  readonly completedTrials: number;
  /** The controller state to store before replying (stateful algorithms, when it changed). */
  readonly controllerState?: Uint8Array;
  readonly notes?: readonly string[];
}

export function suggest(
  request: GetSuggestionsRequest__Output,
  algorithms: ReadonlyMap<string, AnyAlgorithm>,
  controllerState?: Uint8Array,
): SuggestResult {
  const prepared = prepareExperiment(request.experiment, algorithms);
  const count = request.current_request_number;
  if (count < 0 || count > MAX_REQUEST_NUMBER)
    throw invalidArgument(`current_request_number must be between 0 and ${MAX_REQUEST_NUMBER}, got ${count}`);
  const { view, config } = prepared;
  const trials = readTrials(request.trials, view.dimensions, view.objective);
  if (count === 0)
    return {
      reply: { parameter_assignments: [] },
      algorithmName: prepared.algorithmName,
      completedTrials: trials.history.length,
    };

  const total = request.total_request_number;
  const output = prepared.algorithm.suggest({
    experiment: view,
    config,
    trials,
    count,
    // The controller sends total_request_number = all requested so far, this call included.
    issuedBefore: total >= count ? total - count : request.trials.length,
    seeds: deriveSeeds({
      experimentName: view.name,
      randomState: (config as { randomState?: number }).randomState,
      trialCount: request.trials.length,
    }),
    ...(controllerState === undefined ? {} : { controllerState }),
  });
  if (output.suggestions.length !== count)
    throw internal(
      `${prepared.algorithmName} produced ${output.suggestions.length} suggestions for ${count} requested`,
    );
  const reply: GetSuggestionsReply = {
    parameter_assignments: output.suggestions.map((s) => ({
      assignments: s.assignments,
      trial_name: s.trialName ?? '',
      labels: { ...s.labels },
    })),
    ...(output.algorithmSettings
      ? { algorithm: { algorithm_name: '', algorithm_settings: [...output.algorithmSettings] } }
      : {}),
  };
  return {
    reply,
    algorithmName: prepared.algorithmName,
    completedTrials: trials.history.length,
    ...(output.controllerState === undefined ? {} : { controllerState: output.controllerState }),
    ...(output.notes === undefined ? {} : { notes: output.notes }),
  };
}
