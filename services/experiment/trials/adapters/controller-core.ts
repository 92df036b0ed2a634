// The trial controller's core without Kafka: the world folded from the events it is given, the
// decisions of each round carried out (events published in order and folded once acknowledged,
// calls made, their answers applied at the next round), its own events not folded twice. The
// Kafka adapter (trial-controller.ts) feeds it the topics and calls `pump` on a timer.
import { randomBytes, randomUUID } from 'node:crypto';
import type { EventProducer } from '../../../../shared/bus/index.ts';
import type { Clock } from '../../../../shared/clock.ts';
import { toAppError } from '../../../../shared/errors.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { ExperimentTopics } from '../../common/bus-names.ts';
import type { Decision } from '../domain/decisions.ts';
import { experimentFinished } from '../domain/lifecycle.ts';
import { Asks, reconcile } from '../domain/reconcile.ts';
import { suggestionsAnswered, suggestionsFailed } from '../domain/suggestion-answers.ts';
import type { TrialPolicy } from '../domain/trial-decisions.ts';
import { fold, isWorldEvent, World, type WorldEvent } from '../domain/world.ts';
import {
  earlyStoppingRulesRequest,
  observationOf,
  suggestedTrials,
  suggestionsRequest,
} from '../katib-requests.ts';
import type { KatibCalls } from './in-process-calls.ts';

export type TrialTopics = Pick<
  ExperimentTopics,
  'experiments' | 'trialAssignments' | 'trialRuns' | 'trialStatus' | 'runners'
>;

export interface ControllerCoreDeps {
  readonly producer: Pick<EventProducer, 'publish'>;
  /** The topics it reads and writes (KAFKA_TOPIC_PREFIX before their names). */
  readonly topics: TrialTopics;
  readonly calls: KatibCalls;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly leaseMs: number;
  readonly policy: TrialPolicy;
}

export interface ControllerCore {
  readonly world: World;
  /** Folds an event read on one of the topics (one of its own read back is skipped). */
  onEvent(event: { readonly eventType: string; readonly payload: unknown }): void;
  /** One pass: the calls' answers, then every experiment due (and every unfinished one when `everything`). */
  pump(everything: boolean): Promise<void>;
  /** Resolves once every call under way has answered (tests). */
  callsAnswered(): Promise<void>;
}

/** Katib's trial names: `<experiment>-<8 random characters>`. */
const trialName = (experiment: string): string =>
  `${experiment}-${randomBytes(6).toString('base64url').slice(0, 8).toLowerCase()}`;

export function createControllerCore(deps: ControllerCoreDeps): ControllerCore {
  const { clock, logger } = deps;
  const world = new World({ leaseMs: deps.leaseMs });
  const asks = new Asks();
  // Counted, not a set: two statuses written in one millisecond share their id (it ends in the time).
  const ownEvents = new Map<string, number>();
  const readBackOwn = (id: string): boolean => {
    const left = ownEvents.get(id) ?? 0;
    if (left === 0) return false;
    if (left === 1) ownEvents.delete(id);
    else ownEvents.set(id, left - 1);
    return true;
  };
  const due = new Set<string>();

  const experimentOf = (event: WorldEvent): string[] => {
    if (event.eventType === 'RunnerHeartbeat')
      return event.payload.running.map((r) => world.trials.get(r.trial_name)?.experiment ?? '');
    return [event.payload.experiment_name];
  };
  const onEvent = (event: { readonly eventType: string; readonly payload: unknown }) => {
    if (!isWorldEvent(event)) return;
    const id = event.payload.event_id;
    if (readBackOwn(id)) return;
    fold(world, event, clock.now());
    for (const name of experimentOf(event)) if (name !== '') due.add(name);
  };

  const publish = async (decision: Extract<Decision, { kind: 'emit' }>) => {
    const { event } = decision;
    await deps.producer.publish(deps.topics[event.topic].name, [
      { eventType: event.eventType, key: event.key, payload: event.payload } as never,
    ]);
    ownEvents.set(event.payload.event_id, (ownEvents.get(event.payload.event_id) ?? 0) + 1);
    fold(world, { eventType: event.eventType, payload: event.payload } as WorldEvent, clock.now());
  };

  // Calls finish at any time; their answers are applied by the next pump, in order, and make their
  // experiment due (what it decides next waits for no once-a-second sweep).
  const answered: { readonly experiment: string; readonly apply: () => Decision[] }[] = [];
  const answer = (experiment: string, apply: () => Decision[]) => answered.push({ experiment, apply });
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(promise: Promise<T>): Promise<T> => {
    inFlight.add(promise);
    const forget = () => inFlight.delete(promise);
    promise.then(forget, forget);
    return promise;
  };
  const calls: KatibCalls = {
    getSuggestions: (request) => track(deps.calls.getSuggestions(request)),
    getObservationLog: (request) => track(deps.calls.getObservationLog(request)),
    getEarlyStoppingRules: (request) => track(deps.calls.getEarlyStoppingRules(request)),
  };

  const call = (decision: Exclude<Decision, { kind: 'emit' }>) => {
    const failed = (error: unknown) => toAppError(error);
    switch (decision.kind) {
      case 'suggest': {
        const { experiment, count } = decision;
        const request = suggestionsRequest(world, experiment, count);
        if (!request) return;
        calls.getSuggestions(request).then(
          (reply) =>
            answer(experiment, () => {
              const { trials, algorithmSettings } = suggestedTrials(reply);
              return suggestionsAnswered(world, asks, experiment, {
                trials,
                algorithmSettings,
                names: trials.map(() => trialName(experiment)),
                eventId: randomUUID(),
                now: clock.now(),
              });
            }),
          (error: unknown) =>
            answer(experiment, () => {
              const failure = failed(error);
              logger.info(
                { experiment, code: failure.code, err: failure },
                'GetSuggestions did not answer trials',
              );
              return suggestionsFailed(world, asks, experiment, {
                code: failure.code,
                message: failure.message,
                now: clock.now(),
              });
            }),
        );
        return;
      }
      case 'observe': {
        const { trial } = decision;
        const experimentOfTrial = world.trials.get(trial)?.experiment ?? '';
        calls.getObservationLog({ trial_name: trial }).then(
          (reply) =>
            answer(experimentOfTrial, () => {
              world.observations.set(trial, observationOf(reply));
              asks.observing.delete(trial);
              return [];
            }),
          (error: unknown) =>
            answer(experimentOfTrial, () => {
              // Asked again on a later round.
              logger.warn({ trial, err: failed(error) }, 'GetObservationLog failed');
              asks.observing.delete(trial);
              return [];
            }),
        );
        return;
      }
      case 'rules': {
        const { experiment } = decision;
        const request = earlyStoppingRulesRequest(world, experiment);
        if (!request) return;
        calls.getEarlyStoppingRules(request).then(
          () =>
            answer(experiment, () => {
              asks.askingRules.delete(experiment);
              return [];
            }),
          (error: unknown) =>
            answer(experiment, () => {
              logger.warn({ experiment, err: failed(error) }, 'GetEarlyStoppingRules failed');
              asks.askingRules.delete(experiment);
              asks.rulesDue.add(experiment);
              return [];
            }),
        );
        return;
      }
    }
  };

  /** A round cut short (Kafka lost) leaves no call marked as under way that was never made. */
  const unmark = (decision: Decision) => {
    if (decision.kind === 'suggest') asks.suggesting.delete(decision.experiment);
    if (decision.kind === 'observe') asks.observing.delete(decision.trial);
    if (decision.kind === 'rules') {
      asks.askingRules.delete(decision.experiment);
      asks.rulesDue.add(decision.experiment);
    }
    if (decision.kind === 'emit' && decision.event.eventType === 'TrialRunChanged')
      asks.cancelSent.delete(`${decision.event.key}:${decision.event.payload.attempt}`);
  };

  const carryOut = async (decisions: readonly Decision[]) => {
    for (const [i, decision] of decisions.entries()) {
      try {
        if (decision.kind === 'emit') await publish(decision);
        else call(decision);
      } catch (error) {
        for (const left of decisions.slice(i)) unmark(left);
        throw error;
      }
    }
  };

  /** One pass: the calls' answers, then every experiment due (or not finished, on a tick). */
  const pump = async (everything: boolean) => {
    for (const { experiment, apply } of answered.splice(0)) {
      await carryOut(apply());
      if (experiment !== '') due.add(experiment);
    }
    const names = everything
      ? [...world.experiments.values()]
          .filter((e) => !experimentFinished(e.condition ?? 'Created') || e.generation > e.statusGeneration)
          .map((e) => e.name)
      : [];
    for (const name of new Set([...due, ...names])) {
      due.delete(name);
      // Rounds until nothing more is decided: a round's events change what the next one sees.
      for (let round = 0; round < 20; round++) {
        const decisions = reconcile(world, asks, name, { now: clock.now(), ...deps.policy });
        if (decisions.length === 0) break;
        await carryOut(decisions);
        if (!decisions.some((d) => d.kind === 'emit')) break;
      }
    }
  };

  return { world, onEvent, pump, callsAnswered: async () => void (await Promise.allSettled([...inFlight])) };
}
