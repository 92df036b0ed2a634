// The suggestion feature's wiring: the NAS controller-state follower (enas keeps its controller on
// experiment.nas-controller-state), the suggestion threads, and the api.v1.beta1.Suggestion service.
import { systemClock } from '../../../shared/clock.ts';
import { lookupService } from '../../../shared/grpc.ts';
import { protoService } from '../../../shared/rpc/proto-service.ts';
import type { HostedFeature, WiringDeps } from '../common/wiring.ts';
import { createSuggestionHandlers } from './adapters/grpc-handlers.ts';
import {
  type KafkaControllerStateStore,
  openKafkaControllerStateStore,
} from './adapters/kafka-controller-state-store.ts';
import { createSuggestionThreads } from './adapters/suggestion-threads.ts';
import { withSuggestionsRequestReader } from './adapters/suggestions-request.ts';
import type { ControllerStateStore } from './ports.ts';

export interface SuggestionOptions {
  /** How long enas waits to read its controller state's topic to the end (READ_BARRIER_TIMEOUT_MS). */
  readonly catchUpTimeoutMs: number;
  readonly nasStateCacheBytes: number;
  /** Threads for the model-fitting algorithms (SUGGESTION_WORKER_THREADS); 0: the event loop. */
  readonly threads: number;
}

export const SUGGESTION_FOLLOWER = 'NAS controller-state follower';

export async function wireSuggestion(
  deps: WiringDeps,
  options: SuggestionOptions,
  api: Parameters<typeof lookupService>[0],
): Promise<HostedFeature> {
  const { bus, producer, logger, registry, lifecycle, supervisor, topics } = deps;
  // Restarted as a whole (it rebuilds from its topic): the handlers keep asking the current one.
  let following: KafkaControllerStateStore | undefined;
  await supervisor.supervise(SUGGESTION_FOLLOWER, async () => {
    following = await openKafkaControllerStateStore({
      bus,
      producer,
      topic: topics.nasControllerState.name,
      clock: systemClock,
      logger,
      catchUpTimeoutMs: options.catchUpTimeoutMs,
      cacheBytes: options.nasStateCacheBytes,
    });
    return { ended: following.ended, stop: () => following!.close() };
  });
  const controllerStates: ControllerStateStore = {
    latest: (experiment) => following!.latest(experiment),
    save: (experiment, state) => following!.save(experiment, state),
  };
  const threads =
    options.threads > 0 ? createSuggestionThreads({ size: options.threads, logger }) : undefined;
  if (threads) lifecycle.onStop('suggestion threads', () => threads.close());
  const definition = withSuggestionsRequestReader(lookupService(api, 'api.v1.beta1.Suggestion').service);
  return {
    service: protoService(definition, {
      unary: createSuggestionHandlers({
        producer,
        topic: topics.suggestions.name,
        clock: systemClock,
        logger,
        registry,
        controllerStates,
        ...(threads ? { threads } : {}),
      }),
    }),
    // Katib's suggestion pods are probed as manager.v1beta1.Suggestion.
    healthNames: ['api.v1.beta1.Suggestion', 'manager.v1beta1.Suggestion'],
  };
}
