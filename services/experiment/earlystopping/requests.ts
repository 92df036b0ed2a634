// Katib's EarlyStopping requests, checked and turned into plain values (INVALID_ARGUMENT naming
// the field otherwise), and the events that record what the service decided.
import { createHash } from 'node:crypto';

import type { GetEarlyStoppingRulesRequest__Output } from '../../../proto/gen/api/v1/beta1/GetEarlyStoppingRulesRequest.ts';
import type { SetTrialStatusRequest__Output } from '../../../proto/gen/api/v1/beta1/SetTrialStatusRequest.ts';
import type { ValidateEarlyStoppingSettingsRequest__Output } from '../../../proto/gen/api/v1/beta1/ValidateEarlyStoppingSettingsRequest.ts';
import type { EarlyStoppingRulesIssuedV2, TrialStatusChangedV1 } from '../../../schemas/gen/events.ts';
import { invalidArgument } from '../../../shared/errors.ts';
import { type AlgorithmSpec, readAlgorithmSpec } from './algorithms.ts';
import { MEDIANSTOP, type ObjectiveType, type StoppingRule } from './medianstop.ts';
import type { Setting } from './pruners/settings.ts';
import type { Reference } from './pruners/types.ts';

export interface RulesRequest {
  readonly experimentName: string;
  readonly objectiveMetric: string;
  readonly objectiveType: ObjectiveType;
  readonly spec: AlgorithmSpec;
  /** The settings as the request carried them (recorded in the event). */
  readonly settings: readonly Setting[];
  readonly trials: readonly { readonly name: string; readonly condition: string }[];
  /** A DBManager to read the curves from instead of the local store. */
  readonly dbManagerAddress?: string;
}

const HOST_PORT = /^[^\s:]+:\d{1,5}$|^\[[0-9a-fA-F:.]+\]:\d{1,5}$/;

export function toSettings(request: ValidateEarlyStoppingSettingsRequest__Output): AlgorithmSpec {
  const spec = request.early_stopping;
  return readAlgorithmSpec({
    algorithmName: spec?.algorithm_name ?? '',
    settings: spec?.algorithm_settings ?? [],
  });
}

export function toRulesRequest(request: GetEarlyStoppingRulesRequest__Output): RulesRequest {
  const experiment = request.experiment;
  if (!experiment?.name) throw invalidArgument('experiment.name: missing');
  const spec = experiment.spec;
  const objectiveMetric = spec?.objective?.objective_metric_name ?? '';
  // Katib's service never checks the algorithm name here (only Validate does): empty means medianstop.
  const settings = (spec?.early_stopping?.algorithm_settings ?? []).map(({ name, value }) => ({
    name,
    value,
  }));
  const algorithm = readAlgorithmSpec({
    algorithmName: spec?.early_stopping?.algorithm_name || MEDIANSTOP,
    settings,
  });
  const address = request.db_manager_address.trim();
  if (address !== '' && !HOST_PORT.test(address))
    throw invalidArgument(`db_manager_address: ${JSON.stringify(address)} is not host:port`);
  const trials = request.trials.map((trial, i) => {
    if (trial.name === '') throw invalidArgument(`trials[${i}].name: missing`);
    return { name: trial.name, condition: trial.status?.condition ?? 'CREATED' };
  });
  // Katib answers a request without objective (its own unit test sends one) with no rules; we can
  // too, as long as no succeeded trial needs its curve read.
  if (objectiveMetric === '' && trials.some((t) => t.condition === 'SUCCEEDED'))
    throw invalidArgument(
      'experiment.spec.objective.objective_metric_name: missing (needed to read the succeeded trials)',
    );
  return {
    experimentName: experiment.name,
    objectiveMetric,
    objectiveType: spec?.objective?.type ?? 'UNKNOWN',
    spec: algorithm,
    settings,
    trials,
    ...(address !== '' ? { dbManagerAddress: address } : {}),
  };
}

export function toTrialName(request: SetTrialStatusRequest__Output): string {
  if (request.trial_name === '') throw invalidArgument('trial_name: missing');
  return request.trial_name;
}

export function rulesIssuedPayload(
  request: RulesRequest,
  issued: { readonly rules: readonly StoppingRule[]; readonly reference: Reference },
  meta: { readonly eventId: string; readonly now: number },
): EarlyStoppingRulesIssuedV2<number> {
  const { rules, reference } = issued;
  return {
    event_id: meta.eventId,
    occurred_at: meta.now,
    experiment_name: request.experimentName,
    objective_metric: request.objectiveMetric,
    objective_type: request.objectiveType,
    rules: rules.map((rule) => ({
      name: rule.name,
      value: rule.value,
      comparison: rule.comparison,
      start_step: rule.startStep,
    })),
    trials: request.trials.map((trial) => ({ name: trial.name, condition: trial.condition })),
    algorithm_name: request.spec.algorithm,
    algorithm_settings: request.settings,
    succeeded_trials: reference.succeededTrials,
    succeeded_max_steps: reference.succeededMaxSteps,
    reference_steps: reference.steps,
  };
}

export const EARLY_STOPPED = Object.freeze({
  condition: 'EARLYSTOPPED',
  reason: 'TrialEarlyStopped',
  message: 'Trial is early stopped',
});

/**
 * A trial is early-stopped once: the event id is derived from the trial name, so any repeat of the
 * decision (a retry, a second instance) is recognisable by every idempotent consumer.
 */
export function earlyStoppedPayload(input: {
  readonly eventId: string;
  readonly trialName: string;
  readonly experimentName: string;
  readonly message: string;
  /** Recorded in the event as it always was ('early-stopping-worker' is the judge). */
  readonly source: 'SetTrialStatus' | 'early-stopping-worker';
  readonly now: number;
}): TrialStatusChangedV1<number> {
  return {
    event_id: input.eventId,
    occurred_at: input.now,
    trial_name: input.trialName,
    experiment_name: input.experimentName,
    condition: EARLY_STOPPED.condition,
    reason: EARLY_STOPPED.reason,
    message: input.message,
    source: input.source,
  };
}

/** A UUID-shaped id derived from the text (SHA-1, version 5 layout): the same decision, the same id. */
export function stableEventId(text: string): string {
  const hex = createHash('sha1').update(text).digest('hex');
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export const earlyStoppedEventId = (trialName: string): string => stableEventId(`early-stopped:${trialName}`);
