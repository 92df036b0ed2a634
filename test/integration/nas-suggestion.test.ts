import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { decodeController } from '../../services/experiment/suggestion/nas/state-codec.ts';
import type { Bus } from '../../shared/bus/index.ts';
import { type ExperimentServer, startExperimentServer } from '../helpers/experiment-server.ts';
import { openTestBus, uniqueName } from '../helpers/kafka.ts';
import { readEvents } from '../helpers/topic-events.ts';

// A Katib-like client nobody here wrote the stubs of (Python grpcio, protoc from Debian's
// python3-grpc-tools) drives enas and darts through the real server, which keeps the enas
// controller on Kafka: killing the server between rounds must change nothing.

const run = promisify(execFile);
const infra = inject('infra');
const INTEROP = join(import.meta.dirname, '..', 'interop');
const dir = mkdtempSync(join(tmpdir(), 'nas-suggestion-test-'));
const STUBS = join(dir, 'stubs');
const ROUNDS = 4;
const PER_ROUND = 3;

let bus: Bus;
const servers: ExperimentServer[] = [];

const startServer = async (): Promise<ExperimentServer> => {
  const server = await startExperimentServer({
    KAFKA_BROKERS: infra.KAFKA_BROKERS,
    EXPERIMENT_SERVICES: 'suggestion',
    OBSERVATION_STORE: 'sqlite',
    SQLITE_FILE: join(dir, `observations-${servers.length}.db`),
    PERSISTENCE_WORKER: 'false',
    EARLY_STOPPING_WORKER: 'false',
  });
  servers.push(server);
  return server;
};

const client = async <T>(server: ExperimentServer, ...args: string[]): Promise<T> => {
  const { stdout } = await run(
    '/usr/bin/python3',
    [join(INTEROP, 'nas_client.py'), STUBS, server.address, ...args],
    {
      timeout: 90_000,
    },
  );
  return JSON.parse(stdout) as T;
};

interface Round {
  architectures: string[];
  nn_configs: string[];
}

beforeAll(async () => {
  await run('bash', [join(INTEROP, 'compile_proto.sh'), STUBS], { timeout: 60_000 });
  bus = openTestBus(infra.KAFKA_BROKERS);
});

afterAll(async () => {
  for (const server of servers) await server.kill();
  await bus?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('enas and darts through the real server, from a Python grpcio client', () => {
  it('validates with Katib’s messages (INVALID_ARGUMENT) and fails a round without a SUCCEEDED trial with FAILED_PRECONDITION', async () => {
    const server = await startServer();
    const { cases } = await client<{ cases: { name: string; code: string; details: string }[] }>(
      server,
      'validate',
    );
    const byName = Object.fromEntries(cases.map((c) => [c.name, c]));
    expect(byName['enas valid']).toEqual({ name: 'enas valid', code: 'OK', details: '' });
    expect(byName['darts valid']?.code).toBe('OK');
    expect(byName['enas no input sizes']).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: 'Missing InputSizes in GraphConfig:\nnum_layers: 3\noutput_sizes: 10\n',
    });
    expect(byName['enas no output sizes']?.details).toBe(
      'Missing OutputSizes in GraphConfig:\nnum_layers: 3\ninput_sizes: 32\n',
    );
    expect(byName['enas no num layers']?.details).toBe(
      'Missing NumLayers in GraphConfig:\ninput_sizes: 32\noutput_sizes: 10\n',
    );
    expect(byName['enas operation without type']).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(byName['enas operation without type']?.details).toMatch(/^Missing operationType in Operation:\n/);
    expect(byName['enas bad temperature']?.details).toBe(
      'Algorithm Setting controller_temperature: -1.0 with float type must be in range (0, inf)',
    );
    expect(byName['enas unknown setting']?.details).toBe(
      'Unknown Algorithm Setting name: controller_unknown',
    );
    expect(byName['darts num_epochs 0']).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: 'num_epochs should be greater than zero',
    });
    expect(byName['darts double without step']?.details).toMatch(
      /^Step parameter should be > 0 in ParameterConfig.feasibleSpace:\n/,
    );

    const failed = await client<{ code: string; details: string }>(
      server,
      'failed',
      uniqueName('nas-failed'),
    );
    expect(failed.code).toBe('FAILED_PRECONDITION');
    expect(failed.details).toContain('1 FAILED');
  });

  it('darts answers Katib’s three assignments, and a second call works', async () => {
    const server = servers.at(-1)!;
    const { replies } = await client<{ replies: { name: string; value: string }[][][] }>(
      server,
      'darts',
      uniqueName('nas-darts'),
    );
    expect(replies).toHaveLength(2);
    expect(replies[1]).toEqual(replies[0]);
    const [set] = replies[0]!;
    expect(set!.map((a) => a.name)).toEqual(['algorithm-settings', 'search-space', 'num-layers']);
    expect(set![0]!.value).toContain("'num_epochs': '10'");
    expect(set![1]!.value).toBe(
      "['convolution_3x3', 'convolution_5x5', 'reduction_max_poolingxmax_pooling', 'reduction_avg_poolingxavg_pooling']",
    );
    expect(set![2]!.value).toBe('5');
  });

  it('a service killed and restarted between rounds proposes what an uninterrupted one does (same random_state)', async () => {
    const steady = uniqueName('nas-steady');
    const restarted = uniqueName('nas-restarted');
    const steadyServer = servers.at(-1)!;
    const steadyRounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++)
      steadyRounds.push(
        await client<Round>(steadyServer, 'round', steady, join(dir, 'steady.json'), String(PER_ROUND)),
      );

    const restartedRounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Every round on a fresh process; the previous one gets no chance to shut down cleanly.
      await servers.at(-1)!.kill();
      const server = await startServer();
      restartedRounds.push(
        await client<Round>(server, 'round', restarted, join(dir, 'restarted.json'), String(PER_ROUND)),
      );
      expect(server.output()).not.toMatch(/rebuilding|does not decode|starting over/);
    }
    expect(restartedRounds).toEqual(steadyRounds);

    // Two instances running side by side, rounds alternating between them: each continues from the
    // state the other saved a moment before.
    const shared = uniqueName('nas-shared');
    const pair = [servers.at(-1)!, await startServer()];
    const sharedRounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++)
      sharedRounds.push(
        await client<Round>(pair[r % 2]!, 'round', shared, join(dir, 'shared.json'), String(PER_ROUND)),
      );
    expect(sharedRounds).toEqual(steadyRounds);

    // The controller learned: round 1 is the fresh policy, the later ones differ from it.
    expect(new Set(steadyRounds.map((r) => JSON.stringify(r.architectures))).size).toBe(ROUNDS);
    for (const round of steadyRounds)
      for (const config of round.nn_configs)
        expect(config).toMatch(/^\{'num_layers': 5, 'input_sizes': \[32, 32, 3\]/);

    // One state per call on the compacted topic, keyed by experiment, each decoding to a controller
    // that learned from one more batch of trials.
    const events = await readEvents(
      bus,
      servers.at(-1)!.topics.nasControllerState.name,
      (key) => key === restarted,
      (seen) => seen.length >= ROUNDS,
    );
    expect(events.map((e) => e.eventType)).toEqual(Array(ROUNDS).fill('NasControllerStateSaved'));
    const histories = events.map((e) =>
      e.eventType === 'NasControllerStateSaved' ? decodeController(e.payload.state).history.length : -1,
    );
    expect(histories).toEqual([0, 1, 2, 3]);
    expect(
      events.map((e) => (e.eventType === 'NasControllerStateSaved' ? e.payload.trial_count : -1)),
    ).toEqual([0, 3, 6, 9]);
  });
});
