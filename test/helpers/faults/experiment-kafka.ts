// The experiment service losing Kafka as an operator would, as scenarios that return what happened:
// `test/integration/kafka-cluster.test.ts` asserts the behaviour, `bench/faults.ts` prints the
// figures beside their goals. Nothing here asserts or bounds a time. The topics are the test
// file's own (test/helpers/file-topics.ts; a bench's are the service's own), as its servers name them.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { toReportedEvent } from '../../../services/experiment/dbmanager/observation-events.ts';
import { createEventProducer, readTopic } from '../../../shared/bus/index.ts';
import { experiment, param, request, trial } from '../../unit/experiment/suggestion/fixtures.ts';
import { type ExperimentServer, startExperimentServer } from '../experiment-server.ts';
import { fileTopics } from '../file-topics.ts';
import { uniqueName } from '../kafka.ts';
import { CLUSTER_NODES, type KafkaCluster } from '../kafka-cluster.ts';
import { type CallOutcome, createKatibCalls, type KatibCalls } from '../katib-calls.ts';

const logAt = (step: number) => ({
  time_stamp: new Date(Date.UTC(2026, 0, 1) + step * 1_000).toISOString(),
  metric: { name: 'loss', value: String(step) },
});

export const reportStep = (katib: KatibCalls, trialName: string, step: number, deadlineMs = 30_000) =>
  katib.call(
    'DBManager',
    'ReportObservationLog',
    { trial_name: trialName, observation_log: { metric_logs: [logAt(step)] } },
    deadlineMs,
  );

/**
 * The trial's stored values, asked again while the read answers UNAVAILABLE (the store catching
 * up); throws after `ceilingMs` of that, naming the last answer.
 */
export async function readBack(katib: KatibCalls, trialName: string, ceilingMs = 180_000): Promise<number[]> {
  const ceiling = performance.now() + ceilingMs;
  for (;;) {
    const answer = await katib.call<{ observation_log: { metric_logs: { metric: { value: string } }[] } }>(
      'DBManager',
      'GetObservationLog',
      { trial_name: trialName },
      60_000,
    );
    if (answer.ok) return answer.reply!.observation_log.metric_logs.map((l) => Number(l.metric.value));
    if (answer.code !== 'UNAVAILABLE' || performance.now() > ceiling)
      throw new Error(`reading ${trialName} back: ${answer.code}: ${answer.details}`);
    await sleep(200);
  }
}

/** Whether logs missing from the store are on the topic: tells a lost write from a lost apply. */
async function onTopic(cluster: KafkaCluster, missing: { trial: string; step: number }[]): Promise<string> {
  const wanted = new Set(missing.map((m) => `${m.trial}/${m.step}`));
  const found: string[] = [];
  const reader = await readTopic(cluster.bus, {
    topic: fileTopics().observations.name,
    from: 'beginning',
    until: 'end',
    onEvent: (event) => {
      if (event.eventType !== 'ObservationLogReported') return;
      for (const log of event.payload.metric_logs) {
        const key = `${event.payload.trial_name}/${Number(log.value)}`;
        if (wanted.has(key)) found.push(`${key} at ${event.partition}:${event.offset}`);
      }
    },
  });
  await reader.done;
  return `on the topic: ${found.length === 0 ? 'none' : found.join(', ')}`;
}

export interface BrokerKilled {
  readonly victim: number;
  readonly acknowledged: number;
  readonly refused: readonly { at: number; code: string; details: string }[];
  /** ms from the kill to the first and last refused call (undefined when none was). */
  readonly window: { readonly firstMs: number; readonly lastMs: number } | undefined;
  readonly lost: number;
  readonly doubled: number;
  /** Refused reports whose log was stored all the same (allowed: at most once each). */
  readonly refusedStored: number;
  /** ms from the kill to every partition of the observations topic having three replicas in sync. */
  readonly backInSyncMs: number;
  /** ms from back in sync until every reporter had an acknowledged report again. */
  readonly everyReporterOkMs: number;
  /** Why acknowledged logs are missing, when some are. */
  readonly missingReport: string | undefined;
}

/**
 * `reporters` trials report one log a call back to back; once `beforeKill` logs are acknowledged,
 * the broker leading most partitions of experiment.observations is SIGKILLed and started again 10 s later. Ends once every reporter has
 * been acknowledged again after the replicas are back in sync (or `recoveryCeilingMs` after that),
 * then reads every trial back.
 */
export async function killBusiestBroker(
  cluster: KafkaCluster,
  katib: KatibCalls,
  options: { reporters?: number; beforeKill?: number; recoveryCeilingMs?: number } = {},
): Promise<BrokerKilled> {
  const trials = Array.from({ length: options.reporters ?? 50 }, (_, i) => uniqueName(`kill-${i}`));
  const acked = new Map<string, Set<number>>(trials.map((t) => [t, new Set()]));
  const unacked = new Map<string, Set<number>>(trials.map((t) => [t, new Set()]));
  const refused: { at: number; code: string; details: string }[] = [];
  let running = true;
  let killedAt = 0;
  let syncedAt = Number.POSITIVE_INFINITY;
  const okAfterSync = new Set<string>();
  const loops = trials.map(async (name) => {
    for (let step = 1; running; step++) {
      const outcome = await reportStep(katib, name, step, 10_000);
      if (outcome.ok) {
        acked.get(name)!.add(step);
        if (performance.now() > syncedAt) okAfterSync.add(name);
      } else {
        unacked.get(name)!.add(step);
        refused.push({ at: performance.now(), code: outcome.code, details: outcome.details });
        await sleep(50);
      }
    }
  });
  // Enough traffic before the kill, however slow the machine: a count, not a time.
  const countBy = performance.now() + 120_000;
  const acknowledged = () => [...acked.values()].reduce((sum, s) => sum + s.size, 0);
  while (acknowledged() < (options.beforeKill ?? 500)) {
    if (performance.now() > countBy) {
      running = false;
      await Promise.all(loops);
      throw new Error(`only ${acknowledged()} logs acknowledged within 120 s before the kill`);
    }
    await sleep(50);
  }
  const victim = await cluster.busiestLeader(fileTopics().observations.name);
  killedAt = performance.now();
  cluster.kill(victim);
  await sleep(10_000);
  cluster.startMissing();
  await cluster.waitForFullIsr(fileTopics().observations.name, 180_000);
  syncedAt = performance.now();
  const ceiling = syncedAt + (options.recoveryCeilingMs ?? 60_000);
  while (okAfterSync.size < trials.length && performance.now() < ceiling) await sleep(100);
  const everyReporterOkMs = okAfterSync.size === trials.length ? performance.now() - syncedAt : Number.NaN;
  running = false;
  await Promise.all(loops);

  let lost = 0;
  let doubled = 0;
  let refusedStored = 0;
  const missing: { trial: string; step: number }[] = [];
  for (const name of trials) {
    const counts = new Map<number, number>();
    for (const v of await readBack(katib, name)) counts.set(v, (counts.get(v) ?? 0) + 1);
    for (const step of acked.get(name)!)
      if ((counts.get(step) ?? 0) === 0) {
        lost += 1;
        missing.push({ trial: name, step });
      }
    for (const [step, n] of counts) {
      if (n > 1) doubled += n - 1;
      if (unacked.get(name)!.has(step)) refusedStored += 1;
    }
  }
  const reasons = [...new Set(refused.map((e) => `${e.code} ${e.details.slice(0, 200)}`))].slice(0, 5);
  return {
    victim,
    acknowledged: acknowledged(),
    refused,
    window:
      refused.length === 0
        ? undefined
        : { firstMs: refused[0]!.at - killedAt, lastMs: refused.at(-1)!.at - killedAt },
    lost,
    doubled,
    refusedStored,
    backInSyncMs: syncedAt - killedAt,
    everyReporterOkMs,
    missingReport:
      missing.length === 0
        ? undefined
        : `missing from the store: ${JSON.stringify(missing)}; ${await onTopic(cluster, missing)}; refusals: ${reasons.join(' | ')}`,
  };
}

export const CALLS_NEEDING_KAFKA = [
  'ReportObservationLog',
  'GetObservationLog',
  'GetSuggestions',
  'SetTrialStatus',
] as const;

export interface BrokersHung {
  /** The four calls that need Kafka, made the moment every broker stopped answering. */
  readonly underWay: readonly CallOutcome[];
  /** The same calls made 1.5 s later. */
  readonly whileLost: readonly CallOutcome[];
  /** A call that needs no Kafka, made while it was lost. */
  readonly validate: CallOutcome;
  /** ms from resuming the brokers to the first acknowledged report (NaN past the ceiling). */
  readonly firstOkMs: number;
  readonly pausedForMs: number;
  /** The trial's values read back at the end: step 1 acknowledged before, step 2 refused while hung. */
  readonly values: readonly number[];
}

/**
 * Every broker SIGSTOPped (it keeps its connections and answers nothing). Calls carry a deadline
 * of `deadlineMs`, so one that waited for Kafka instead of answering ends DEADLINE_EXCEEDED.
 */
export async function hangEveryBroker(
  cluster: KafkaCluster,
  katib: KatibCalls,
  options: { deadlineMs?: number; recoveryCeilingMs?: number } = {},
): Promise<BrokersHung> {
  const deadlineMs = options.deadlineMs ?? 30_000;
  const trialName = uniqueName('hung');
  // The cluster may still be settling after an earlier case: wait for a healthy first report.
  const settleBy = performance.now() + 120_000;
  while (!(await reportStep(katib, trialName, 1, 5_000)).ok) {
    if (performance.now() > settleBy)
      throw new Error('no report was acknowledged within 120 s before the hang');
    await sleep(500);
  }
  const randomExperiment = experiment({
    name: uniqueName('exp'),
    algorithm: 'random',
    parameters: [param('lr', 'DOUBLE', { min: '0.1', max: '0.9' })],
  });
  const needsKafka = () => [
    reportStep(katib, trialName, 2, deadlineMs),
    katib.call('DBManager', 'GetObservationLog', { trial_name: trialName }, deadlineMs),
    katib.call('Suggestion', 'GetSuggestions', request(randomExperiment, [], 1), deadlineMs),
    katib.call('EarlyStopping', 'SetTrialStatus', { trial_name: trialName }, deadlineMs),
  ];
  for (const node of CLUSTER_NODES) cluster.pause(node);
  const pausedAt = performance.now();
  const underWay = await Promise.all(needsKafka());
  await sleep(1_500);
  const whileLost = await Promise.all(needsKafka());
  const validate = await katib.call(
    'Suggestion',
    'ValidateAlgorithmSettings',
    { experiment: randomExperiment },
    deadlineMs,
  );
  for (const node of CLUSTER_NODES) cluster.resume(node);
  const resumedAt = performance.now();
  const ceiling = resumedAt + (options.recoveryCeilingMs ?? 60_000);
  let firstOkMs = Number.NaN;
  for (let step = 3; Number.isNaN(firstOkMs) && performance.now() < ceiling; step++) {
    const outcome = await reportStep(katib, trialName, step, 2_000);
    if (outcome.ok) firstOkMs = performance.now() - resumedAt;
    else await sleep(20);
  }
  return {
    underWay,
    whileLost,
    validate,
    firstOkMs,
    pausedForMs: resumedAt - pausedAt,
    values: await readBack(katib, trialName),
  };
}

export interface SuggestionOnlyStart {
  /** ms from spawning the instance to SERVING. */
  readonly startMs: number;
  readonly first: CallOutcome;
  /** Median of 20 calls after the first. */
  readonly p50Ms: number;
  /** The instance's /metrics text, read after the calls. */
  readonly metrics: string;
}

/** A suggestion-only instance started on `brokers`, its first GetSuggestions (tpe, 10 trials) and 20 more. */
export async function startSuggestionOnly(brokers: string): Promise<SuggestionOnlyStart> {
  const x = param('x', 'DOUBLE', { min: '-1', max: '1' });
  const history = Array.from({ length: 10 }, (_, i) =>
    trial(`t-${i}`, { x: String(i / 10 - 0.5) }, 'SUCCEEDED', { loss: String(i) }),
  );
  const starting = performance.now();
  const instance: ExperimentServer = await startExperimentServer({
    KAFKA_BROKERS: brokers,
    EXPERIMENT_SERVICES: 'suggestion',
  });
  const startMs = performance.now() - starting;
  const calls = createKatibCalls(instance.address);
  try {
    const ask = () =>
      calls.call(
        'Suggestion',
        'GetSuggestions',
        request(
          experiment({ name: uniqueName('tpe'), algorithm: 'tpe', parameters: [x], metric: 'loss' }),
          history,
          1,
        ),
        30_000,
      );
    const first = await ask();
    const later: number[] = [];
    for (let i = 0; i < 20; i++) later.push((await ask()).ms);
    later.sort((a, b) => a - b);
    const metrics = await (await fetch(`http://127.0.0.1:${instance.metricsPort}/metrics`)).text();
    return { startMs, first, p50Ms: later[10]!, metrics };
  } finally {
    calls.close();
    await instance.stop();
  }
}

/** Publishes `events` ObservationLogReported events of 100 logs each over 1,000 trials; returns the topic's size. */
export async function publishObservationBacklog(cluster: KafkaCluster, events = 10_000): Promise<number> {
  const producer = await createEventProducer(cluster.bus);
  const logs = Array.from({ length: 100 }, (_, k) => logAt(k));
  for (let sent = 0; sent < events; sent += 500)
    await producer.publish(
      fileTopics().observations.name,
      Array.from({ length: 500 }, (_, i) => {
        const name = `backlog-${(sent + i) % 1_000}`;
        const payload = toReportedEvent(
          { trial_name: name, observation_log: { metric_logs: logs } },
          { eventId: randomUUID(), now: Date.now() },
        );
        return { eventType: 'ObservationLogReported' as const, key: name, payload };
      }),
    );
  await producer.disconnect();
  return (await cluster.bus.watermarks(fileTopics().observations.name)).reduce(
    (n, w) => n + Number(w.high - w.low),
    0,
  );
}
