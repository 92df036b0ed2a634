// The rules topic's events as the tracker takes them, and the rung records the judge publishes.
import type {
  EarlyStoppingRulesIssuedV2,
  EarlyStoppingRungRecordedV1,
} from '../../../../schemas/gen/events.ts';
import type { Logger } from '../../../../shared/logger.ts';
import { isPruner, readAlgorithmSpec } from '../algorithms.ts';
import { stableEventId } from '../requests.ts';
import type { RecordedRung, RulesIssued } from '../tracker.ts';

export function toRulesIssued(payload: EarlyStoppingRulesIssuedV2, logger: Logger): RulesIssued {
  const issued: RulesIssued = {
    experimentName: payload.experiment_name,
    issuedAtMs: payload.occurred_at.getTime(),
    objectiveMetric: payload.objective_metric,
    objectiveType: payload.objective_type,
    // The schema's UNKNOWN (its default) compares nothing: such a rule cannot stop a trial.
    rules: payload.rules.flatMap((rule) =>
      rule.comparison === 'UNKNOWN'
        ? []
        : [{ name: rule.name, value: rule.value, comparison: rule.comparison, startStep: rule.start_step }],
    ),
    trials: payload.trials,
  };
  // v1 events (no algorithm) and medianstop: the rules alone judge.
  if (payload.algorithm_name === '') return issued;
  try {
    const spec = readAlgorithmSpec({
      algorithmName: payload.algorithm_name,
      settings: payload.algorithm_settings,
    });
    if (!isPruner(spec)) return issued;
    return {
      ...issued,
      pruner: spec,
      reference: {
        succeededTrials: payload.succeeded_trials,
        succeededMaxSteps: payload.succeeded_max_steps,
        steps: payload.reference_steps,
      },
    };
  } catch (error) {
    // The service validated these settings before publishing: only a newer service's algorithm or
    // setting lands here. Its rules still count; its pruner cannot run here.
    logger.warn(
      { err: error, experiment: payload.experiment_name, algorithm: payload.algorithm_name },
      'early-stopping algorithm unknown to this judge: only its rules are applied',
    );
    return issued;
  }
}

export const toRecordedRung = (payload: EarlyStoppingRungRecordedV1): RecordedRung => ({
  experimentName: payload.experiment_name,
  algorithm: payload.algorithm_name,
  trialName: payload.trial_name,
  bracket: payload.bracket,
  rung: payload.rung,
  step: payload.step,
  value: payload.value,
  promoted: payload.promoted,
});

export function rungRecordedEvent(record: RecordedRung, now: number) {
  return {
    eventType: 'EarlyStoppingRungRecorded' as const,
    key: record.experimentName,
    payload: {
      event_id: stableEventId(
        `rung:${record.experimentName}:${record.trialName}:${record.bracket}:${record.rung}`,
      ),
      occurred_at: now,
      experiment_name: record.experimentName,
      trial_name: record.trialName,
      algorithm_name: record.algorithm,
      bracket: record.bracket,
      rung: record.rung,
      step: record.step,
      value: record.value,
      promoted: record.promoted,
    },
  };
}
