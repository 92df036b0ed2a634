// The early-stopping worker: rebuilds what it knows from the topics at every start (observations of
// its partitions, and the whole rules and trial-status topics), judges running trials as Katib's
// metrics collector would, and publishes one TrialStatusChanged per stopped trial.
//
// Never two: before publishing, the worker reads experiment.trial-status up to its end (every
// decision ever published is there, by this or any instance) and skips trials already stopped.
// It commits no offsets: its state lives in memory and is rebuilt by reading from the beginning.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Admin, Consumer, Kafka, KafkaMessage } from 'kafkajs';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { EventCatalog } from '../../../shared/avro/catalog.ts';
import { groupTimeouts } from '../../../shared/bus/consumer.ts';
import type { EventProducer } from '../../../shared/bus/producer.ts';
import { TOPICS } from '../../../shared/bus/topics.ts';
import type { Clock } from '../../../shared/clock.ts';
import { unavailable } from '../../../shared/errors.ts';
import type { Logger } from '../../../shared/logger.ts';
import { EARLY_STOPPED, earlyStoppedEventId, earlyStoppedPayload } from '../earlystopping/requests.ts';
import { createTracker, type RulesIssued, type StopDecision } from '../earlystopping/tracker.ts';

export interface EarlyStoppingWorkerOptions {
  readonly kafka: Kafka;
  readonly admin: Admin;
  readonly catalog: EventCatalog;
  readonly producer: Pick<EventProducer, 'publish'>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Consumer group sharing experiment.observations among instances (by trial partition). */
  readonly groupId: string;
  readonly sessionTimeoutMs: number;
  /** How long a decision waits for the trial-status reader to reach the topic's end. */
  readonly catchUpTimeoutMs: number;
  /**
   * How far back in experiment.observations the worker starts at each start (0: the beginning). A
   * trial that reached its rules' step before that is not judged again, so it bounds restart work.
   */
  readonly lookbackMs: number;
  readonly registry?: Registry;
}

export interface EarlyStoppingWorker {
  /** Resolves once the observations consumer joined its group. */
  readonly joined: Promise<void>;
  stop(): Promise<void>;
}

interface Decoded {
  readonly eventType: string;
  readonly payload: Record<string, unknown>;
}

/** A consumer of every partition of one topic, from the beginning, remembering how far it got. */
async function readWholeTopic(options: {
  kafka: Kafka;
  topic: string;
  group: string;
  sessionTimeoutMs: number;
  onMessage: (message: KafkaMessage) => Promise<void>;
}) {
  const consumer: Consumer = options.kafka.consumer({
    groupId: options.group,
    ...groupTimeouts(options.sessionTimeoutMs),
    allowAutoTopicCreation: false,
    maxWaitTimeInMs: 200,
  });
  const next = new Map<number, number>();
  await consumer.connect();
  await consumer.subscribe({ topic: options.topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ partition, message }) => {
      await options.onMessage(message);
      next.set(partition, Number(message.offset) + 1);
    },
  });
  return {
    consumer,
    /** Whether every partition was read up to the given high watermarks. */
    reached: (highs: readonly { partition: number; high: string; low: string }[]) =>
      highs.every((w) => Number(w.high) <= Number(w.low) || (next.get(w.partition) ?? 0) >= Number(w.high)),
  };
}

export async function startEarlyStoppingWorker(
  options: EarlyStoppingWorkerOptions,
): Promise<EarlyStoppingWorker> {
  const { kafka, admin, catalog, producer, clock } = options;
  const logger = options.logger.child({ component: 'early-stopping' });
  const registry = options.registry;
  const stopped = new Counter({
    name: 'experiment_early_stopped_trials_total',
    help: 'Trials this worker stopped (TrialStatusChanged published)',
    registers: registry ? [registry] : [],
  });
  new Gauge({
    name: 'experiment_early_stopping_running_trials',
    help: 'Running trials the early-stopping worker is watching',
    registers: registry ? [registry] : [],
    collect() {
      this.set(tracker.runningTrials());
    },
  });
  const tracker = createTracker({ maxSamplesPerMetric: 10_000 });
  const instance = `${options.groupId}-instance-${randomUUID()}`;

  const decode = (message: KafkaMessage): Decoded | undefined => {
    if (!message.value) return undefined;
    try {
      const { eventType, payload } = catalog.decode(message.value);
      return { eventType, payload };
    } catch (error) {
      // The persistence worker dead-letters such events; here they are only skipped.
      logger.warn({ err: error, offset: message.offset }, 'skipping an event that cannot be decoded');
      return undefined;
    }
  };

  const statusReader = await readWholeTopic({
    kafka,
    topic: TOPICS.trialStatus.name,
    group: `${instance}-status`,
    sessionTimeoutMs: options.sessionTimeoutMs,
    onMessage: async (message) => {
      const event = decode(message);
      if (event?.eventType === 'TrialStatusChanged')
        tracker.onStatus(String(event.payload.trial_name), String(event.payload.condition));
    },
  });

  /** Waits until the status reader has read everything published on trial-status so far. */
  async function statusCaughtUp(): Promise<void> {
    const started = Date.now();
    const highs = await admin.fetchTopicOffsets(TOPICS.trialStatus.name);
    while (!statusReader.reached(highs)) {
      if (Date.now() - started > options.catchUpTimeoutMs)
        throw unavailable(
          `early-stopping worker: ${TOPICS.trialStatus.name} not read to its end within ${options.catchUpTimeoutMs} ms`,
        );
      await sleep(5);
    }
  }

  // Decisions queue up (one per trial) and one flusher publishes them in batches: consuming never
  // waits for a publish, and the trial-status catch-up is paid once per batch, not per decision.
  const pending = new Map<string, StopDecision>();
  let flushing: Promise<void> | undefined;
  let stopping = false;

  const enqueue = (decisions: readonly StopDecision[]): void => {
    for (const decision of decisions) pending.set(decision.trialName, decision);
    if (pending.size > 0 && flushing === undefined) flushing = flush().finally(() => (flushing = undefined));
  };

  async function flush(): Promise<void> {
    let delayMs = 100;
    while (pending.size > 0 && !stopping) {
      const batch = [...pending.values()];
      try {
        await statusCaughtUp();
        const fresh = batch.filter((d) => !tracker.isFinished(d.trialName));
        if (fresh.length > 0) await producer.publish(TOPICS.trialStatus.name, fresh.map(toStatusEvent));
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
              why: decision.verdict.evidence,
            },
            'trial early-stopped',
          );
        }
        delayMs = 100;
      } catch (error) {
        // Kept in the queue: a decision is never dropped, only delayed until Kafka answers again.
        logger.warn(
          { err: error, pending: pending.size, retryInMs: delayMs },
          'cannot publish stop decisions yet',
        );
        await sleep(delayMs);
        delayMs = Math.min(delayMs * 2, 5_000);
      }
    }
  }

  const toStatusEvent = (decision: StopDecision) => ({
    eventType: 'TrialStatusChanged',
    key: decision.trialName,
    payload: earlyStoppedPayload({
      eventId: earlyStoppedEventId(decision.trialName),
      trialName: decision.trialName,
      experimentName: decision.experimentName,
      message: `${EARLY_STOPPED.message}: ${decision.verdict.evidence} (medianstop)`,
      source: 'early-stopping-worker',
      now: clock.now(),
    }),
  });

  const rulesReader = await readWholeTopic({
    kafka,
    topic: TOPICS.earlyStoppingRules.name,
    group: `${instance}-rules`,
    sessionTimeoutMs: options.sessionTimeoutMs,
    onMessage: async (message) => {
      const event = decode(message);
      if (event?.eventType !== 'EarlyStoppingRulesIssued') return;
      enqueue(tracker.onRules(toRulesIssued(event.payload)));
    },
  });

  const observations: Consumer = kafka.consumer({
    groupId: options.groupId,
    ...groupTimeouts(options.sessionTimeoutMs),
    allowAutoTopicCreation: false,
    maxWaitTimeInMs: 200,
  });
  let markJoined: () => void = () => {};
  const joined = new Promise<void>((resolve) => {
    markJoined = resolve;
  });
  observations.on(observations.events.GROUP_JOIN, (event) => {
    markJoined();
    if (options.lookbackMs > 0)
      void seekToLookback(event.payload.memberAssignment[TOPICS.observations.name] ?? []);
  });

  /** Starts the assigned partitions at the first event of the lookback window (the worker commits nothing). */
  async function seekToLookback(partitions: readonly number[]): Promise<void> {
    try {
      const since = clock.now() - options.lookbackMs;
      const offsets = await admin.fetchTopicOffsetsByTimestamp(TOPICS.observations.name, since);
      for (const { partition, offset } of offsets)
        if (partitions.includes(partition) && Number(offset) >= 0)
          observations.seek({ topic: TOPICS.observations.name, partition, offset });
    } catch (error) {
      // Reading from the beginning instead is slower, never wrong.
      logger.warn({ err: error }, 'cannot seek to the lookback window; reading from the beginning');
    }
  }
  await observations.connect();
  await observations.subscribe({ topic: TOPICS.observations.name, fromBeginning: true });
  await observations.run({
    autoCommit: false,
    eachMessage: async ({ message }) => {
      const event = decode(message);
      if (event === undefined) return;
      const trialName = String(event.payload.trial_name);
      if (event.eventType === 'ObservationLogDeleted') return tracker.onDeleted(trialName);
      if (event.eventType !== 'ObservationLogReported') return;
      const logs = event.payload.metric_logs as { metric_name: string; value: string }[];
      enqueue(
        tracker.onReport({
          eventId: String(event.payload.event_id),
          trialName,
          atMs: Number(event.payload.occurred_at),
          logs: logs.map((log) => ({ metricName: log.metric_name, value: log.value })),
        }),
      );
    },
  });

  return {
    joined,
    async stop() {
      await observations.disconnect();
      await rulesReader.consumer.disconnect();
      await statusReader.consumer.disconnect();
      // A decision still queued is made again at the next start (state is rebuilt from the topics).
      stopping = true;
      await flushing;
    },
  };
}

function toRulesIssued(payload: Record<string, unknown>): RulesIssued {
  const rules = payload.rules as { name: string; value: string; comparison: string; start_step: number }[];
  const trials = payload.trials as { name: string; condition: string }[];
  return {
    experimentName: String(payload.experiment_name),
    issuedAtMs: Number(payload.occurred_at),
    objectiveMetric: String(payload.objective_metric),
    objectiveType: payload.objective_type as RulesIssued['objectiveType'],
    rules: rules.map((rule) => ({
      name: rule.name,
      value: rule.value,
      comparison: rule.comparison as RulesIssued['rules'][number]['comparison'],
      startStep: rule.start_step,
    })),
    trials,
  };
}
