// A runner: one member of the consumer group on experiment.trial-assignments. It starts what it is
// assigned (runner-decisions.ts says whether), follows experiment.trial-runs and
// experiment.trial-status to stop runs that were cancelled or whose trial ended, heartbeats the
// runs it holds on experiment.runners, and on stop kills its runs and gives them back (RELEASED).
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EventPayloads } from '../../../../schemas/gen/events.ts';
import {
  type Bus,
  type ConsumedEvent,
  type EventConsumer,
  type EventProducer,
  readTopic,
  startEventConsumer,
  type TopicReader,
} from '../../../../shared/bus/index.ts';
import { toAppError } from '../../../../shared/errors.ts';
import type { ExperimentTopics } from '../../common/bus-names.ts';
import {
  type HeldRun,
  heartbeat,
  pickUp,
  type RunEnd,
  type RunnerIdentity,
  runEnded,
  runStarted,
  stopOrder,
} from '../runner-decisions.ts';
import { type HeldRunDeps, type StartedRun, startHeldRun } from './held-run.ts';

export interface RunnerDeps extends HeldRunDeps {
  readonly bus: Bus;
  readonly producer: EventProducer;
  readonly identity: RunnerIdentity;
  /** The topics it reads and writes (KAFKA_TOPIC_PREFIX before their names). */
  readonly topics: Pick<ExperimentTopics, 'trialAssignments' | 'trialRuns' | 'trialStatus' | 'runners'>;
  readonly groupId: string;
  readonly heartbeatMs: number;
  readonly sessionTimeoutMs: number;
}

export interface Runner {
  readonly joined: Promise<void>;
  /** Rejects when the assignments consumer stopped for good. */
  readonly ended: Promise<never>;
  /** Kills every held run, reports it RELEASED, says its last heartbeat and leaves the group. */
  stop(): Promise<void>;
}

/** Publishes, trying again while Kafka is away: a run's events must not be lost to a short outage. */
async function publishSure(
  deps: RunnerDeps,
  topic: string,
  event: Parameters<EventProducer['publish']>[1][number],
) {
  for (let delayMs = 200; ; delayMs = Math.min(delayMs * 2, 5_000)) {
    try {
      return await deps.producer.publish(topic, [event]);
    } catch (error) {
      if (!toAppError(error).retriable) throw error;
      deps.logger.warn({ err: error, topic }, 'publish failed; trying again');
      await sleep(delayMs);
    }
  }
}

export async function startRunner(deps: RunnerDeps): Promise<Runner> {
  const { identity, logger, clock } = deps;
  const held = new Map<string, StartedRun>();
  const heldRuns = () => new Map([...held].map(([trial, started]) => [trial, started.run]));
  const seen = new Map<string, number>();
  let stopping = false;
  const waiters: (() => void)[] = [];
  const slotFreed = () => new Promise<void>((resolve) => waiters.push(resolve));
  const wake = () => {
    for (const resolve of waiters.splice(0)) resolve();
  };
  // Runs whose end is being published: stop waits for them.
  const finishing = new Set<Promise<void>>();
  // Partitions are handled at once; assignments are decided one at a time, so slots are not overrun.
  let queue: Promise<void> = Promise.resolve();
  const oneAtATime = (work: () => Promise<void>): Promise<void> => {
    const next = queue.then(work);
    queue = next.catch(() => undefined);
    return next;
  };

  const runEvent = (payload: EventPayloads<number>['TrialRunChanged']) =>
    publishSure(deps, deps.topics.trialRuns.name, {
      eventType: 'TrialRunChanged',
      key: payload.trial_name,
      payload,
    });
  const sayHeartbeat = (last: boolean) =>
    deps.producer.publish(deps.topics.runners.name, [
      {
        eventType: 'RunnerHeartbeat',
        key: identity.runnerId,
        payload: heartbeat(identity, heldRuns().values(), last, randomUUID(), clock.now()),
      },
    ]);

  const finish = async (run: HeldRun, end: RunEnd, objectiveReported: boolean) => {
    await runEvent(runEnded(run, identity, end, objectiveReported, clock.now()));
    logger.info({ trial: run.trial, attempt: run.attempt, end: end.kind }, 'run ended');
  };

  const take = async (assignment: EventPayloads['TrialAssigned']) => {
    const started = await startHeldRun(assignment, deps);
    if (!('pid' in started)) return finish(started.run, started.end, false);
    held.set(started.run.trial, started);
    await runEvent(runStarted(started.run, identity, started.pid, clock.now()));
    logger.info({ trial: started.run.trial, attempt: started.run.attempt, pid: started.pid }, 'run started');
    const done = started.ended
      .then(async ({ end, objectiveReported }) => {
        if (held.get(started.run.trial) === started) held.delete(started.run.trial);
        wake();
        await finish(started.run, end, objectiveReported);
      })
      .catch((error: unknown) =>
        logger.error({ err: error, trial: started.run.trial }, 'run end not published'),
      )
      .finally(() => finishing.delete(done));
    finishing.add(done);
  };

  const onAssignment = async (assignment: EventPayloads['TrialAssigned']) => {
    for (;;) {
      if (stopping) return; // the controller assigns it again after its not_after
      const decision = pickUp(assignment, {
        held: heldRuns(),
        seen,
        slots: identity.slots,
        now: clock.now(),
      });
      if (decision.kind === 'wait') {
        await slotFreed();
        continue;
      }
      seen.set(assignment.trial_name, Math.max(seen.get(assignment.trial_name) ?? 0, assignment.attempt));
      if (decision.kind === 'leave') {
        logger.info(
          { trial: assignment.trial_name, attempt: assignment.attempt, why: decision.why },
          'assignment left',
        );
        return;
      }
      if (decision.supersedes) {
        const old = held.get(assignment.trial_name);
        old?.stop({
          run: decision.supersedes,
          because: 'CANCELLED',
          message: `assigned again (attempt ${assignment.attempt})`,
        });
        await old?.ended;
      }
      return take(assignment);
    }
  };

  const onOrder = (event: ConsumedEvent) => {
    if (event.eventType !== 'TrialRunChanged' && event.eventType !== 'TrialStatusChanged') return;
    const order = stopOrder(event, heldRuns());
    if (order === undefined) return;
    logger.info(
      { trial: order.run.trial, attempt: order.run.attempt, because: order.because },
      'stopping a run',
    );
    held.get(order.run.trial)?.stop(order);
  };
  const readers: TopicReader[] = [];
  for (const topic of [deps.topics.trialRuns.name, deps.topics.trialStatus.name])
    readers.push(await readTopic(deps.bus, { topic, from: 'end', until: 'follow', onEvent: onOrder }));

  const beat = setInterval(() => {
    sayHeartbeat(false).catch((error: unknown) => logger.warn({ err: error }, 'heartbeat not sent'));
  }, deps.heartbeatMs);
  await sayHeartbeat(false);

  const consumer: EventConsumer = await startEventConsumer({
    bus: deps.bus,
    producer: deps.producer,
    logger: logger.child({ component: 'trial-assignments' }),
    groupId: deps.groupId,
    topics: [deps.topics.trialAssignments.name],
    sessionTimeoutMs: deps.sessionTimeoutMs,
    // One assignment at a time: a full runner stops reading, and what follows waits for a slot here.
    maxBatchEvents: 1,
    handle: async (events) => {
      for (const event of events)
        if (event.eventType === 'TrialAssigned') {
          const assignment = event.payload;
          await oneAtATime(() => onAssignment(assignment));
        }
    },
  });

  return {
    joined: consumer.joined,
    ended: consumer.ended,
    stop: async () => {
      stopping = true;
      wake();
      await consumer.stop();
      const runs = [...held.values()];
      for (const run of runs) run.stop('released');
      await Promise.all(runs.map((run) => run.ended));
      await Promise.all([...finishing]);
      clearInterval(beat);
      await sayHeartbeat(true).catch((error: unknown) =>
        logger.warn({ err: error }, 'last heartbeat not sent'),
      );
      await Promise.all(readers.map((reader) => reader.stop()));
      deps.reporter.close();
    },
  };
}
