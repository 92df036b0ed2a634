import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { credentials, type ServiceError, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { GetSuggestionsReply__Output } from '../../proto/gen/api/v1/beta1/GetSuggestionsReply.ts';
import type { GetSuggestionsRequest } from '../../proto/gen/api/v1/beta1/GetSuggestionsRequest.ts';
import type { SuggestionClient } from '../../proto/gen/api/v1/beta1/Suggestion.ts';
import type { ValidateAlgorithmSettingsRequest } from '../../proto/gen/api/v1/beta1/ValidateAlgorithmSettingsRequest.ts';
import type { HealthClient } from '../../proto/gen/grpc/health/v1/Health.ts';
import { HP_ALGORITHM_NAMES } from '../../services/experiment/suggestion/registry.ts';
import { type ConsumedEvent, readTopic } from '../../shared/bus/index.ts';
import { HEALTH_PROTO, loadPackageDefinition, lookupService } from '../../shared/grpc.ts';
import { type ExperimentServer, startExperimentServer } from '../helpers/experiment-server.ts';
import { openTestBus, uniqueName } from '../helpers/kafka.ts';
import { double, experiment, MIXED } from '../unit/experiment/suggestion/fixtures.ts';

const run = promisify(execFile);
const infra = inject('infra');
const INTEROP = join(import.meta.dirname, '..', 'interop');
const dir = mkdtempSync(join(tmpdir(), 'suggestion-test-'));
const ALGORITHM_NAMES = HP_ALGORITHM_NAMES;
let server: ExperimentServer;
let client: SuggestionClient;

/** Valid settings and a search space each algorithm accepts. */
const SETTINGS: Record<string, Record<string, string>> = {
  hyperband: { r_l: '9', resource_name: 'layers' },
  pbt: { suggestion_trial_dir: '/tmp', n_population: '5', truncation_threshold: '0.2' },
};
const validExperiment = (name: string, algorithm: string, extra: Record<string, string> = {}) =>
  experiment({
    name,
    algorithm,
    settings: { ...SETTINGS[algorithm], ...extra },
    parameters:
      algorithm === 'grid' ? [...MIXED.slice(1), double('dropout', '0', '0.5', { step: '0.1' })] : MIXED,
    parallel: 9,
  });

const call =
  <Req, Rep>(method: (req: Req, opts: object, cb: (e: ServiceError | null, r?: Rep) => void) => void) =>
  (request: Req): Promise<Rep> =>
    new Promise((resolve, reject) =>
      method.call(client, request, { deadline: Date.now() + 60_000 }, (error, reply) =>
        error ? reject(error) : resolve(reply!),
      ),
    );
const getSuggestions = (request: GetSuggestionsRequest) =>
  call<GetSuggestionsRequest, GetSuggestionsReply__Output>(client.GetSuggestions)(request);
const validate = (request: ValidateAlgorithmSettingsRequest) =>
  call<ValidateAlgorithmSettingsRequest, object>(client.ValidateAlgorithmSettings)(request);
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: ServiceError) => error,
  );

beforeAll(async () => {
  const compiled = run('bash', [join(INTEROP, 'compile_proto.sh'), join(dir, 'stubs')], { timeout: 60_000 });
  server = await startExperimentServer({
    KAFKA_BROKERS: infra.KAFKA_BROKERS,
    EXPERIMENT_SERVICES: 'suggestion',
    OBSERVATION_STORE: 'sqlite',
    SQLITE_FILE: join(dir, 'observations.db'),
  });
  const Suggestion = lookupService(
    loadPackageDefinition(['api/v1beta1/api.proto']),
    'api.v1.beta1.Suggestion',
  );
  client = new Suggestion(server.address, credentials.createInsecure()) as unknown as SuggestionClient;
  await compiled;
});

afterAll(async () => {
  client?.close();
  if (server) expect(await server.stop()).toBe(0);
  rmSync(dir, { recursive: true, force: true });
});

describe('Suggestion through the real server', () => {
  it('answers health as api.v1.beta1.Suggestion and as Katib’s probe name manager.v1beta1.Suggestion', async () => {
    const Health = lookupService(loadPackageDefinition([HEALTH_PROTO]), 'grpc.health.v1.Health');
    const health = new Health(server.address, credentials.createInsecure()) as unknown as HealthClient;
    try {
      for (const service of ['api.v1.beta1.Suggestion', 'manager.v1beta1.Suggestion']) {
        const reply = await new Promise((resolve, reject) =>
          health.Check({ service }, (error, r) => (error ? reject(error) : resolve(r))),
        );
        expect(reply).toEqual({ status: 'SERVING' });
      }
    } finally {
      health.close();
    }
  });

  it('opens no observation store and no read model when it hosts only Suggestion (its role defaults)', () => {
    expect(existsSync(join(dir, 'observations.db'))).toBe(false);
  });

  it.each(ALGORITHM_NAMES)(
    '%s answers both calls, and INVALID_ARGUMENT from both for a bad setting',
    async (algorithm) => {
      const name = uniqueName(`both-${algorithm}`);
      await expect(validate({ experiment: validExperiment(name, algorithm) })).resolves.toEqual({});
      const reply = await getSuggestions({
        experiment: validExperiment(name, algorithm),
        current_request_number: 3,
        total_request_number: 3,
      });
      expect(reply.parameter_assignments).toHaveLength(3);
      for (const set of reply.parameter_assignments)
        expect(set.assignments.map((a) => a.name)).toContain('layers');

      const bad = validExperiment(name, algorithm, { bogus: '1' });
      for (const error of [
        await failure(validate({ experiment: bad })),
        await failure(getSuggestions({ experiment: bad, current_request_number: 1 })),
      ]) {
        expect(error?.code).toBe(status.INVALID_ARGUMENT);
        expect(error?.details).toBe(`unknown setting bogus for algorithm ${algorithm}`);
      }
    },
  );

  it('answers an unknown algorithm and a bad search space with INVALID_ARGUMENT naming them', async () => {
    const unknown = experiment({ algorithm: 'chocolate' });
    const badSpace = experiment({ algorithm: 'random', parameters: [double('lr', 'abc', '1')] });
    for (const [exp, details] of [
      [unknown, 'unknown algorithm name chocolate'],
      [badSpace, 'parameter lr: min "abc" is not a number'],
    ] as const) {
      for (const error of [
        await failure(validate({ experiment: exp })),
        await failure(getSuggestions({ experiment: exp, current_request_number: 1 })),
      ]) {
        expect(error?.code).toBe(status.INVALID_ARGUMENT);
        expect(error?.details).toBe(details);
      }
    }
  });

  it('publishes each reply as SuggestionsIssued on experiment.suggestions, keyed by experiment, before answering', async () => {
    const name = uniqueName('event');
    const before = Date.now();
    const reply = await getSuggestions({
      experiment: validExperiment(name, 'hyperband'),
      current_request_number: 2,
      total_request_number: 2,
    });
    // The event is on the topic by the time the reply came: read up to the end as it is now.
    const bus = openTestBus(infra.KAFKA_BROKERS);
    const seen: ConsumedEvent[] = [];
    try {
      const reader = await readTopic(bus, {
        topic: server.topics.suggestions.name,
        from: { time: before - 1_000 },
        until: 'end',
        key: name,
        onEvent: (event) => {
          seen.push(event);
        },
      });
      await reader.done;
    } finally {
      await bus.close();
    }
    expect(seen).toHaveLength(1);
    const issued = seen[0]!;
    if (issued.eventType !== 'SuggestionsIssued')
      throw new Error(`expected SuggestionsIssued, got ${issued.eventType}`);
    const { payload } = issued;
    expect(payload).toMatchObject({
      experiment_name: name,
      algorithm_name: 'hyperband',
      current_request_number: 2,
      total_request_number: 2,
      trial_count: 0,
      completed_trial_count: 0,
    });
    expect(payload.suggestions).toEqual(
      reply.parameter_assignments.map((s) => ({ trial_name: '', assignments: s.assignments, labels: {} })),
    );
    expect(payload.algorithm_settings).toEqual(reply.algorithm!.algorithm_settings);
  });

  it('serves a 50-trial loop of every algorithm to a Python grpcio client generated from the proto', async () => {
    const { stdout } = await run(
      '/usr/bin/python3',
      [
        join(INTEROP, 'suggestion_client.py'),
        join(dir, 'stubs'),
        server.address,
        uniqueName('python'),
        ...ALGORITHM_NAMES,
      ],
      { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
    );
    const results = JSON.parse(stdout) as Record<string, Record<string, unknown>>;
    expect(Object.keys(results)).toEqual(ALGORITHM_NAMES);
    for (const [algorithm, result] of Object.entries(results)) {
      expect(result.problems, algorithm).toEqual([]);
      expect(result.trials, algorithm).toBe(50);
      expect(result.names, algorithm).toBe(50);
      expect(result.bad_settings, algorithm).toEqual({
        code: 'INVALID_ARGUMENT',
        details: `unknown setting bogus for algorithm ${algorithm}`,
      });
      // Only PBT (a child may keep its parent's values) and hyperband (a promoted trial keeps its
      // configuration) may repeat a point.
      if (algorithm !== 'pbt' && algorithm !== 'hyperband') expect(result.distinct, algorithm).toBe(50);
    }
    expect(
      Number(
        results.hyperband!.settings && (results.hyperband!.settings as Record<string, string>).current_s,
      ),
    ).toBeLessThan(2);
    expect((results.pbt!.generations as string[]).length).toBeGreaterThan(1);
  });
});
