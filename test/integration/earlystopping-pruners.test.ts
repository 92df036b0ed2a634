import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bracketOf, bracketsFor } from '../../services/experiment/earlystopping/pruners/hyperband.ts';
import { type ConsumedEvent, partitionOf } from '../../shared/bus/index.ts';
import { type ExperimentServer, startExperimentServer } from '../helpers/experiment-server.ts';
import { openTestBus, uniqueName } from '../helpers/kafka.ts';
import { readEvents } from '../helpers/topic-events.ts';

// successivehalving and hyperband through the real server, Kafka and its early-stopping judge,
// driven by a Python grpcio client as Katib's controller and metrics collector would: a bad trial
// is stopped once, a good one never, and a server killed in the middle of an experiment goes on
// where it was (rung records read back, no rung judged twice, no second stop).
const run = promisify(execFile);
const infra = inject('infra');
const INTEROP = join(import.meta.dirname, '..', 'interop');
const dir = mkdtempSync(join(tmpdir(), 'earlystopping-pruners-'));
const bus = openTestBus(infra.KAFKA_BROKERS);
const settings: Record<string, string> = {
  KAFKA_BROKERS: infra.KAFKA_BROKERS,
  OBSERVATION_STORE: 'sqlite',
  SQLITE_FILE: join(dir, 'observations.db'),
  PERSISTENCE_GROUP: uniqueName('test-pruners-persistence'),
  EARLY_STOPPING_GROUP: uniqueName('test-pruners-judge'),
  // This file's trials are minutes old at most: the judge need not replay older ones.
  EARLY_STOPPING_LOOKBACK_MS: '600000',
  WORKER_SESSION_TIMEOUT_MS: '6000',
  READ_BARRIER_TIMEOUT_MS: '30000',
};
let server: ExperimentServer;

beforeAll(async () => {
  await run('bash', [join(INTEROP, 'compile_proto.sh'), join(dir, 'stubs')], { timeout: 60_000 });
  server = await startExperimentServer(settings);
});

afterAll(async () => {
  if (server) expect(await server.stop()).toBe(0);
  await bus.close();
  rmSync(dir, { recursive: true, force: true });
});

type Step = Record<string, unknown>;
interface Outcome {
  readonly code: string;
  readonly details: string;
  readonly reply?: unknown;
}

async function client(plan: Step[]): Promise<Outcome[]> {
  const { stdout } = await run(
    '/usr/bin/python3',
    [join(INTEROP, 'pruners_client.py'), join(dir, 'stubs'), server.address, JSON.stringify(plan)],
    { timeout: 120_000 },
  );
  return JSON.parse(stdout) as Outcome[];
}

/**
 * Trial names of `experiment`, one per suffix, all on one partition of the observations (and
 * trial-status) topic, so the judge sees their reports in the order sent and a later stop proves
 * everything before it was judged; `fits` picks, e.g., a hyperband bracket.
 */
function trialNames<S extends string>(
  experiment: string,
  suffixes: readonly S[],
  fits: (name: string, suffix: S) => boolean = () => true,
): Record<S, string> {
  const partitions = server.topics.observations.partitions;
  const target = partitionOf(`${experiment}-${suffixes[0]}-0`, partitions);
  const out = {} as Record<S, string>;
  for (const suffix of suffixes)
    for (let i = 0; ; i++) {
      const name = `${experiment}-${suffix}-${i}`;
      if (partitionOf(name, partitions) === target && fits(name, suffix)) {
        out[suffix] = name;
        break;
      }
    }
  return out;
}

const report = (trial: string, values: number[]): Step => ({ op: 'report', trial, metric: 'loss', values });

const stopsOf = (events: readonly ConsumedEvent[], trial: string) =>
  events.filter((e) => e.key === trial && e.eventType === 'TrialStatusChanged');

async function statusesUntil(trials: readonly string[], last: string): Promise<ConsumedEvent[]> {
  return readEvents(
    bus,
    server.topics.trialStatus.name,
    (key) => trials.includes(key),
    (seen) => seen.some((e) => e.key === last),
  );
}

/** The experiment's rung records as [trial, bracket, rung, promoted], once `last` has one. */
async function rungRecords(experiment: string, last: string): Promise<[string, number, number, boolean][]> {
  const events = await readEvents(
    bus,
    server.topics.earlyStoppingRules.name,
    (key) => key === experiment,
    (seen) => seen.some((e) => e.eventType === 'EarlyStoppingRungRecorded' && e.payload.trial_name === last),
  );
  return events.flatMap((e) =>
    e.eventType === 'EarlyStoppingRungRecorded'
      ? [
          [e.payload.trial_name, e.payload.bracket, e.payload.rung, e.payload.promoted] as [
            string,
            number,
            number,
            boolean,
          ],
        ]
      : [],
  );
}

async function restart(): Promise<void> {
  await server.kill();
  server = await startExperimentServer(settings);
}

describe('pruners through the real server, Kafka and a Python grpcio client', () => {
  it('successivehalving: stops the bad trials once, never the good ones, across a kill and restart', async () => {
    const experiment = uniqueName('py-sh');
    const t = trialNames(experiment, ['good', 'bad', 'mid', 'late'] as const);
    const rules = (trials: [string, string][] = []): Step => ({
      op: 'rules',
      experiment,
      algorithm: 'successivehalving',
      settings: [
        ['min_resource', '2'],
        ['reduction_factor', '2'],
      ],
      objective: 'MINIMIZE',
      metric: 'loss',
      trials,
    });
    const first = await client([
      rules(),
      report(t.good, [0.9, 0.5]), // rung 0 (step 2): first there, goes on
      report(t.bad, [0.9, 0.8]), // rung 0: worse than 0.5, the better half of two
      report(t.mid, [0.7]), // step 1: reaches rung 0 only after the restart
      rules([
        [t.good, 'RUNNING'],
        [t.bad, 'RUNNING'],
        [t.mid, 'RUNNING'],
      ]),
    ]);
    expect(first.map((o) => o.code)).toEqual(['OK', 'OK', 'OK', 'OK', 'OK']);
    expect(first[0]!.reply).toEqual([]);
    // Katib's collector gets rung 0's cut-off from the values there now (0.5 and 0.8).
    expect(first[4]!.reply).toEqual([{ name: 'loss', value: '0.5', comparison: 'GREATER', start_step: 2 }]);
    const before = await statusesUntil([t.good, t.bad], t.bad);
    expect(stopsOf(before, t.bad)[0]!.payload).toMatchObject({
      condition: 'EARLYSTOPPED',
      source: 'early-stopping-worker',
      message:
        'Trial is early stopped: value 0.8 at step 2 (rung 0, from step 2) is not in the top 1/2 of the 2 values recorded at the rung (cut-off 0.5) (successivehalving)',
    });
    await rungRecords(experiment, t.bad);

    await restart();
    const second = await client([
      report(t.mid, [0.45]), // rung 0 after the restart: 0.45 beats the cut-off 0.5
      report(t.bad, [0.1, 0.1]), // a stopped trial's pod still reports: no second stop
      report(t.good, [0.4, 0.3]), // rung 1 (step 4): first there
      report(t.late, [0.9, 0.9]), // rung 0 among 0.5, 0.8, 0.45: stopped
    ]);
    expect(second.map((o) => o.code)).toEqual(['OK', 'OK', 'OK', 'OK']);
    const all = await statusesUntil(Object.values(t), t.late);
    expect([t.good, t.bad, t.mid, t.late].map((trial) => stopsOf(all, trial).length)).toEqual([0, 1, 0, 1]);
    expect(await rungRecords(experiment, t.late)).toEqual([
      [t.good, 0, 0, true],
      [t.bad, 0, 0, false],
      [t.mid, 0, 0, true],
      [t.good, 0, 1, true],
      [t.late, 0, 0, false],
    ]);
  });

  it('hyperband: each bracket competes alone; bad trials stopped once, good ones never, across a restart', async () => {
    const experiment = uniqueName('py-hb');
    // min 1, max 4, reduction 2: brackets 0, 1, 2 start at steps 1, 2, 4.
    const brackets = bracketsFor(1, 4, 2);
    const t = trialNames(
      experiment,
      ['good', 'bad', 'other', 'late'] as const,
      (name, suffix) => bracketOf(name, brackets) === (suffix === 'other' ? 1 : 0),
    );
    const rules: Step = {
      op: 'rules',
      experiment,
      algorithm: 'hyperband',
      settings: [
        ['min_resource', '1'],
        ['max_resource', '4'],
        ['reduction_factor', '2'],
      ],
      objective: 'MINIMIZE',
      metric: 'loss',
      trials: [],
    };
    const first = await client([
      rules,
      report(t.good, [0.5]), // bracket 0, rung 0 (step 1): first there
      report(t.bad, [0.8]), // bracket 0, rung 0: worse than 0.5
      report(t.other, [0.9]), // bracket 1: its first rung is step 2
    ]);
    expect(first.map((o) => o.code)).toEqual(['OK', 'OK', 'OK', 'OK']);
    const before = await statusesUntil([t.good, t.bad, t.other], t.bad);
    expect(stopsOf(before, t.bad)[0]!.payload).toHaveProperty(
      'message',
      expect.stringMatching(/^Trial is early stopped: bracket 0 of 3: value 0.8 at step 1 .* \(hyperband\)$/),
    );
    await rungRecords(experiment, t.bad);

    await restart();
    const second = await client([
      report(t.other, [0.9]), // bracket 1, rung 0 (step 2): first there, though worse than all of bracket 0
      report(t.good, [0.4]), // bracket 0, rung 1 (step 2): first there
      report(t.bad, [0.1]),
      report(t.late, [0.7]), // bracket 0, rung 0 among 0.5 and 0.8: stopped
    ]);
    expect(second.map((o) => o.code)).toEqual(['OK', 'OK', 'OK', 'OK']);
    const all = await statusesUntil(Object.values(t), t.late);
    expect([t.good, t.bad, t.other, t.late].map((trial) => stopsOf(all, trial).length)).toEqual([0, 1, 0, 1]);
    expect(await rungRecords(experiment, t.late)).toEqual([
      [t.good, 0, 0, true],
      [t.bad, 0, 0, false],
      [t.other, 1, 0, true],
      [t.good, 0, 1, true],
      [t.late, 0, 0, false],
    ]);
  });

  it('validates the pruners’ settings with messages naming the setting, the value and what is allowed', async () => {
    const validate = (algorithm: string, settings: [string, string][]): Step => ({
      op: 'validate',
      algorithm,
      settings,
    });
    const outcomes = await client([
      validate('successivehalving', [['reduction_factor', '3']]),
      validate('successivehalving', [['reduction_factor', '1']]),
      validate('hyperband', [
        ['min_resource', '8'],
        ['max_resource', '4'],
      ]),
      validate('patient', [
        ['patience', '3'],
        ['wrapped', 'medianstop'],
      ]),
      validate('percentile', []),
      validate('medianstop', [['start_step', '0']]),
    ]);
    expect(outcomes).toEqual([
      { code: 'OK', details: '', reply: 0 },
      {
        code: 'INVALID_ARGUMENT',
        details:
          'reduction_factor(1) for algorithm successivehalving must be an integer from 2 to 2147483647',
      },
      {
        code: 'INVALID_ARGUMENT',
        details: 'max_resource(4) for algorithm hyperband must be at least min_resource (8), or auto',
      },
      {
        code: 'INVALID_ARGUMENT',
        details:
          'wrapped(medianstop) for algorithm patient must be one of percentile, successivehalving, hyperband, threshold, wilcoxon, or empty for none',
      },
      {
        code: 'INVALID_ARGUMENT',
        details: 'setting percentile for algorithm percentile is required: a number from 0 to 100',
      },
      { code: 'INVALID_ARGUMENT', details: 'start_step must be greater or equal than one (>=1)' },
    ]);
  });
});
