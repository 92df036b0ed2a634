// The early-stopping feature's wiring: the api.v1.beta1.EarlyStopping service (rules from the store
// behind the read barriers, or from a remote DBManager) and the early-stopping judge.
import { systemClock } from '../../../shared/clock.ts';
import { lookupService } from '../../../shared/grpc.ts';
import { protoService } from '../../../shared/rpc/proto-service.ts';
import type { ObservationStore } from '../common/ports.ts';
import type { ReadBarrier } from '../common/read-barrier.ts';
import type { HostedFeature, WiringDeps } from '../common/wiring.ts';
import { startEarlyStoppingJudge } from './adapters/early-stopping-judge.ts';
import { createEarlyStoppingHandlers } from './adapters/grpc-handlers.ts';
import { startJudgeThread } from './adapters/judge-thread.ts';
import { createRemoteCurves } from './adapters/remote-curves.ts';

export const EARLY_STOPPING_JUDGE = 'early-stopping judge';

export function wireEarlyStopping(
  deps: Pick<WiringDeps, 'producer' | 'lifecycle' | 'topics'>,
  observations: { readonly store: ObservationStore; barrierFor(topic: string): ReadBarrier },
  options: { readonly dbManagerDeadlineMs: number },
  api: Parameters<typeof lookupService>[0],
): HostedFeature {
  const remote = createRemoteCurves({ deadlineMs: options.dbManagerDeadlineMs });
  deps.lifecycle.onStop('remote DBManager clients', () => remote.close());
  return {
    service: protoService(lookupService(api, 'api.v1.beta1.EarlyStopping').service, {
      unary: createEarlyStoppingHandlers({
        producer: deps.producer,
        store: observations.store,
        topics: deps.topics,
        observationsBarrier: observations.barrierFor(deps.topics.observations.name),
        statusBarrier: observations.barrierFor(deps.topics.trialStatus.name),
        remoteCurves: remote.reader,
        clock: systemClock,
      }),
    }),
    healthNames: ['api.v1.beta1.EarlyStopping'],
  };
}

export interface JudgeOptions {
  readonly thread: boolean;
  readonly groupId: string;
  readonly sessionTimeoutMs: number;
  readonly catchUpTimeoutMs: number;
  readonly lookbackMs: number;
}

/** The judge reads every report and stops the trials the rules say to, under the supervisor. */
export async function startJudge(deps: WiringDeps, options: JudgeOptions): Promise<void> {
  const { thread, ...judge } = options;
  await deps.supervisor.supervise(EARLY_STOPPING_JUDGE, () =>
    thread
      ? startJudgeThread({
          config: { kafka: deps.kafkaOfThreads, topics: deps.topics, ...judge, logLevel: deps.logLevel },
          logger: deps.logger,
          registry: deps.registry,
          stopDeadlineMs: deps.shutdownDeadlineMs / 2,
        })
      : startEarlyStoppingJudge({
          bus: deps.bus,
          producer: deps.producer,
          topics: deps.topics,
          clock: systemClock,
          logger: deps.logger,
          ...judge,
          registry: deps.registry,
        }),
  );
}
