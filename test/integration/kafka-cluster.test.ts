// The experiment service on three real brokers (replication factor 3, min.insync.replicas 2), losing
// Kafka as an operator would: one broker SIGKILLed under load, then every broker hung (SIGSTOP). The
// cases assert what happens (codes, messages, nothing lost, service back); how fast is measured by
// `npm run bench:faults`, which runs the same scenarios (test/helpers/faults) and prints the figures.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ExperimentServer, startExperimentServer } from '../helpers/experiment-server.ts';
import {
  CALLS_NEEDING_KAFKA,
  hangEveryBroker,
  killBusiestBroker,
  publishObservationBacklog,
  startSuggestionOnly,
} from '../helpers/faults/experiment-kafka.ts';
import { uniqueName } from '../helpers/kafka.ts';
import {
  CLUSTER_NODES,
  type KafkaCluster,
  startKafkaCluster,
  stopKafkaCluster,
} from '../helpers/kafka-cluster.ts';
import { createKatibCalls, type KatibCalls } from '../helpers/katib-calls.ts';

const dir = mkdtempSync(join(tmpdir(), 'kafka-cluster-'));
let cluster: KafkaCluster;
let server: ExperimentServer;
let katib: KatibCalls;
const say = (line: string) => process.stdout.write(`[kafka-cluster] ${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

beforeAll(async () => {
  cluster = startKafkaCluster();
  server = await startExperimentServer(
    {
      KAFKA_BROKERS: cluster.brokers,
      OBSERVATION_STORE: 'sqlite',
      SQLITE_FILE: join(dir, 'observations.db'),
      PERSISTENCE_GROUP: uniqueName('cluster-persistence'),
      EXPERIMENT_HTTP: 'false',
      EARLY_STOPPING_WORKER: 'false',
    },
    { readyTimeoutMs: 60_000 },
  );
  katib = createKatibCalls(server.address);
}, 180_000);

afterAll(async () => {
  katib?.close();
  await server?.stop();
  for (const node of CLUSTER_NODES) {
    try {
      cluster?.resume(node);
    } catch {}
  }
  await cluster?.close();
  stopKafkaCluster();
  rmSync(dir, { recursive: true, force: true });
});

describe('the experiment service on a three-broker Kafka', () => {
  it('loses the broker leading most partitions under 50 reporters: every acknowledged log reads back once, and every reporter is acknowledged again', async () => {
    const run = await killBusiestBroker(cluster, katib);
    say(
      `broker ${run.victim} SIGKILLed: ${run.acknowledged} logs acknowledged, ${run.refused.length} calls refused (${[...new Set(run.refused.map((e) => e.code))].join(', ') || 'none'}; window ${run.window ? `${seconds(run.window.firstMs)}–${seconds(run.window.lastMs)} after the kill` : 'none'}); lost ${run.lost}, doubled ${run.doubled}; ${run.refusedStored} refused logs stored anyway; back in sync ${seconds(run.backInSyncMs)} after the kill, every reporter acknowledged again ${Math.round(run.everyReporterOkMs)} ms after that`,
    );
    if (run.missingReport) say(run.missingReport);
    expect(run.acknowledged).toBeGreaterThanOrEqual(500);
    expect(run.lost).toBe(0);
    expect(run.doubled).toBe(0);
    // Service comes back: every reporter had a report acknowledged after the replicas were in sync
    // again (NaN when one had none within the scenario's ceiling of a minute).
    expect(run.everyReporterOkMs).not.toBeNaN();
  });

  it('with every broker hung, calls that need Kafka answer UNAVAILABLE naming Kafka (not their deadline), the others go on, and all serve again after the return', async () => {
    const run = await hangEveryBroker(cluster, katib, { deadlineMs: 30_000 });
    const line = (outcomes: typeof run.underWay) =>
      outcomes.map((o, i) => `${CALLS_NEEDING_KAFKA[i]} ${o.code} ${Math.round(o.ms)} ms`).join(', ');
    say(`all brokers SIGSTOPped at t=0: calls made then: ${line(run.underWay)}`);
    say(
      `calls made 1.5 s later: ${line(run.whileLost)}; ValidateAlgorithmSettings ${run.validate.code} ${Math.round(run.validate.ms)} ms`,
    );
    say(
      `brokers resumed ${seconds(run.pausedForMs)} after: first acknowledged report ${Math.round(run.firstOkMs)} ms later`,
    );

    // Each call carried a 30 s deadline: UNAVAILABLE with Kafka's reason is the service answering,
    // not the call waiting. The goal is a second (bench:faults); 10 s only catches a hang.
    for (const outcome of [...run.underWay, ...run.whileLost]) {
      expect(outcome.code).toBe('UNAVAILABLE');
      expect(outcome.details).toMatch(/^kafka: no broker of .* has answered since/);
      expect(outcome.ms).toBeLessThan(10_000);
    }
    expect(run.validate.code).toBe('OK');
    // Serves again: a report acknowledged after the return (NaN past the scenario's minute).
    expect(run.firstOkMs).not.toBeNaN();
    // Acknowledged once each; a report refused while hung may have been written (at most once).
    expect(run.values.filter((v) => v === 1)).toEqual([1]);
    expect(run.values.filter((v) => v === 2).length).toBeLessThanOrEqual(1);
  });
});

describe('a suggestion-only instance (EXPERIMENT_SERVICES=suggestion)', () => {
  it('beside a million logs on experiment.observations follows only what Suggestion needs, and answers from its first call', async () => {
    const backlog = await publishObservationBacklog(cluster, 10_000);
    // The same instance on the tests' own Kafka, beside this file's own (empty) observation topic,
    // is the control.
    const control = await startSuggestionOnly(inject('infra').KAFKA_BROKERS);
    const beside = await startSuggestionOnly(cluster.brokers);
    const figures = (m: typeof control) =>
      `serving ${Math.round(m.startMs)} ms after its start, first GetSuggestions (tpe, 10 trials) ${m.first.ms.toFixed(1)} ms, then p50 ${m.p50Ms.toFixed(1)} ms`;
    say(`beside ${backlog} ObservationLogReported events (${backlog * 100} logs): ${figures(beside)}`);
    say(`control, on the tests' Kafka: ${figures(control)}`);
    expect(backlog).toBeGreaterThanOrEqual(10_000);
    expect(control.first.code).toBe('OK');
    expect(beside.first.code).toBe('OK');
    // It followed only what Suggestion needs: no observation consumer, no judge, no store. (A backlog
    // being consumed made the first call 38× the idle latency; bench:faults prints both figures.)
    expect(beside.metrics).toContain(
      'component_running{component="NAS controller-state follower",service="experiment"} 1',
    );
    expect(beside.metrics).not.toContain('component="persistence consumer"');
    expect(beside.metrics).not.toContain('component="early-stopping judge"');
    expect(beside.metrics).not.toContain('experiment_early_stopping_reports_total{');
    // Ceilings that only catch a hang: 10× the goals (2 s to serve; the control's first call).
    expect(beside.startMs).toBeLessThan(20_000);
    expect(beside.first.ms).toBeLessThan(10 * control.first.ms + 1_000);
  });
});
