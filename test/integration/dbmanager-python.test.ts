import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ExperimentServer, startExperimentServer } from '../helpers/experiment-server.ts';
import { uniqueName } from '../helpers/kafka.ts';

// A second gRPC implementation (Debian's python3-grpcio, stubs from python3-grpc-tools' protoc)
// talks to the real service: the proto and the semantics hold for a client nobody here wrote.
const run = promisify(execFile);
const INTEROP = join(import.meta.dirname, '..', 'interop');
const dir = mkdtempSync(join(tmpdir(), 'dbmanager-python-'));
let server: ExperimentServer;

beforeAll(async () => {
  await run('bash', [join(INTEROP, 'compile_proto.sh'), join(dir, 'stubs')], { timeout: 60_000 });
  server = await startExperimentServer({
    KAFKA_BROKERS: inject('infra').KAFKA_BROKERS,
    OBSERVATION_STORE: 'sqlite',
    SQLITE_FILE: join(dir, 'observations.db'),
    PERSISTENCE_GROUP: uniqueName('test-dbmanager-python'),
    READ_BARRIER_TIMEOUT_MS: '30000',
  });
});

afterAll(async () => {
  if (server) expect(await server.stop()).toBe(0);
  rmSync(dir, { recursive: true, force: true });
});

describe('a Python grpcio client generated from the proto', () => {
  it('reports, reads with every filter combination, deletes, and gets INVALID_ARGUMENT', async () => {
    const trial = uniqueName('python-trial');
    const { stdout } = await run(
      '/usr/bin/python3',
      [join(INTEROP, 'dbmanager_client.py'), join(dir, 'stubs'), server.address, trial],
      { timeout: 120_000 },
    );
    const result = JSON.parse(stdout);
    const loss05 = ['2019-02-02T19:05:06Z', 'loss', '0.5'];
    const acc08 = ['2019-02-02T19:05:06Z', 'accuracy', '0.8'];
    const loss04 = ['2019-02-02T19:05:07.25Z', 'loss', '0.4'];
    const acc085 = ['2019-02-02T19:05:08.123456Z', 'accuracy', '0.85'];
    const lossU = ['2019-02-02T19:05:09Z', 'loss', 'unavailable'];
    expect(result.reads).toEqual({
      none: [loss05, acc08, loss04, acc085, lossU],
      metric: [loss05, loss04, lossU],
      start: [loss04, acc085, lossU],
      end: [loss05, acc08, loss04, acc085],
      start_end: [loss04, acc085],
      metric_start_end: [loss05, loss04],
    });
    expect(result.after_delete).toEqual({ has_observation_log: true, logs: [] });
    expect(result.bad_report.code).toBe('INVALID_ARGUMENT');
    expect(result.bad_report.details).toContain('observation_log.metric_logs[1].time_stamp: "abc"');
    expect(result.after_bad_report).toEqual({ has_observation_log: true, logs: [] });
  });
});
