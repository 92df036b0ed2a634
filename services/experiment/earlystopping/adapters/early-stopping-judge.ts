// The early-stopping judge: rebuilds what it knows from the topics at every start (observations of
// its partitions from the lookback window, the whole rules and trial-status topics), judges running
// trials as Katib's metrics collector would (medianstop's rules) or by the experiment's pruner, and
// publishes one TrialStatusChanged per stopped trial. Successive halving's rung records go to the
// rules topic, which every instance reads: judges on other partitions compare against them, and a
// judge that starts again finds its rungs decided.
//
// Never two: before publishing, the judge reads experiment.trial-status up to its end (every
// decision ever published is there, by this or any instance) and skips trials already stopped.
// It commits no offsets: its state lives in memory and is rebuilt by reading the topics again.
import { setTimeout as sleep } from 'node:timers/promises';
import { Counter, Gauge, type Registry } from 'prom-client';
import { type Bus, type EventProducer, readTopic, type TopicReader } from '../../../../shared/bus/index.ts';
import type { Clock } from '../../../../shared/clock.ts';
import { beforeDeadline } from '../../../../shared/deadline.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { ExperimentTopics } from '../../common/bus-names.ts';
import { EARLY_STOPPED, earlyStoppedEventId, earlyStoppedPayload } from '../requests.ts';
import { createTracker, type Judgement, type RecordedRung, type StopDecision } from '../tracker.ts';
import { rungRecordedEvent, toRecordedRung, toRulesIssued } from './rules-events.ts';

const RUNNING_TRIALS = 'experiment_early_stopping_running_trials';

/** How long a start may take to read the whole rules and status topics before judging anything. */
const STARTUP_CATCH_UP_MS = 120_000;

export type JudgeTopics = Pick<ExperimentTopics, 'observations' | 'trialStatus' | 'earlyStoppingRules'>;

export interface EarlyStoppingJudgeOptions {
  readonly bus: Bus;
  readonly producer: Pick<EventProducer, 'publish'>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The topics it reads and writes (KAFKA_TOPIC_PREFIX before their names). */
  readonly topics: JudgeTopics;
  /** Consumer group sharing experiment.observations among instances (by trial partition). */
  readonly groupId: string;
  readonly sessionTimeoutMs: number;
  /** How long a decision waits for the trial-status reader to reach the topic's end. */
  readonly catchUpTimeoutMs: number;
  /**
   * How far back in experiment.observations the judge starts at each start (0: the beginning). A
   * trial that reached its rules' step before that is not judged again, so it bounds restart work.
   */
  readonly lookbackMs: number;
  readonly registry?: Registry;
}

export interface EarlyStoppingJudge {
  /** Resolves once the observations reader joined its group. */
  readonly joined: Promise<void>;
  /** Resolves once the observations on the topic now are judged and the stops they caused published. */
  settled(timeoutMs: number): Promise<void>;
  /** Rejects when one of its readers stopped on an error (run it under a supervisor). */
  readonly ended: Promise<unknown>;
  stop(): Promise<void>;
}

export async function startEarlyStoppingJudge(
  options: EarlyStoppingJudgeOptions,
): Promise<EarlyStoppingJudge> {
  const { bus, producer, clock } = options;
  const logger = options.logger.child({ component: 'early-stopping' });
  const registry = options.registry;
  // A judge started again by its supervisor counts on in the same counters; the gauge is made anew,
  // reading the new judge's tracker.
  const counter = (name: string, help: string): Counter =>
    (registry?.getSingleMetric(name) as Counter | undefined) ??
    new Counter({ name, help, registers: registry ? [registry] : [] });
  const stopped = counter(
    'experiment_early_stopped_trials_total',
    'Trials this early-stopping judge stopped (TrialStatusChanged published)',
  );
  const reportsRead = counter(
    'experiment_early_stopping_reports_total',
    'Observation reports the early-stopping judge has read',
  );
  registry?.removeSingleMetric(RUNNING_TRIALS);
  new Gauge({
    name: RUNNING_TRIALS,
    help: 'Running trials the early-stopping judge is watching',
    registers: registry ? [registry] : [],
    collect() {
      this.set(tracker.runningTrials());
    },
  });
  const tracker = createTracker({ maxSamplesPerMetric: 10_000 });

  // The observations reader (started last) and where each trial's reports live.
  let observations: TopicReader | undefined;
  const partitionOfTrial = new Map<string, number>();
  const ownsTrial = (trialName: string): boolean => {
    const partition = partitionOfTrial.get(trialName);
    return partition !== undefined && observations?.owns(partition) === true;
  };

  // Statuses are read from the beginning, not from the observations' window: a stopped trial keeps
  // reporting until its pod is gone, so reports inside the window can follow a stop published
  // before it, and judging them without that stop would publish a second one.
  const statusReader = await readTopic(bus, {
    topic: options.topics.trialStatus.name,
    from: 'beginning',
    until: 'follow',
    sessionTimeoutMs: options.sessionTimeoutMs,
    onEvent: (event) => {
      if (event.eventType !== 'TrialStatusChanged') return;
      tracker.onStatus(event.payload.trial_name, event.payload.condition);
      if (tracker.isFinished(event.payload.trial_name)) partitionOfTrial.delete(event.payload.trial_name);
    },
  });

  // Decisions queue up (one stop per trial, and rung records) and one flusher publishes them in
  // batches: consuming never waits for a publish, and the trial-status catch-up is paid once per
  // batch, not per decision.
  const pending = new Map<string, StopDecision>();
  let pendingRecords: RecordedRung[] = [];
  let flushing: Promise<void> | undefined;
  let stopping = false;

  const enqueue = (judgement: Judgement): void => {
    for (const decision of judgement.stops) pending.set(decision.trialName, decision);
    pendingRecords.push(...judgement.records);
    if ((pending.size > 0 || pendingRecords.length > 0) && flushing === undefined)
      flushing = flush().finally(() => (flushing = undefined));
  };

  async function flush(): Promise<void> {
    let delayMs = 100;
    while ((pending.size > 0 || pendingRecords.length > 0) && !stopping) {
      const batch = [...pending.values()];
      let records = pendingRecords;
      pendingRecords = [];
      try {
        // Records first: a judge that starts again must find the rung decided before the stop.
        const owned = records.filter((r) => ownsTrial(r.trialName));
        if (owned.length > 0)
          await producer.publish(
            options.topics.earlyStoppingRules.name,
            owned.map((r) => rungRecordedEvent(r, clock.now())),
          );
        records = [];
        await statusReader.caughtUp(options.catchUpTimeoutMs);
        // Only the instance that owns a trial's partition now publishes its stop: during a
        // rebalance the former owner may still hold a decision the new owner makes again.
        const fresh = batch.filter((d) => !tracker.isFinished(d.trialName) && ownsTrial(d.trialName));
        if (fresh.length > 0)
          await producer.publish(options.topics.trialStatus.name, fresh.map(toStatusEvent));
        for (const decision of batch) {
          if (pending.get(decision.trialName) === decision) pending.delete(decision.trialName);
        }
        for (const decision of fresh) {
          tracker.onStatus(decision.trialName, EARLY_STOPPED.condition);
          stopped.inc();
          logger.info(
            {
              trial: decision.trialName,
              experiment: decision.experimentName,
              algorithm: decision.verdict.algorithm,
              why: decision.verdict.evidence,
            },
            'trial early-stopped',
          );
        }
        delayMs = 100;
      } catch (error) {
        // Kept in the queue: a decision is never dropped, only delayed until Kafka answers again.
        pendingRecords = [...records, ...pendingRecords];
        logger.warn(
          { err: error, pending: pending.size, records: pendingRecords.length, retryInMs: delayMs },
          'cannot publish stop decisions yet',
        );
        await sleep(delayMs);
        delayMs = Math.min(delayMs * 2, 5_000);
      }
    }
  }

  const toStatusEvent = (decision: StopDecision) => ({
    eventType: 'TrialStatusChanged' as const,
    key: decision.trialName,
    payload: earlyStoppedPayload({
      eventId: earlyStoppedEventId(decision.trialName),
      trialName: decision.trialName,
      experimentName: decision.experimentName,
      message: `${EARLY_STOPPED.message}: ${decision.verdict.evidence} (${decision.verdict.algorithm})`,
      source: 'early-stopping-worker',
      now: clock.now(),
    }),
  });

  const rulesReader = await readTopic(bus, {
    topic: options.topics.earlyStoppingRules.name,
    from: 'beginning',
    until: 'follow',
    sessionTimeoutMs: options.sessionTimeoutMs,
    onEvent: (event) => {
      if (event.eventType === 'EarlyStoppingRulesIssued')
        enqueue(tracker.onRules(toRulesIssued(event.payload, logger)));
      else if (event.eventType === 'EarlyStoppingRungRecorded')
        enqueue(tracker.onRungRecorded(toRecordedRung(event.payload)));
    },
  });
  // Rung records and stops first: an observation judged before them could decide a rung again.
  // That catch-up goes on in the background: the service starts serving meanwhile.
  let stopRequested = false;
  const following = (async (): Promise<TopicReader | undefined> => {
    await Promise.all([
      rulesReader.caughtUp(STARTUP_CATCH_UP_MS),
      statusReader.caughtUp(STARTUP_CATCH_UP_MS),
    ]);
    if (stopRequested) return undefined;
    // The judge commits nothing: each start reads the lookback window again, shared by trial partition.
    observations = await readTopic(bus, {
      topic: options.topics.observations.name,
      group: options.groupId,
      from: options.lookbackMs > 0 ? { time: clock.now() - options.lookbackMs } : 'beginning',
      until: 'follow',
      sessionTimeoutMs: options.sessionTimeoutMs,
      onEvent: (event) => {
        if (event.eventType === 'ObservationLogDeleted') return tracker.onDeleted(event.payload.trial_name);
        if (event.eventType !== 'ObservationLogReported') return;
        reportsRead.inc();
        const { event_id, trial_name, occurred_at, metric_logs } = event.payload;
        if (!tracker.isFinished(trial_name)) partitionOfTrial.set(trial_name, event.partition);
        enqueue(
          tracker.onReport({
            eventId: event_id,
            trialName: trial_name,
            atMs: occurred_at.getTime(),
            logs: metric_logs.map((log) => ({ metricName: log.metric_name, value: log.value })),
          }),
        );
      },
    });
    return observations;
  })();
  following.catch(() => undefined);

  const ended = Promise.all([following.then((reader) => reader?.done), rulesReader.done, statusReader.done]);
  ended.catch(() => undefined); // observed by the supervisor, when there is one
  return {
    joined: following.then((reader) => reader?.joined),
    ended,
    async settled(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      const left = () => Math.max(0, deadline - Date.now());
      // Rules and statuses first: without them an observation read decides nothing yet.
      await Promise.all([rulesReader.caughtUp(left()), statusReader.caughtUp(left())]);
      const reader = await beforeDeadline(
        following,
        deadline,
        () => `the early-stopping judge did not start reading observations within ${timeoutMs} ms`,
      );
      await reader?.caughtUp(left());
      while (flushing)
        await beforeDeadline(
          flushing,
          deadline,
          () => `the early-stopping judge did not publish its stops within ${timeoutMs} ms`,
        );
    },
    async stop() {
      stopRequested = true;
      await (await following.catch(() => undefined))?.stop();
      await rulesReader.stop();
      await statusReader.stop();
      // A decision still queued is made again at the next start (state is rebuilt from the topics).
      stopping = true;
      await flushing;
    },
  };
}
