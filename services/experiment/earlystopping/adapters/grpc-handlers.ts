import { randomUUID } from 'node:crypto';
import type { GetEarlyStoppingRulesReply } from '../../../../proto/gen/api/v1/beta1/GetEarlyStoppingRulesReply.ts';
import type { GetEarlyStoppingRulesRequest__Output } from '../../../../proto/gen/api/v1/beta1/GetEarlyStoppingRulesRequest.ts';
import type { SetTrialStatusReply } from '../../../../proto/gen/api/v1/beta1/SetTrialStatusReply.ts';
import type { SetTrialStatusRequest__Output } from '../../../../proto/gen/api/v1/beta1/SetTrialStatusRequest.ts';
import type { ValidateEarlyStoppingSettingsReply } from '../../../../proto/gen/api/v1/beta1/ValidateEarlyStoppingSettingsReply.ts';
import type { ValidateEarlyStoppingSettingsRequest__Output } from '../../../../proto/gen/api/v1/beta1/ValidateEarlyStoppingSettingsRequest.ts';
import type { EventProducer } from '../../../../shared/bus/index.ts';
import type { Clock } from '../../../../shared/clock.ts';
import { notFound } from '../../../../shared/errors.ts';
import type { UnaryHandler } from '../../../../shared/rpc/contract.ts';
import type { ExperimentTopics } from '../../common/bus-names.ts';
import type { ObservationStore } from '../../common/ports.ts';
import type { ReadBarrier } from '../../common/read-barrier.ts';
import { curvesNeeded, issueRules } from '../issue-rules.ts';
import {
  EARLY_STOPPED,
  earlyStoppedEventId,
  earlyStoppedPayload,
  rulesIssuedPayload,
  toRulesRequest,
  toSettings,
  toTrialName,
} from '../requests.ts';
import type { CurveReader } from './remote-curves.ts';

export interface EarlyStoppingDeps {
  readonly producer: Pick<EventProducer, 'publish'>;
  readonly store: Pick<ObservationStore, 'query' | 'trialStatus' | 'knowsTrial'>;
  /** Where the rules and the stops go (KAFKA_TOPIC_PREFIX before their names). */
  readonly topics: Pick<ExperimentTopics, 'earlyStoppingRules' | 'trialStatus'>;
  /** Waits for the persistence consumer on experiment.observations (the trial's partition). */
  readonly observationsBarrier: ReadBarrier;
  /** Waits for the persistence consumer on experiment.trial-status (the trial's partition). */
  readonly statusBarrier: ReadBarrier;
  /** Reads curves from the DBManager at an address (Katib's db_manager_address). */
  readonly remoteCurves: (address: string) => CurveReader;
  readonly clock: Clock;
}

export interface EarlyStoppingHandlers {
  readonly ValidateEarlyStoppingSettings: UnaryHandler<
    ValidateEarlyStoppingSettingsRequest__Output,
    ValidateEarlyStoppingSettingsReply
  >;
  readonly GetEarlyStoppingRules: UnaryHandler<
    GetEarlyStoppingRulesRequest__Output,
    GetEarlyStoppingRulesReply
  >;
  readonly SetTrialStatus: UnaryHandler<SetTrialStatusRequest__Output, SetTrialStatusReply>;
}

/** api.v1.beta1.EarlyStopping: rules (medianstop and the pruners), and trial status changes published on Kafka. */
export function createEarlyStoppingHandlers(deps: EarlyStoppingDeps): EarlyStoppingHandlers {
  const { producer, store, clock } = deps;
  const localCurves: CurveReader = async (trialName, metricName) => {
    await deps.observationsBarrier.waitFor(trialName);
    return (await store.query({ trialName, metricName })).map((row) => row.value);
  };

  return {
    async ValidateEarlyStoppingSettings(request) {
      toSettings(request);
      return {};
    },

    async GetEarlyStoppingRules(request, { correlationId }) {
      const rulesRequest = toRulesRequest(request);
      const readCurve = rulesRequest.dbManagerAddress
        ? deps.remoteCurves(rulesRequest.dbManagerAddress)
        : localCurves;
      const { objectiveMetric } = rulesRequest;
      const needed = curvesNeeded(rulesRequest.spec, rulesRequest.trials);
      // Each curve read once (the listed trials include the succeeded ones); no objective, no
      // curve to read (a request naming SUCCEEDED trials was refused above).
      const names = [...new Set([...needed.succeeded, ...needed.listed])];
      const read = await Promise.all(
        names.map(async (trial) => (objectiveMetric === '' ? [] : readCurve(trial, objectiveMetric))),
      );
      const curves = new Map(names.map((trial, i) => [trial, read[i]!]));
      const issued = issueRules({
        spec: rulesRequest.spec,
        objectiveMetric,
        objectiveType: rulesRequest.objectiveType,
        succeededTrials: needed.succeededTrials,
        succeeded: needed.succeeded.map((trial) => curves.get(trial)!),
        listed: new Map(needed.listed.map((trial) => [trial, curves.get(trial)!])),
      });
      const { rules } = issued;
      await producer.publish(deps.topics.earlyStoppingRules.name, [
        {
          eventType: 'EarlyStoppingRulesIssued',
          key: rulesRequest.experimentName,
          payload: rulesIssuedPayload(rulesRequest, issued, { eventId: randomUUID(), now: clock.now() }),
          ...(correlationId ? { correlationId } : {}),
        },
      ]);
      return {
        early_stopping_rules: rules.map((r) => ({
          name: r.name,
          value: r.value,
          comparison: r.comparison,
          start_step: r.startStep,
        })),
      };
    },

    async SetTrialStatus(request, { correlationId }) {
      const trialName = toTrialName(request);
      await Promise.all([deps.observationsBarrier.waitFor(trialName), deps.statusBarrier.waitFor(trialName)]);
      if (!(await store.knowsTrial(trialName)))
        throw notFound(
          `trial ${trialName} not found: it has no observation log and no status (none was reported, or its log was deleted)`,
        );
      // Idempotent: a trial already early-stopped is not announced again.
      if ((await store.trialStatus(trialName))?.condition === EARLY_STOPPED.condition) return {};
      await producer.publish(deps.topics.trialStatus.name, [
        {
          eventType: 'TrialStatusChanged',
          key: trialName,
          payload: earlyStoppedPayload({
            eventId: earlyStoppedEventId(trialName),
            trialName,
            experimentName: '',
            message: EARLY_STOPPED.message,
            source: 'SetTrialStatus',
            now: clock.now(),
          }),
          ...(correlationId ? { correlationId } : {}),
        },
      ]);
      return {};
    },
  };
}
