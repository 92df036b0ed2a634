// enas: Katib's EnasService answered from a controller whose state is a pure function of the
// experiment (search space, settings, seed) and of the batches of completed trials it learned
// from. The state comes in with the request (the latest stored one) and the next one goes out with
// the reply; a stored state that does not match the request's trials is never used as it is: the
// matching state is rebuilt by replaying the stored batches the request still agrees with.

import { createHash } from 'node:crypto';
import type { NasConfig__Output } from '../../../../proto/gen/api/v1/beta1/NasConfig.ts';
import { AppError, invalidArgument } from '../../../../shared/errors.ts';
import type { Algorithm, SuggestionInput, SuggestionOutput } from '../algorithm.ts';
import type { TrialRecord } from '../katib-space.ts';
import { createRng } from '../rng.ts';
import { sampleArchitecture, trainStep } from './controller.ts';
import {
  type Architecture,
  type ControllerShape,
  type ControllerState,
  initController,
  type PolicyOptions,
} from './controller-params.ts';
import { type EnasSettings, readEnasSettings } from './enas-settings.ts';
import {
  buildSearchSpace,
  checkGraphConfig,
  checkOperations,
  katibText,
  type NasSpace,
  operationDict,
  pythonJson,
} from './space.ts';
import {
  controllerStateBytes,
  decodeController,
  encodeController,
  STATE_FORMAT,
  type StoredController,
} from './state-codec.ts';

export const policyOptions = (s: EnasSettings): PolicyOptions => ({
  temperature: s.temperature,
  tanhConst: s.tanhConst,
  skipTarget: s.skipTarget,
  skipWeight: s.skipWeight,
  entropyWeight: s.entropyWeight,
  baselineDecay: s.baselineDecay,
  learningRate: s.learningRate,
});

/** A completed trial the controller can learn from. */
export interface LearnedTrial {
  readonly key: string;
  readonly name: string;
  readonly arc: Architecture;
  readonly reward: number;
}

/** Katib's `architecture` text back to layers; undefined when it is not an architecture of this space. */
export function parseArchitecture(
  text: string | undefined,
  shape: ControllerShape,
): Architecture | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text.replaceAll("'", '"'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== shape.layers) return undefined;
  for (let l = 0; l < value.length; l++) {
    const layer = value[l] as unknown;
    if (!Array.isArray(layer) || layer.length !== l + 1) return undefined;
    const [op, ...skips] = layer as unknown[];
    if (!Number.isInteger(op) || (op as number) < 0 || (op as number) >= shape.operations) return undefined;
    if (!skips.every((b) => b === 0 || b === 1)) return undefined;
  }
  return value as Architecture;
}

/** The trials Katib's GetEvaluationResult counts: SUCCEEDED with the objective metric. */
export function learnedTrials(
  records: readonly TrialRecord[],
  shape: ControllerShape,
  minimize: boolean,
): LearnedTrial[] {
  const out: LearnedTrial[] = [];
  for (const record of records) {
    if (record.condition !== 'SUCCEEDED' || record.objective === undefined) continue;
    const text = record.assignments.get('architecture');
    const arc = parseArchitecture(text, shape);
    if (arc === undefined) continue;
    const digest = createHash('sha256').update(`${record.name}\0${text}\0${record.objective}`).digest('hex');
    out.push({
      key: `${record.name}#${digest.slice(0, 16)}`,
      name: record.name,
      arc,
      // The controller maximises: a MINIMIZE objective is negated, as Katib does.
      reward: minimize ? -record.objective : record.objective,
    });
  }
  return out;
}

export interface ControllerContext {
  readonly shape: ControllerShape;
  readonly options: PolicyOptions;
  readonly trainSteps: number;
  readonly fingerprint: string;
  readonly initSeed: number;
}

export function controllerContext(
  space: NasSpace,
  settings: EnasSettings,
  experimentSeed: number,
): ControllerContext {
  const shape = { hidden: settings.hiddenSize, operations: space.operations.length, layers: space.numLayers };
  const options = policyOptions(settings);
  const fingerprint = createHash('sha256')
    .update(
      JSON.stringify({
        format: STATE_FORMAT,
        shape,
        options,
        trainSteps: settings.trainSteps,
        seed: experimentSeed,
        operations: space.operations.map((o) => [o.type, o.params]),
      }),
    )
    .digest('hex')
    .slice(0, 32);
  return { shape, options, trainSteps: settings.trainSteps, fingerprint, initSeed: experimentSeed };
}

/** `controller_train_steps` steps on one batch, one trial per step in turn (Katib: one arc per step). */
export function trainOnBatch(
  ctx: ControllerContext,
  state: ControllerState,
  batch: readonly LearnedTrial[],
): ControllerState {
  let next = state;
  for (let s = 0; s < ctx.trainSteps; s++) {
    const trial = batch[s % batch.length]!;
    next = trainStep(next, ctx.shape, ctx.options, trial.arc, trial.reward);
  }
  return next;
}

export interface Continued {
  readonly stored: StoredController;
  /** Whether this differs from what was stored (so must be saved). */
  readonly changed: boolean;
  readonly notes: string[];
}

/**
 * The controller for these completed trials: the stored one when its history is all in the request,
 * else the one rebuilt from its longest agreeing prefix; then trained on the trials it has not seen.
 */
export function continueController(
  ctx: ControllerContext,
  storedBytes: Uint8Array | undefined,
  trials: readonly LearnedTrial[],
): Continued {
  const notes: string[] = [];
  let stored: StoredController | undefined;
  if (storedBytes !== undefined) {
    try {
      stored = decodeController(storedBytes);
    } catch (error) {
      notes.push(`stored controller state does not decode (${(error as Error).message}); starting over`);
    }
    if (stored !== undefined && stored.fingerprint !== ctx.fingerprint) {
      notes.push('stored controller state is for another search space, settings or seed; starting over');
      stored = undefined;
    }
  }
  const byKey = new Map(trials.map((t) => [t.key, t]));
  const history = stored?.history ?? [];
  let agreeing = 0;
  while (agreeing < history.length && history[agreeing]!.every((k) => byKey.has(k))) agreeing++;

  let state: ControllerState;
  let kept: (readonly string[])[];
  let changed: boolean;
  if (stored !== undefined && agreeing === history.length) {
    state = stored.state;
    kept = [...history];
    changed = false;
  } else {
    if (stored !== undefined)
      notes.push(
        `request's trials agree with ${agreeing} of the ${history.length} stored training batches; rebuilding from them`,
      );
    state = initController(ctx.shape, createRng(ctx.initSeed));
    kept = history.slice(0, agreeing);
    for (const batch of kept)
      state = trainOnBatch(
        ctx,
        state,
        batch.map((k) => byKey.get(k)!),
      );
    changed = true;
  }
  const seen = new Set(kept.flat());
  const fresh = trials
    .filter((t) => !seen.has(t.key))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.key < b.key ? -1 : 1));
  if (fresh.length > 0) {
    state = trainOnBatch(ctx, state, fresh);
    kept.push(fresh.map((t) => t.key));
    changed = true;
  }
  return {
    stored: { shape: ctx.shape, fingerprint: ctx.fingerprint, history: kept, state },
    changed,
    notes,
  };
}

export function architectureText(arc: Architecture): string {
  return pythonJson(arc);
}

export function nnConfigText(space: NasSpace, arc: Architecture): string {
  const embedding = new Map<string, unknown>();
  for (const layer of arc) {
    const op = layer[0]!;
    if (!embedding.has(String(op))) embedding.set(String(op), operationDict(space.operations[op]!));
  }
  return katibText(
    new Map<string, unknown>([
      ['num_layers', space.numLayers],
      ['input_sizes', space.inputSizes],
      ['output_sizes', space.outputSizes],
      ['embedding', embedding],
    ]),
  );
}

function suggestEnas(input: SuggestionInput<EnasSettings>): SuggestionOutput {
  const { experiment, config, trials, count, seeds } = input;
  const space = spaceOf(experiment.nasConfig ?? null);
  const ctx = controllerContext(space, config, seeds.experiment);
  const learned = learnedTrials(trials.records, ctx.shape, experiment.objective.direction === 'MINIMIZE');
  if (trials.records.length > 0 && learned.length === 0) {
    const failed = trials.records.filter((r) => r.condition === 'FAILED').length;
    throw new AppError(
      'FAILED_PRECONDITION',
      `enas: none of the request's ${trials.records.length} trials (${failed} FAILED) is SUCCEEDED with objective metric ${experiment.objective.metricName} and an architecture of this search space; the controller has nothing to learn from (Katib answers INTERNAL "Failed to serialize response!")`,
    );
  }
  const continued = continueController(ctx, input.controllerState, learned);
  const rng = createRng(seeds.call);
  const suggestions = Array.from({ length: count }, () => {
    const arc = sampleArchitecture(continued.stored.state, ctx.shape, ctx.options, rng);
    return {
      assignments: [
        { name: 'architecture', value: architectureText(arc) },
        { name: 'nn_config', value: nnConfigText(space, arc) },
      ],
    };
  });
  return {
    suggestions,
    ...(continued.changed ? { controllerState: encodeController(continued.stored) } : {}),
    ...(continued.notes.length > 0 ? { notes: continued.notes } : {}),
  };
}

/** The largest controller state kept (the state topic takes 16 MiB messages; room for the history). */
export const MAX_STATE_BYTES = 12 * 1024 * 1024;

const spaceOf = (nasConfig: NasConfig__Output | null): NasSpace =>
  buildSearchSpace(checkGraphConfig(nasConfig), checkOperations(nasConfig));

export const enas: Algorithm<EnasSettings> = {
  stateful: true,
  checkNasConfig(nasConfig) {
    spaceOf(nasConfig);
  },
  readSettings: readEnasSettings,
  checkExperiment(experiment, settings) {
    const space = spaceOf(experiment.nasConfig ?? null);
    const shape = {
      hidden: settings.hiddenSize,
      operations: space.operations.length,
      layers: space.numLayers,
    };
    const bytes = controllerStateBytes(shape);
    if (bytes > MAX_STATE_BYTES)
      throw invalidArgument(
        `enas: a controller with controller_hidden_size ${shape.hidden} over ${shape.operations} operations takes ${(bytes / 1048576).toFixed(1)} MiB, more than the ${MAX_STATE_BYTES / 1048576} MiB its stored state may take; use fewer operation values or a smaller hidden size`,
      );
  },
  suggest: suggestEnas,
};
