// A retriable Kafka error never stops a start: the experiment service meets one at each of its
// first reads (KAFKA_FAILPOINTS makes the client's first calls of a method fail as the library
// would), and starts beside brokers that have never seen it, and reaches SERVING by itself each
// time, its reports acknowledged and read back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { FAILPOINT_METHODS, RETRIABLE_KAFKA_ERRORS } from '../../shared/bus/index.ts';
import { startExperimentServer } from '../helpers/experiment-server.ts';
import { coldStart } from '../helpers/faults/cold-start.ts';
import { readBack, reportStep } from '../helpers/faults/experiment-kafka.ts';
import { uniqueName } from '../helpers/kafka.ts';
import { createKatibCalls } from '../helpers/katib-calls.ts';
import { experiment, param, request } from '../unit/experiment/suggestion/fixtures.ts';

const infra = inject('infra');
const dir = mkdtempSync(join(tmpdir(), 'startup-retries-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ERRORS = Object.keys(RETRIABLE_KAFKA_ERRORS);

/** Every first read fails twice, each method with another of Kafka's retriable errors (every error used). */
const FAILPOINTS = FAILPOINT_METHODS.map((method, i) => `${method}=${ERRORS[i % ERRORS.length]}*2`).join(',');

describe('the experiment service meeting a retriable Kafka error at every first read', () => {
  it('reaches SERVING by itself, in every thread, and serves every service', async () => {
    expect(new Set(FAILPOINTS.split(',').map((point) => point.split(/[=*]/)[1]))).toEqual(new Set(ERRORS));
    const server = await startExperimentServer(
      {
        KAFKA_BROKERS: infra.KAFKA_BROKERS,
        KAFKA_FAILPOINTS: FAILPOINTS,
        SQLITE_FILE: join(dir, 'failpoints.db'),
        PERSISTENCE_GROUP: uniqueName('failpoints-persistence'),
        EARLY_STOPPING_GROUP: uniqueName('failpoints-judge'),
      },
      { readyTimeoutMs: 150_000 },
    );
    const katib = createKatibCalls(server.address);
    try {
      for (const service of [
        'api.v1.beta1.DBManager',
        'api.v1.beta1.Suggestion',
        'api.v1.beta1.EarlyStopping',
      ])
        await expect.poll(() => katib.health(service), { timeout: 150_000 }).toBe('SERVING');
      const trial = uniqueName('failpoints-trial');
      expect((await reportStep(katib, trial, 1)).code).toBe('OK');
      expect(await readBack(katib, trial)).toEqual([1]);
      const suggested = await katib.call(
        'Suggestion',
        'GetSuggestions',
        request(
          experiment({
            name: uniqueName('exp'),
            algorithm: 'random',
            parameters: [param('lr', 'DOUBLE', { min: '0.1', max: '0.9' })],
          }),
          [],
          1,
        ),
        30_000,
      );
      expect(suggested.code).toBe('OK');
      // The steps and components tried again said so, and the threads' errors arrived as retriable.
      const output = server.output();
      // (ensureTopics tries a retriable answer again itself first, as it did before.)
      expect(output).toMatch(/creating topics failed; retrying|creating the topics: not yet; trying again/);
      expect(output).toMatch(/connecting the producer: not yet; trying again/);
      expect(output).toMatch(/"component":"persistence consumer"[^\n]*could not start yet/);
      expect(output).not.toMatch(/start-up failure|could not be restarted/);
    } finally {
      katib.close();
      expect(await server.stop()).toBe(0);
    }
  }, 300_000);
});

describe('the experiment service beside a broker that has never seen it', () => {
  it('reaches SERVING by itself three starts out of three, its topics and groups created by the start', async () => {
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await coldStart());
    for (const run of runs) {
      process.stdout.write(
        `[startup-retries] cold start: ${run.serving ? `SERVING after ${Math.round(run.servingMs)} ms` : 'never SERVING'}; tried again: ${run.retried.join(', ') || 'nothing'}\n`,
      );
      expect(run.serving, run.output.slice(-4_000)).toBe(true);
      expect(run.reportReadBack).toBe(true);
    }
  }, 600_000);
});
