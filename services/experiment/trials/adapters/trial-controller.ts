// The trial controller on Kafka: the topics it knows the world from are read from the beginning
// (a restart rebuilds everything, leases start afresh), then every experiment not finished is
// reconciled each tick and whenever an event about it arrives. Decisions are carried out one round
// at a time: events published in order and folded once acknowledged, calls made in process and
// their answers handed back to the domain. Its own events read back later are not folded again
// (a status read back after a newer one would undo it). One controller runs per deployment.
import { randomBytes, randomUUID } from 'node:crypto';
import {
  type Bus,
  type ConsumedEvent,
  type EventProducer,
  readTopic,
  TOPICS,
  type TopicReader,
} from '../../../../shared/bus/index.ts';
import type { Clock } from '../../../../shared/clock.ts';
import { toAppError } from '../../../../shared/errors.ts';
import type { Logger } from '../../../../shared/logger.ts';
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

export interface TrialControllerDeps {
  readonly bus: Bus;
  readonly producer: Pick<EventProducer, 'publish'>;
  readonly calls: KatibCalls;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly leaseMs: number;
  readonly policy: TrialPolicy;
  readonly tickMs: number;
  /** How long the start waits for the topics to be read to their ends. */
  readonly catchUpTimeoutMs: number;
}

export interface TrialController {
  /** Rejects when a topic reader failed (the supervisor starts the controller again, from the topics). */
  readonly ended: Promise<unknown>;
  stop(): Promise<void>;
}

const TOPIC_OF = {
  experiments: TOPICS.experiments.name,
  trialAssignments: TOPICS.trialAssignments.name,
  trialRuns: TOPICS.trialRuns.name,
  trialStatus: TOPICS.trialStatus.name,
} as const;

const READ_TOPICS = [
  TOPICS.experiments.name,
  TOPICS.trialAssignments.name,
  TOPICS.trialRuns.name,
  TOPICS.runners.name,
  TOPICS.trialStatus.name,
];

/** Katib's trial names: `<experiment>-<8 random characters>`. */
const trialName = (experiment: string): string =>
  `${experiment}-${randomBytes(6).toString('base64url').slice(0, 8).toLowerCase()}`;

export async function startTrialController(deps: TrialControllerDeps): Promise<TrialController> {
  const { clock, logger } = deps;
  const world = new World({ leaseMs: deps.leaseMs });
  const asks = new Asks();
  const ownEvents = new Set<string>();
  const due = new Set<string>();
  let stopped = false;

  const experimentOf = (event: WorldEvent): string[] => {
    if (event.eventType === 'RunnerHeartbeat')
      return event.payload.running.map((r) => world.trials.get(r.trial_name)?.experiment ?? '');
    return [event.payload.experiment_name];
  };
  const onEvent = (event: ConsumedEvent) => {
    if (!isWorldEvent(event)) return;
    const id = event.payload.event_id;
    if (ownEvents.delete(id)) return;
    fold(world, event, clock.now());
    for (const name of experimentOf(event)) if (name !== '') due.add(name);
  };

  const publish = async (decision: Extract<Decision, { kind: 'emit' }>) => {
    const { event } = decision;
    await deps.producer.publish(TOPIC_OF[event.topic], [
      { eventType: event.eventType, key: event.key, payload: event.payload } as never,
    ]);
    ownEvents.add(event.payload.event_id);
    fold(world, { eventType: event.eventType, payload: event.payload } as WorldEvent, clock.now());
  };

  // Calls finish at any time; their answers are applied by the next pump, in order.
  const answered: (() => Decision[])[] = [];

  const call = (decision: Exclude<Decision, { kind: 'emit' }>) => {
    const failed = (error: unknown) => toAppError(error);
    switch (decision.kind) {
      case 'suggest': {
        const { experiment, count } = decision;
        const request = suggestionsRequest(world, experiment, count);
        if (!request) return;
        deps.calls.getSuggestions(request).then(
          (reply) =>
            answered.push(() => {
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
            answered.push(() => {
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
        deps.calls.getObservationLog({ trial_name: trial }).then(
          (reply) =>
            answered.push(() => {
              world.observations.set(trial, observationOf(reply));
              asks.observing.delete(trial);
              return [];
            }),
          (error: unknown) =>
            answered.push(() => {
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
        deps.calls.getEarlyStoppingRules(request).then(
          () =>
            answered.push(() => {
              asks.askingRules.delete(experiment);
              return [];
            }),
          (error: unknown) =>
            answered.push(() => {
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
    for (const answer of answered.splice(0)) await carryOut(answer());
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

  const readers: TopicReader[] = [];
  for (const topic of READ_TOPICS)
    readers.push(await readTopic(deps.bus, { topic, from: 'beginning', until: 'follow', onEvent }));
  await Promise.all(readers.map((reader) => reader.caughtUp(deps.catchUpTimeoutMs)));
  logger.info(
    { experiments: world.experiments.size, trials: world.trials.size },
    'trial controller caught up',
  );

  let running: Promise<void> = Promise.resolve();
  let ticks = 0;
  const everyTicks = Math.max(1, Math.round(1_000 / deps.tickMs));
  const timer = setInterval(() => {
    if (stopped) return;
    ticks += 1;
    // Due experiments at every tick; all unfinished ones once a second (leases, pickup timeouts).
    const everything = ticks % everyTicks === 0;
    running = running
      .then(() => pump(everything))
      .catch((error: unknown) => logger.error({ err: error }, 'trial controller round failed; tried again'));
  }, deps.tickMs);

  return {
    ended: Promise.race(readers.map((reader) => reader.done)),
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
      await Promise.all(readers.map((reader) => reader.stop()));
    },
  };
}
