// The trial controller's core carrying out its rounds without Kafka: a recording producer, the
// real Suggestion service in process, an in-memory observation log, runs played by the test.

import { describe, expect, it } from 'vitest';
import type { GetObservationLogReply__Output } from '../../../../proto/gen/api/v1/beta1/GetObservationLogReply.ts';
import { experimentTopics } from '../../../../services/experiment/common/bus-names.ts';
import { createSuggestionHandlers } from '../../../../services/experiment/suggestion/adapters/grpc-handlers.ts';
import { withSuggestionsRequestReader } from '../../../../services/experiment/suggestion/adapters/suggestions-request.ts';
import { createControllerCore } from '../../../../services/experiment/trials/adapters/controller-core.ts';
import { createInProcessCalls } from '../../../../services/experiment/trials/adapters/in-process-calls.ts';
import { loadPackageDefinition, lookupService } from '../../../../shared/grpc.ts';
import { silentLogger } from '../../../../shared/logger.ts';
import { protoService } from '../../../../shared/rpc/proto-service.ts';
import { experimentYaml, LEASE_MS, POLICY } from './controller-sim.ts';

interface Published {
  readonly topic: string;
  readonly eventType: string;
  // biome-ignore lint/suspicious/noExplicitAny: the events of every type, read by field in the assertions
  readonly payload: any;
}

function setUp() {
  const clock = {
    t: 1_000_000,
    now() {
      return this.t;
    },
  };
  const published: Published[] = [];
  const producer = {
    publish: async (topic: string, events: readonly { eventType: string; payload: unknown }[]) => {
      for (const e of events) published.push({ topic, eventType: e.eventType, payload: e.payload });
    },
  };
  const api = loadPackageDefinition(['api/v1beta1/api.proto']);
  const suggestion = protoService(
    withSuggestionsRequestReader(lookupService(api, 'api.v1.beta1.Suggestion').service),
    {
      unary: createSuggestionHandlers({
        producer: { publish: async () => undefined },
        topic: experimentTopics('').suggestions.name,
        clock,
        logger: silentLogger,
      }),
    },
  );
  const logs = new Map<string, string>();
  const inProcess = createInProcessCalls({ services: [suggestion], deadlineMs: 10_000 });
  const calls = {
    ...inProcess,
    getObservationLog: async (request: { trial_name?: string }): Promise<GetObservationLogReply__Output> => {
      const loss = logs.get(request.trial_name ?? '');
      return {
        observation_log: {
          metric_logs:
            loss === undefined
              ? []
              : [{ time_stamp: '2026-01-01T00:00:01Z', metric: { name: 'loss', value: loss } }],
        },
      };
    },
  };
  const core = createControllerCore({
    producer,
    topics: experimentTopics(''),
    calls,
    clock,
    logger: silentLogger,
    leaseMs: LEASE_MS,
    policy: POLICY,
  });
  /**
   * Rounds, letting the calls answer in between, until nothing more is published; `sweep` false:
   * only the experiments due (as the ticks between the once-a-second sweeps do).
   */
  const settle = async (sweep = true) => {
    for (let i = 0; i < 30; i++) {
      const before = published.length;
      await core.pump(sweep);
      await core.callsAnswered();
      await core.pump(sweep);
      if (published.length === before) return;
    }
    throw new Error('the core never settled');
  };
  const run = (trial: string, attempt: number, phase: 'STARTED' | 'EXITED', exitCode: number | null = 0) =>
    core.onEvent({
      eventType: 'TrialRunChanged',
      payload: {
        event_id: `${trial}:${attempt}:${phase}`,
        occurred_at: clock.t,
        experiment_name: 'exp',
        trial_name: trial,
        attempt,
        runner_id: 'r1',
        host: 'h',
        phase,
        exit_code: phase === 'EXITED' ? exitCode : null,
        signal: '',
        objective_reported: true,
        stderr_tail: phase === 'EXITED' && exitCode !== 0 ? 'boom' : '',
        message: '',
      },
    });
  const of = (eventType: string) => published.filter((p) => p.eventType === eventType);
  const submit = (yaml: string) =>
    core.onEvent({
      eventType: 'ExperimentSubmitted',
      payload: {
        event_id: 's1',
        occurred_at: clock.t,
        experiment_name: 'exp',
        generation: 1,
        yaml,
        source: 'test',
      },
    });
  return { core, clock, published, logs, settle, run, of, submit };
}

describe("the trial controller's core", () => {
  it('keeps parallelTrialCount trials in flight and ends at maxTrialCount with the best trial', async () => {
    const t = setUp();
    t.submit(experimentYaml({ parallel: 2, max: 3 }));
    await t.settle();
    const assigned = t.of('TrialAssigned');
    expect(assigned.map((a) => a.topic)).toEqual([
      'experiment.trial-assignments',
      'experiment.trial-assignments',
    ]);
    expect(assigned[0]!.payload.command).toEqual([
      'python3',
      'train.py',
      expect.stringMatching(/^--lr=0\.0\d+/),
    ]);

    const [a, b] = assigned.map((x) => x.payload.trial_name as string);
    for (const [trial, loss] of [
      [a!, '0.3'],
      [b!, '0.2'],
    ] as const) {
      t.run(trial, 1, 'STARTED');
      await t.settle();
      t.logs.set(trial, loss);
      t.run(trial, 1, 'EXITED');
      await t.settle();
    }
    const third = t.of('TrialAssigned').at(-1)!.payload.trial_name as string;
    expect([a, b]).not.toContain(third);
    t.run(third, 1, 'STARTED');
    await t.settle();
    t.logs.set(third, '0.4');
    t.run(third, 1, 'EXITED');
    await t.settle();

    const last = t.of('ExperimentStatusChanged').at(-1)!.payload;
    expect(last).toMatchObject({
      condition: 'Succeeded',
      reason: 'ExperimentMaxTrialsReached',
      trials: { succeeded: 3, failed: 0 },
      best_trial: { name: b, objective: '0.2' },
    });
    // Its own events read back from the topics change nothing.
    const count = t.published.length;
    for (const p of [...t.published]) t.core.onEvent(p);
    await t.settle();
    expect(t.published.slice(count)).toEqual([]);
    expect(t.core.world.experiments.get('exp')?.condition).toBe('Succeeded');
  });

  it('goes on from each answer at once: trials assigned and replaced without a sweep', async () => {
    const t = setUp();
    t.submit(experimentYaml({ parallel: 1, max: 2 }));
    await t.settle(false);
    const first = t.of('TrialAssigned').map((a) => a.payload.trial_name as string);
    expect(first).toHaveLength(1);
    t.run(first[0]!, 1, 'STARTED');
    await t.settle(false);
    t.logs.set(first[0]!, '0.3');
    t.run(first[0]!, 1, 'EXITED');
    await t.settle(false);
    const assigned = t.of('TrialAssigned').map((a) => a.payload.trial_name as string);
    expect(assigned).toHaveLength(2);
    expect(assigned[1]).not.toBe(first[0]);
  });

  it('fails a trial with its exit code and stderr, and the experiment at maxFailedTrialCount', async () => {
    const t = setUp();
    t.submit(experimentYaml({ parallel: 1, max: 3, maxFailed: 1 }));
    await t.settle();
    const trial = t.of('TrialAssigned')[0]!.payload.trial_name as string;
    t.run(trial, 1, 'STARTED');
    await t.settle();
    t.run(trial, 1, 'EXITED', 3);
    await t.settle();
    const failed = t.of('TrialStatusChanged').find((s) => s.payload.condition === 'FAILED')!.payload;
    expect(failed.message).toBe('The process ended with exit code 3; stderr:\nboom');
    expect(t.of('ExperimentStatusChanged').at(-1)!.payload).toMatchObject({ condition: 'Failed' });
  });

  it('assigns a run again with the next attempt once its lease ran out', async () => {
    const t = setUp();
    t.submit(experimentYaml({ parallel: 1, max: 1 }));
    await t.settle();
    const trial = t.of('TrialAssigned')[0]!.payload.trial_name as string;
    t.run(trial, 1, 'STARTED');
    await t.settle();
    t.clock.t += LEASE_MS + 1;
    await t.settle();
    const again = t.of('TrialAssigned').filter((a) => a.payload.trial_name === trial);
    expect(again.map((a) => [a.payload.attempt, a.payload.fresh_observations])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(
      t.of('TrialRunChanged').some((r) => r.payload.phase === 'CANCELLED' && r.payload.attempt === 1),
    ).toBe(true);
  });
});
