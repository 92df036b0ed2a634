// The trial controller on Kafka: the topics it knows the world from are read from the beginning
// (a restart rebuilds everything, leases start afresh), then every experiment not finished is
// reconciled each tick and whenever an event about it arrives (controller-core.ts carries the
// rounds out). One controller runs per deployment.
import { type Bus, readTopic, type TopicReader } from '../../../../shared/bus/index.ts';
import { type ControllerCoreDeps, createControllerCore } from './controller-core.ts';

export interface TrialControllerDeps extends ControllerCoreDeps {
  readonly bus: Bus;
  readonly tickMs: number;
  /** How long the start waits for the topics to be read to their ends. */
  readonly catchUpTimeoutMs: number;
}

export interface TrialController {
  /** Rejects when a topic reader failed (the supervisor starts the controller again, from the topics). */
  readonly ended: Promise<unknown>;
  stop(): Promise<void>;
}

export async function startTrialController(deps: TrialControllerDeps): Promise<TrialController> {
  const { logger } = deps;
  const core = createControllerCore(deps);
  const { world } = core;
  let stopped = false;
  const readers: TopicReader[] = [];
  const { experiments, trialAssignments, trialRuns, runners, trialStatus } = deps.topics;
  for (const topic of [
    experiments.name,
    trialAssignments.name,
    trialRuns.name,
    runners.name,
    trialStatus.name,
  ])
    readers.push(
      await readTopic(deps.bus, { topic, from: 'beginning', until: 'follow', onEvent: core.onEvent }),
    );
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
      .then(() => core.pump(everything))
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
