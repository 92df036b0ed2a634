import { randomUUID } from 'node:crypto';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { GetSuggestionsReply } from '../../../../proto/gen/api/v1/beta1/GetSuggestionsReply.ts';
import type { GetSuggestionsRequest__Output } from '../../../../proto/gen/api/v1/beta1/GetSuggestionsRequest.ts';
import type { ValidateAlgorithmSettingsReply } from '../../../../proto/gen/api/v1/beta1/ValidateAlgorithmSettingsReply.ts';
import type { ValidateAlgorithmSettingsRequest__Output } from '../../../../proto/gen/api/v1/beta1/ValidateAlgorithmSettingsRequest.ts';
import type { EventProducer } from '../../../../shared/bus/index.ts';
import type { Clock } from '../../../../shared/clock.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { UnaryHandler } from '../../../../shared/rpc/contract.ts';
import { toSuggestionsIssuedEvent } from '../events.ts';
import type { ControllerStateStore } from '../ports.ts';
import { PublishedTrials } from '../published-trials.ts';
import { ALGORITHMS, type AnyAlgorithm } from '../registry.ts';
import { prepareExperiment, suggest } from '../suggest.ts';
import { createMemoryControllerStateStore } from './memory-controller-state-store.ts';
import { MODEL_FIT_ALGORITHMS, type SuggestionThreads } from './suggestion-threads.ts';

export interface SuggestionDeps {
  readonly producer: Pick<EventProducer, 'publish'>;
  /** experiment.suggestions (after KAFKA_TOPIC_PREFIX): where each reply is published. */
  readonly topic: string;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Katib's algorithm names; the full registry unless a test narrows it. */
  readonly algorithms?: ReadonlyMap<string, AnyAlgorithm>;
  readonly registry?: Registry;
  /** Where stateful algorithms (enas) keep their controller; in memory (this process only) when absent. */
  readonly controllerStates?: ControllerStateStore;
  /**
   * Threads for the model-fitting algorithms (MODEL_FIT_ALGORITHMS), which run the full
   * registry; every call runs inline when absent.
   */
  readonly threads?: SuggestionThreads;
}

/** api.v1.beta1.Suggestion: pure computation, each reply published (acknowledged) before it is sent. */
export interface SuggestionHandlers {
  readonly GetSuggestions: UnaryHandler<GetSuggestionsRequest__Output, GetSuggestionsReply>;
  readonly ValidateAlgorithmSettings: UnaryHandler<
    ValidateAlgorithmSettingsRequest__Output,
    ValidateAlgorithmSettingsReply
  >;
}

export function createSuggestionHandlers(deps: SuggestionDeps): SuggestionHandlers {
  const { producer, clock, logger, algorithms = ALGORITHMS } = deps;
  const states = deps.controllerStates ?? createMemoryControllerStateStore();
  // What this instance's acknowledged events said of each experiment's trials: the next lists the changes.
  const published = new PublishedTrials();
  // One stateful call per experiment at a time in this instance: each continues from the last.
  const inFlight = new Map<string, Promise<unknown>>();
  const oneAtATime = <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const previous = inFlight.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    inFlight.set(key, settled);
    void settled.then(() => {
      if (inFlight.get(key) === settled) inFlight.delete(key);
    });
    return next;
  };
  const stateSaves = new Counter({
    name: 'experiment_suggestion_controller_state_saves_total',
    help: 'Controller states (enas) saved to the state store, one per call that changed the controller',
    labelNames: ['algorithm'],
    registers: deps.registry ? [deps.registry] : [],
  });
  const stateRebuilds = new Counter({
    name: 'experiment_suggestion_controller_state_rebuilds_total',
    help: 'Calls whose stored controller state could not be used as it was (older history, undecodable, another space): rebuilt',
    labelNames: ['algorithm'],
    registers: deps.registry ? [deps.registry] : [],
  });
  const computeSeconds = new Histogram({
    name: 'experiment_suggestion_compute_seconds',
    help: 'Time an algorithm took to compute one GetSuggestions reply (publishing excluded; in a suggestion thread: waiting for it included)',
    labelNames: ['algorithm'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: deps.registry ? [deps.registry] : [],
  });
  return {
    async GetSuggestions(request, { correlationId }) {
      const experimentName = request.experiment?.name ?? '';
      const algorithmName = request.experiment?.spec?.algorithm?.algorithm_name ?? '';
      const stateful = algorithms.get(algorithmName)?.stateful === true;
      let computeMs = 0;
      const compute = async () => {
        const stored = stateful ? await states.latest(experimentName) : undefined;
        const started = performance.now();
        const offload = deps.threads !== undefined && !stateful && MODEL_FIT_ALGORITHMS.has(algorithmName);
        const result = offload ? await deps.threads!.run(request) : suggest(request, algorithms, stored);
        computeMs = performance.now() - started;
        for (const note of result.notes ?? [])
          logger.warn({ experiment: experimentName, algorithm: result.algorithmName }, note);
        if ((result.notes ?? []).length > 0) stateRebuilds.inc({ algorithm: result.algorithmName });
        if (result.controllerState !== undefined) {
          await states.save(experimentName, {
            algorithmName: result.algorithmName,
            trialCount: request.trials.length,
            state: result.controllerState,
          });
          stateSaves.inc({ algorithm: result.algorithmName });
        }
        return result;
      };
      const result = stateful ? await oneAtATime(experimentName, compute) : await compute();
      computeSeconds.observe({ algorithm: result.algorithmName }, computeMs / 1000);
      const listed = published.toList(experimentName, request.trials);
      await producer.publish(deps.topic, [
        {
          eventType: 'SuggestionsIssued',
          key: experimentName,
          payload: toSuggestionsIssuedEvent(request, result, listed, {
            eventId: randomUUID(),
            now: clock.now(),
          }),
          ...(correlationId ? { correlationId } : {}),
        },
      ]);
      published.acknowledge(experimentName, listed.trials);
      logger.debug(
        {
          experiment: request.experiment?.name,
          algorithm: result.algorithmName,
          trials: request.trials.length,
          suggestions: request.current_request_number,
          computeMs: Math.round(computeMs * 10) / 10,
        },
        'suggestions issued',
      );
      return result.reply;
    },
    async ValidateAlgorithmSettings(request) {
      prepareExperiment(request.experiment, algorithms, { settingsOnlyWithoutParameters: true });
      return {};
    },
  };
}
