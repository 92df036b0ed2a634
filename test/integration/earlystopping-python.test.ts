import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { partitionOf } from '../../shared/bus/index.ts';
import { type ExperimentServer, startExperimentServer } from '../helpers/experiment-server.ts';
import { openTestBus, uniqueName } from '../helpers/kafka.ts';
import { readEvents } from '../helpers/topic-events.ts';

// A second gRPC implementation (Debian's python3-grpcio, stubs from python3-grpc-tools' protoc)
// gets the same rules and errors as earlystopping.test.ts for the same curves.
const run = promisify(execFile);
const infra = inject('infra');
const INTEROP = join(import.meta.dirname, '..', 'interop');
const dir = mkdtempSync(join(tmpdir(), 'earlystopping-python-'));
const bus = openTestBus(infra.KAFKA_BROKERS);
let server: ExperimentServer;

beforeAll(async () => {
  await run('bash', [join(INTEROP, 'compile_proto.sh'), join(dir, 'stubs')], { timeout: 60_000 });
  server = await startExperimentServer({
    KAFKA_BROKERS: infra.KAFKA_BROKERS,
    OBSERVATION_STORE: 'sqlite',
    SQLITE_FILE: join(dir, 'observations.db'),
    PERSISTENCE_GROUP: uniqueName('test-es-python-persistence'),
    // Only the gRPC answers are under test here: no early-stopping judge replaying the whole observation history,
    // and none judging other tests' trials (a judge in another group may stop a trial again).
    EARLY_STOPPING_WORKER: 'false',
    WORKER_SESSION_TIMEOUT_MS: '6000',
    READ_BARRIER_TIMEOUT_MS: '30000',
  });
});

afterAll(async () => {
  if (server) expect(await server.stop()).toBe(0);
  await bus.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A trial of `experiment` whose status events share `trial`'s partition, so they come after its own. */
function samePartitionAs(trial: string, experiment: string): string {
  const partitions = server.topics.trialStatus.partitions;
  for (let i = 0; ; i++) {
    const candidate = `${experiment}-sentinel-${i}`;
    if (partitionOf(candidate, partitions) === partitionOf(trial, partitions)) return candidate;
  }
}

const ok = (reply: unknown) => ({ code: 'OK', details: '', reply });
const invalid = (details: string) => ({ code: 'INVALID_ARGUMENT', details });

describe('a Python grpcio EarlyStopping client generated from the proto', () => {
  it('gets the median rule, Katib validation messages, and SetTrialStatus OK / NOT_FOUND', async () => {
    const experiment = uniqueName('py-exp');
    const known = `${experiment}-c`;
    const sentinel = samePartitionAs(known, experiment);
    const { stdout } = await run(
      '/usr/bin/python3',
      [join(INTEROP, 'earlystopping_client.py'), join(dir, 'stubs'), server.address, experiment, sentinel],
      { timeout: 120_000 },
    );
    const result = JSON.parse(stdout);

    const rule = { name: 'accuracy', value: '0.75', start_step: 4 };
    expect(result.rules).toEqual({
      two_succeeded: ok([]),
      maximize: ok([{ ...rule, comparison: 'LESS' }]),
      minimize: ok([{ ...rule, comparison: 'GREATER' }]),
      start_step_0: invalid('start_step must be greater or equal than one (>=1)'),
    });
    expect(result.validate).toEqual({
      valid: ok(0),
      unknown_algorithm: invalid('unknown algorithm name unknown'),
      unknown_setting: invalid('unknown setting unknown_conf for algorithm medianstop'),
      min_trials_required_0: invalid('min_trials_required must be greater than zero (>0)'),
      start_step_0: invalid('start_step must be greater or equal than one (>=1)'),
    });

    expect(result.set_trial_status.known).toEqual(ok(0));
    expect(result.set_trial_status.known_again).toEqual(ok(0));
    expect(result.set_trial_status.unknown).toEqual({
      code: 'NOT_FOUND',
      details: `trial ${experiment}-never-reported not found: it has no observation log and no status (none was reported, or its log was deleted)`,
    });
    expect(result.set_trial_status.empty).toEqual(invalid('trial_name: missing'));
    expect(result.set_trial_status.sentinel).toEqual(ok(0));

    // Two calls, one event: the sentinel's event, published after both, ends the read.
    // The rules topic holds one EarlyStoppingRulesIssued per accepted call.
    const statuses = await readEvents(
      bus,
      server.topics.trialStatus.name,
      (key) => key === known || key === sentinel,
      (events) => events.some((e) => e.key === sentinel),
    );
    expect(statuses.filter((e) => e.key === known).map((e) => e.payload)).toEqual([
      expect.objectContaining({
        trial_name: known,
        condition: 'EARLYSTOPPED',
        reason: 'TrialEarlyStopped',
        source: 'SetTrialStatus',
      }),
    ]);
    const issued = await readEvents(
      bus,
      server.topics.earlyStoppingRules.name,
      (key) => key === experiment,
      (events) => events.length >= 3,
    );
    expect(
      issued.map((e) =>
        e.eventType === 'EarlyStoppingRulesIssued' ? e.payload.rules.map((r) => r.comparison) : [],
      ),
    ).toEqual([[], ['LESS'], ['GREATER']]);
  });
});
