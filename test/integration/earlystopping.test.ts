import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { EarlyStoppingSpec } from '../../proto/gen/api/v1/beta1/EarlyStoppingSpec.ts';
import type { GetEarlyStoppingRulesRequest } from '../../proto/gen/api/v1/beta1/GetEarlyStoppingRulesRequest.ts';
import { startEarlyStoppingJudge } from '../../services/experiment/earlystopping/adapters/early-stopping-judge.ts';
import { type Bus, type ConsumedEvent, partitionOf } from '../../shared/bus/index.ts';
import { createEarlyStoppingClient, type EarlyStopping } from '../helpers/earlystopping-client.ts';
import {
  createDbManagerClient,
  type DbManager,
  type ExperimentServer,
  startExperimentServer,
} from '../helpers/experiment-server.ts';
import { openTestBus, uniqueName } from '../helpers/kafka.ts';
import { memoryLogger } from '../helpers/memory-logger.ts';
import { readEvents } from '../helpers/topic-events.ts';

const infra = inject('infra');
const dir = mkdtempSync(join(tmpdir(), 'earlystopping-'));
const experiment = uniqueName('exp');
const settings: Record<string, string> = {
  KAFKA_BROKERS: infra.KAFKA_BROKERS,
  OBSERVATION_STORE: 'sqlite',
  SQLITE_FILE: join(dir, 'observations.db'),
  PERSISTENCE_GROUP: uniqueName('test-es-persistence'),
  EARLY_STOPPING_GROUP: uniqueName('test-es-judge'),
  WORKER_SESSION_TIMEOUT_MS: '6000',
  READ_BARRIER_TIMEOUT_MS: '30000',
};
let bus: Bus;
let server: ExperimentServer;
let db: DbManager;
let es: EarlyStopping;

beforeAll(async () => {
  bus = openTestBus(infra.KAFKA_BROKERS);
  server = await startExperimentServer(settings);
  db = createDbManagerClient(server.address);
  es = createEarlyStoppingClient(server.address);
});

afterAll(async () => {
  db?.close();
  es?.close();
  if (server) await server.stop();
  await bus?.close();
  rmSync(dir, { recursive: true, force: true });
});

let step = 0;
/** Reports values of `accuracy`, one call per value (as a collector does), one second apart in Katib time. */
async function reportCurve(trial: string, values: number[]): Promise<void> {
  for (const value of values) {
    step += 1;
    const time = new Date(Date.UTC(2026, 0, 1, 0, 0, step)).toISOString();
    await db.report({
      trial_name: trial,
      observation_log: {
        metric_logs: [{ time_stamp: time, metric: { name: 'accuracy', value: String(value) } }],
      },
    });
  }
}

const trialName = (suffix: string) => `${experiment}-${suffix}`;

function rulesRequest(
  trials: [string, string][],
  extra: Partial<GetEarlyStoppingRulesRequest> = {},
): GetEarlyStoppingRulesRequest {
  return {
    experiment: {
      name: experiment,
      spec: {
        objective: { type: 'MAXIMIZE', objective_metric_name: 'accuracy' },
        early_stopping: { algorithm_name: 'medianstop', algorithm_settings: [] },
      },
    },
    trials: trials.map(([name, condition]) => ({ name, status: { condition: condition as 'SUCCEEDED' } })),
    ...extra,
  };
}

/** A trial name of `experiment` hashed to the same partition as `other`: events of both stay in order. */
function samePartitionAs(other: string, prefix: string): string {
  const partitions = server.topics.observations.partitions;
  for (let i = 0; ; i++) {
    const candidate = trialName(`${prefix}${i}`);
    if (partitionOf(candidate, partitions) === partitionOf(other, partitions)) return candidate;
  }
}

const statusEvents = (keys: string[], enough: (events: readonly ConsumedEvent[]) => boolean) =>
  readEvents(bus, server.topics.trialStatus.name, (key) => keys.includes(key), enough);

describe('EarlyStopping end to end on real Kafka', () => {
  const succeeded = ['a', 'b', 'c'].map(trialName);
  const worse = trialName('worse');
  const better = trialName('better');

  it('issues the median rule from three succeeded trials and publishes EarlyStoppingRulesIssued', async () => {
    await reportCurve(succeeded[0]!, [0.25, 0.5, 0.75, 1, 1]); // first four average 0.625
    await reportCurve(succeeded[1]!, [0.5, 0.75, 0.75, 1]); // 0.75
    await reportCurve(succeeded[2]!, [1, 1, 1, 1]); // 1
    const twoOnly = await es.rules(
      rulesRequest([
        [succeeded[0]!, 'SUCCEEDED'],
        [succeeded[1]!, 'SUCCEEDED'],
      ]),
    );
    expect(twoOnly.early_stopping_rules).toEqual([]);
    const reply = await es.rules(
      rulesRequest([...succeeded.map((t): [string, string] => [t, 'SUCCEEDED']), [worse, 'RUNNING']]),
    );
    // The median 0.75 (Katib's mean would be 0.7916...).
    expect(reply.early_stopping_rules).toEqual([
      { name: 'accuracy', value: '0.75', comparison: 'LESS', start_step: 4 },
    ]);
    const issued = await readEvents(
      bus,
      server.topics.earlyStoppingRules.name,
      (key) => key === experiment,
      (events) => events.length >= 2,
    );
    expect(issued.map((e) => e.eventType)).toEqual(['EarlyStoppingRulesIssued', 'EarlyStoppingRulesIssued']);
    expect(issued[1]!.payload).toMatchObject({
      experiment_name: experiment,
      objective_metric: 'accuracy',
      objective_type: 'MAXIMIZE',
      rules: [{ name: 'accuracy', value: '0.75', comparison: 'LESS', start_step: 4 }],
    });
    expect(issued[1]!.payload).toHaveProperty('trials.length', 4);
  });

  it('stops the worse trial once (one TrialStatusChanged) and not the better one', async () => {
    const sentinel = samePartitionAs(better, 'sentinel-');
    await reportCurve(worse, [0.3, 0.4, 0.5, 0.6]); // best 0.6 < 0.75 at step 4
    await reportCurve(better, [0.8, 0.5, 0.5, 0.5]); // best 0.8: keeps running
    await reportCurve(sentinel, [0.1, 0.1, 0.1, 0.1]); // after `better` on its partition
    const events = await statusEvents([worse, better, sentinel], (seen) =>
      [worse, sentinel].every((t) => seen.some((e) => e.key === t)),
    );
    expect(events.filter((e) => e.key === better)).toEqual([]);
    const stop = events.find((e) => e.key === worse)!;
    expect(stop.eventType).toBe('TrialStatusChanged');
    expect(stop.payload).toMatchObject({
      trial_name: worse,
      experiment_name: experiment,
      condition: 'EARLYSTOPPED',
      reason: 'TrialEarlyStopped',
      source: 'early-stopping-worker',
    });
    expect(stop.payload).toHaveProperty(
      'message',
      expect.stringContaining('best accuracy 0.6 at step 4 is less than 0.75'),
    );
  });

  it('publishes no duplicate after the server is killed and restarted, and keeps stopping new trials', async () => {
    await server.kill();
    server = await startExperimentServer(settings);
    db.close();
    es.close();
    db = createDbManagerClient(server.address);
    es = createEarlyStoppingClient(server.address);
    const afterRestart = trialName('worse-after-restart');
    await reportCurve(afterRestart, [0.2, 0.2, 0.2, 0.2]);
    const events = await statusEvents([worse, afterRestart], (seen) =>
      seen.some((e) => e.key === afterRestart),
    );
    expect(events.filter((e) => e.key === worse)).toHaveLength(1);
    expect(events.filter((e) => e.key === afterRestart)).toHaveLength(1);
  });

  it('never stops twice a trial that reports after its stop, when the stop is older than the lookback window', async () => {
    // `worse` was stopped above; its pod still reports. A judge whose window starts after the stop
    // sees only these reports, which alone break the rule at step 4.
    const windowStart = Date.now();
    await reportCurve(worse, [0.1, 0.1, 0.1, 0.1]);
    const published: string[] = [];
    const registry = new Registry();
    const start = () =>
      startEarlyStoppingJudge({
        bus,
        producer: {
          publish: async (_topic, events) => {
            published.push(...events.map((e) => e.key));
          },
        },
        topics: server.topics,
        clock: { now: () => windowStart + 1 },
        logger: memoryLogger().logger,
        groupId: uniqueName('test-es-window'),
        sessionTimeoutMs: 6_000,
        catchUpTimeoutMs: 30_000,
        lookbackMs: 1,
        registry,
      });
    const reportsRead = async () =>
      (await registry.getSingleMetric('experiment_early_stopping_reports_total')!.get()).values[0]!.value;
    const judge = await start();
    try {
      await judge.joined;
      await judge.settled(30_000);
      expect(await reportsRead()).toBeGreaterThanOrEqual(4);
      expect(published).not.toContain(worse);
    } finally {
      await judge.stop();
    }
    // Started again on the same registry, as its supervisor does on the request thread: its
    // counters go on from where they were, and it judges as the first did.
    const again = await start();
    try {
      await again.joined;
      await again.settled(30_000);
      expect(await reportsRead()).toBeGreaterThanOrEqual(8);
      expect(published).not.toContain(worse);
      expect(await registry.metrics()).toContain('experiment_early_stopping_running_trials');
    } finally {
      await again.stop();
    }
  });

  it('gives the same rules from a DBManager at db_manager_address (a second server instance)', async () => {
    // The second store reads the file's own topics from their beginnings: this file's reports only.
    const group = uniqueName('test-es-second');
    const dbOnly = await startExperimentServer(
      {
        ...settings,
        EXPERIMENT_SERVICES: 'dbmanager',
        SQLITE_FILE: join(dir, 'second.db'),
        PERSISTENCE_GROUP: group,
        EARLY_STOPPING_WORKER: 'false',
        READ_MODEL_REBUILD: 'false',
      },
      { replayHistory: true },
    );
    try {
      const trials: [string, string][] = succeeded.map((t) => [t, 'SUCCEEDED']);
      const local = await es.rules(rulesRequest(trials));
      const remote = await es.rules(rulesRequest(trials, { db_manager_address: dbOnly.address }));
      expect(remote).toEqual(local);
      expect(remote.early_stopping_rules[0]?.value).toBe('0.75');
    } finally {
      await dbOnly.stop();
    }
  });

  it('SetTrialStatus publishes EARLYSTOPPED once per trial, and NOT_FOUND for a trial never seen', async () => {
    const trial = succeeded[2]!;
    await es.setTrialStatus({ trial_name: trial });
    await es.setTrialStatus({ trial_name: trial });
    const events = await statusEvents([trial], (seen) => seen.length >= 1);
    // A second read after a fresh sentinel proves no late duplicate is on its way.
    const sentinel = samePartitionAs(trial, 'set-sentinel-');
    await reportCurve(sentinel, [0.1]);
    await es.setTrialStatus({ trial_name: sentinel });
    const again = await statusEvents([trial, sentinel], (seen) => seen.some((e) => e.key === sentinel));
    expect(again.filter((e) => e.key === trial)).toEqual(events);
    expect(events[0]!.payload).toMatchObject({
      condition: 'EARLYSTOPPED',
      reason: 'TrialEarlyStopped',
      message: 'Trial is early stopped',
      source: 'SetTrialStatus',
    });
    await expect(es.setTrialStatus({ trial_name: uniqueName('never-seen') })).rejects.toMatchObject({
      code: status.NOT_FOUND,
      details: expect.stringMatching(/^trial never-seen-\w+ not found/),
    });
    await expect(es.setTrialStatus({ trial_name: '' })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: 'trial_name: missing',
    });
  });

  it('SetTrialStatus on a trial whose log was deleted answers NOT_FOUND without saying it never had one', async () => {
    const trial = trialName(uniqueName('deleted'));
    await reportCurve(trial, [0.5]);
    await db.delete({ trial_name: trial });
    await expect(es.setTrialStatus({ trial_name: trial })).rejects.toMatchObject({
      code: status.NOT_FOUND,
      details: `trial ${trial} not found: it has no observation log and no status (none was reported, or its log was deleted)`,
    });
  });

  it.each([
    [{ experiment: { name: '' } }, 'experiment.name: missing'],
    [
      {
        experiment: { name: 'x', spec: { early_stopping: { algorithm_name: 'medianstop' } } },
        trials: [{ name: 'x-1', status: { condition: 'SUCCEEDED' } }],
      },
      'experiment.spec.objective.objective_metric_name: missing (needed to read the succeeded trials)',
    ],
    [
      { experiment: { name: 'x', spec: { early_stopping: { algorithm_name: 'asha' } } } },
      'unknown algorithm name asha',
    ],
    [
      {
        experiment: {
          name: 'x',
          spec: {
            objective: { objective_metric_name: 'acc' },
            early_stopping: {
              algorithm_name: 'medianstop',
              algorithm_settings: [{ name: 'start_step', value: '0' }],
            },
          },
        },
      },
      'start_step must be greater or equal than one (>=1)',
    ],
    [
      {
        experiment: {
          name: 'x',
          spec: {
            objective: { objective_metric_name: 'acc' },
            early_stopping: { algorithm_name: 'medianstop' },
          },
        },
        db_manager_address: 'katib-db-manager',
      },
      'db_manager_address: "katib-db-manager" is not host:port',
    ],
    [
      {
        experiment: {
          name: 'x',
          spec: {
            objective: { objective_metric_name: 'acc' },
            early_stopping: { algorithm_name: 'medianstop' },
          },
        },
        trials: [{ name: '' }],
      },
      'trials[0].name: missing',
    ],
  ])('GetEarlyStoppingRules rejects bad input with INVALID_ARGUMENT: %s', async (request, details) => {
    await expect(es.rules(request as GetEarlyStoppingRulesRequest)).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details,
    });
  });

  it("ValidateEarlyStoppingSettings answers Katib's messages", async () => {
    await expect(
      es.validate({
        early_stopping: {
          algorithm_name: 'medianstop',
          algorithm_settings: [
            { name: 'min_trials_required', value: '2' },
            { name: 'start_step', value: '5' },
          ],
        },
      }),
    ).resolves.toEqual({});
    for (const [spec, details] of [
      [{ algorithm_name: 'unknown' }, 'unknown algorithm name unknown'],
      [
        { algorithm_name: 'medianstop', algorithm_settings: [{ name: 'unknown_conf', value: '1' }] },
        'unknown setting unknown_conf for algorithm medianstop',
      ],
      [
        { algorithm_name: 'medianstop', algorithm_settings: [{ name: 'min_trials_required', value: '0' }] },
        'min_trials_required must be greater than zero (>0)',
      ],
    ] as [EarlyStoppingSpec, string][])
      await expect(es.validate({ early_stopping: spec })).rejects.toMatchObject({
        code: status.INVALID_ARGUMENT,
        details,
      });
  });
});
