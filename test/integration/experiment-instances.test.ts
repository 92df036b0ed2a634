// Two experiment processes on one Kafka and one PostgreSQL schema, sharing the persistence and
// early-stopping groups, as N instances of the service are deployed: a log acknowledged by one is
// read through the other, the partitions of a killed instance move to the survivor, and a trial is
// stopped once whichever instance decides.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { GetEarlyStoppingRulesRequest } from '../../proto/gen/api/v1/beta1/GetEarlyStoppingRulesRequest.ts';
import { type Bus, partitionOf, readTopic } from '../../shared/bus/index.ts';
import { createEarlyStoppingClient, type EarlyStopping } from '../helpers/earlystopping-client.ts';
import {
  createDbManagerClient,
  type DbManager,
  type ExperimentServer,
  startExperimentServer,
} from '../helpers/experiment-server.ts';
import { openTestBus, uniqueName } from '../helpers/kafka.ts';
import { readEvents } from '../helpers/topic-events.ts';

const infra = inject('infra');
const SESSION_TIMEOUT_MS = 6_000;
const schema = `test_instances_${randomBytes(5).toString('hex')}`;
const experiment = uniqueName('multi');
const settings: Record<string, string> = {
  KAFKA_BROKERS: infra.KAFKA_BROKERS,
  OBSERVATION_STORE: 'postgres',
  POSTGRES_URL: infra.POSTGRES_URL,
  POSTGRES_SCHEMA: schema,
  PERSISTENCE_GROUP: uniqueName('test-instances-persistence'),
  EARLY_STOPPING_GROUP: uniqueName('test-instances-early-stopping'),
  WORKER_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
  READ_BARRIER_TIMEOUT_MS: '60000',
  // Not what this file tests, and a second instance would replay the topics' whole history into it.
  READ_MODEL_REBUILD: 'false',
};

interface Instance {
  server: ExperimentServer;
  db: DbManager;
  es: EarlyStopping;
}

let bus: Bus;
let a: Instance;
let b: Instance;

/**
 * `inline`: this instance's persistence consumer and early-stopping judge run on its request thread
 * (PERSISTENCE_THREAD=false, EARLY_STOPPING_THREAD=false).
 */
async function start(replayHistory: boolean, inline = false): Promise<Instance> {
  // The second instance joins live groups: their offsets are not reset under them.
  const server = await startExperimentServer(
    { ...settings, ...(inline ? { PERSISTENCE_THREAD: 'false', EARLY_STOPPING_THREAD: 'false' } : {}) },
    { replayHistory },
  );
  return { server, db: createDbManagerClient(server.address), es: createEarlyStoppingClient(server.address) };
}

function close(instance: Instance | undefined): void {
  instance?.db.close();
  instance?.es.close();
}

beforeAll(async () => {
  bus = openTestBus(infra.KAFKA_BROKERS);
  // One instance of each kind: persistence and the judge on threads of their own (a), on the request thread (b).
  a = await start(false);
  b = await start(true, true);
}, 120_000);

afterAll(async () => {
  close(a);
  close(b);
  await Promise.all([a?.server.stop(), b?.server.stop()]);
  await bus?.close();
  const client = new pg.Client({ connectionString: infra.POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
  } finally {
    await client.end();
  }
});

/** One trial name per partition of experiment.observations, so every partition (and owner) is used. */
function trialsOnEveryPartition(prefix: string): string[] {
  const partitions = a.server.topics.observations.partitions;
  const found = new Map<number, string>();
  for (let i = 0; found.size < partitions; i++) {
    const name = `${experiment}-${prefix}-${i}`;
    const partition = partitionOf(name, partitions);
    if (!found.has(partition)) found.set(partition, name);
  }
  return [...found.values()];
}

let second = 0;
const nextTime = () => new Date(Date.UTC(2026, 0, 1, 0, 0, ++second)).toISOString();
const reportValue = (db: DbManager, trial: string, name: string, value: number) =>
  db.report({
    trial_name: trial,
    observation_log: { metric_logs: [{ time_stamp: nextTime(), metric: { name, value: String(value) } }] },
  });
const logsOf = async (db: DbManager, trial: string) =>
  (await db.get({ trial_name: trial, metric_name: '' })).observation_log?.metric_logs.map(
    (l) => l.metric?.value,
  );

describe('two experiment instances on one Kafka and one PostgreSQL', () => {
  it('reads through one instance what the other acknowledged, on every partition, both ways', async () => {
    for (const [writer, reader] of [
      [a, b],
      [b, a],
    ] as const) {
      const trials = trialsOnEveryPartition(`ryw-${writer === a ? 'a' : 'b'}`);
      for (const trial of trials) {
        await reportValue(writer.db, trial, 'loss', 1);
        await reportValue(writer.db, trial, 'loss', 2);
        // Read at once, on the other instance: the read barrier waits for the shared group.
        expect(await logsOf(reader.db, trial)).toEqual(['1', '2']);
      }
    }
  });

  it('answers the same early-stopping rule on both instances', async () => {
    const succeeded = trialsOnEveryPartition('done').slice(0, 3);
    for (const [i, trial] of succeeded.entries())
      for (const value of [0.5, 0.6, 0.7, 0.8 + i / 10])
        await reportValue(i % 2 ? a.db : b.db, trial, 'accuracy', value);
    const request: GetEarlyStoppingRulesRequest = {
      experiment: {
        name: experiment,
        spec: {
          objective: { type: 'MAXIMIZE', objective_metric_name: 'accuracy' },
          early_stopping: { algorithm_name: 'medianstop', algorithm_settings: [] },
        },
      },
      trials: succeeded.map((name) => ({ name, status: { condition: 'SUCCEEDED' as const } })),
    };
    const [fromA, fromB] = [await a.es.rules(request), await b.es.rules(request)];
    expect(fromA.early_stopping_rules.length).toBe(1);
    expect(fromB).toEqual(fromA);
  });

  it('moves a killed instance’s partitions to the survivor, and takes them back when it returns', async () => {
    await a.server.kill();
    close(a);
    // Until the group notices the dead member (its session timeout), reads of its partitions wait
    // in the read barrier; then the survivor owns every partition and they go on.
    for (const trial of trialsOnEveryPartition('after-kill')) {
      await reportValue(b.db, trial, 'loss', 3);
      expect(await logsOf(b.db, trial)).toEqual(['3']);
    }
    a = await start(true);
    for (const trial of trialsOnEveryPartition('after-return')) {
      await reportValue(b.db, trial, 'loss', 4);
      expect(await logsOf(a.db, trial)).toEqual(['4']);
    }
  });

  it('stops each bad trial exactly once, whichever instance owns its partition', async () => {
    const bad = trialsOnEveryPartition('bad');
    // The rule of the previous test: accuracy below the median at step 4 stops a trial. Each
    // report goes to the other instance than the last, and every trial reports once more after
    // its stop, which asks both instances' early-stopping judges again.
    for (const [i, trial] of bad.entries())
      for (const value of [0.1, 0.1, 0.1, 0.1])
        await reportValue(i % 2 ? a.db : b.db, trial, 'accuracy', value);
    await readEvents(
      bus,
      a.server.topics.trialStatus.name,
      (key) => bad.includes(key),
      (seen) => bad.every((t) => seen.some((e) => e.key === t)),
      60_000,
    );
    for (const [i, trial] of bad.entries()) await reportValue(i % 2 ? b.db : a.db, trial, 'accuracy', 0.1);
    // The judge's counters and gauges reach the process's /metrics from its thread too (a), within
    // the thread's one-second report: between them the two judges stopped every bad trial.
    const metricsOf = async (instance: Instance) => {
      const text = await (await fetch(`http://127.0.0.1:${instance.server.metricsPort}/metrics`)).text();
      const value = (name: string) =>
        Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
      return {
        read: value('experiment_early_stopping_reports_total'),
        stopped: value('experiment_early_stopped_trials_total'),
        watching: text.includes('experiment_early_stopping_running_trials'),
      };
    };
    await expect
      .poll(
        async () => {
          const [ofA, ofB] = await Promise.all([metricsOf(a), metricsOf(b)]);
          return {
            bothRead: ofA.read > 0 && ofB.read > 0,
            stopped: ofA.stopped + ofB.stopped,
            bothWatch: ofA.watching && ofB.watching,
          };
        },
        { timeout: 60_000 },
      )
      .toEqual({ bothRead: true, stopped: bad.length, bothWatch: true });
    // Once both processes are gone nothing more can be published: the count is final.
    await Promise.all([a.server.stop(), b.server.stop()]);
    const stops = new Map<string, number>();
    const reader = await readTopic(bus, {
      topic: a.server.topics.trialStatus.name,
      from: 'beginning',
      until: 'end',
      onEvent: (event) => {
        if (event.key !== null && bad.includes(event.key))
          stops.set(event.key, (stops.get(event.key) ?? 0) + 1);
      },
    });
    await reader.done;
    expect(Object.fromEntries(stops)).toEqual(Object.fromEntries(bad.map((t) => [t, 1])));
  });
});
