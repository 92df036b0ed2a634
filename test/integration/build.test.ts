// `npm run build` and what `npm start` runs from it (built here into .build/test, so a running
// `npm start` keeps its dist/): the experiment service with a
// suggestion thread, and the rate limit service with two decision units. Both load files by
// path at run time (.proto, .avsc, worker entries), which only a run of the build proves.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { GetSuggestionsReply__Output } from '../../proto/gen/api/v1/beta1/GetSuggestionsReply.ts';
import type { GetSuggestionsRequest } from '../../proto/gen/api/v1/beta1/GetSuggestionsRequest.ts';
import type { SuggestionClient } from '../../proto/gen/api/v1/beta1/Suggestion.ts';
import { build, TEST_BUILD } from '../../scripts/build.ts';
import { loadPackageDefinition, lookupService } from '../../shared/grpc.ts';
import { createDbManagerClient, startExperimentServer } from '../helpers/experiment-server.ts';
import { uniqueName } from '../helpers/kafka.ts';
import { createRuntimeFolder } from '../helpers/ratelimit-runtime.ts';
import { descriptors, startRatelimitServer } from '../helpers/ratelimit-server.ts';
import { experiment, param, request, trial } from '../unit/experiment/suggestion/fixtures.ts';

const infra = inject('infra');
const dir = mkdtempSync(join(tmpdir(), 'build-test-'));

beforeAll(() => build(TEST_BUILD), 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the build', () => {
  it('holds JavaScript and the files read at run time, no TypeScript', () => {
    for (const file of [
      'services/experiment/main.js',
      'services/experiment/suggestion/adapters/suggestion-thread.js',
      'services/ratelimit/decision-thread-main.js',
      'proto/api/v1beta1/api.proto',
      'schemas/observation-log-reported.v1.avsc',
      'services/experiment/web/page/index.html',
      'services/experiment/web/page/charts.js',
    ])
      expect(existsSync(join(TEST_BUILD, file)), file).toBe(true);
    expect(existsSync(join(TEST_BUILD, 'services/experiment/main.ts'))).toBe(false);
    // The page's folder is copied as it is; the web feature's TypeScript beside it is compiled.
    expect(existsSync(join(TEST_BUILD, 'services/experiment/web/adapters/http-api.js'))).toBe(true);
    expect(existsSync(join(TEST_BUILD, 'services/experiment/web/adapters/http-api.ts'))).toBe(false);
  });

  it('runs the experiment service: a report is read back, bayesianoptimization answers from its thread', async () => {
    const server = await startExperimentServer(
      {
        KAFKA_BROKERS: infra.KAFKA_BROKERS,
        PERSISTENCE_GROUP: uniqueName('build-persistence'),
        OBSERVATION_STORE: 'sqlite',
        SQLITE_FILE: join(dir, 'observations.db'),
      },
      { built: TEST_BUILD },
    );
    const db = createDbManagerClient(server.address);
    const Suggestion = lookupService(
      loadPackageDefinition(['api/v1beta1/api.proto']),
      'api.v1.beta1.Suggestion',
    );
    const suggestions = new Suggestion(
      server.address,
      credentials.createInsecure(),
    ) as unknown as SuggestionClient;
    try {
      const trialName = uniqueName('build-trial');
      await db.report({
        trial_name: trialName,
        observation_log: {
          metric_logs: [{ time_stamp: '2026-01-01T00:00:00Z', metric: { name: 'loss', value: '0.25' } }],
        },
      });
      const read = await db.get({ trial_name: trialName });
      expect(read.observation_log?.metric_logs.map((l) => l.metric?.value)).toEqual(['0.25']);

      const x = param('x', 'DOUBLE', { min: '-1', max: '1' });
      const history = [-0.8, -0.2, 0.3, 0.9].map((v, i) =>
        trial(`t-${i}`, { x: String(v) }, 'SUCCEEDED', { loss: String(v * v) }),
      );
      const req = request(
        experiment({
          name: uniqueName('build-bo'),
          algorithm: 'bayesianoptimization',
          parameters: [x],
          metric: 'loss',
        }),
        history,
        1,
      ) as GetSuggestionsRequest;
      const reply = await new Promise<GetSuggestionsReply__Output>((resolve, reject) =>
        suggestions.GetSuggestions(req, (error: ServiceError | null, r?: GetSuggestionsReply__Output) =>
          error ? reject(error) : resolve(r!),
        ),
      );
      expect(reply.parameter_assignments).toHaveLength(1);
      expect(reply.parameter_assignments[0]!.assignments.map((a) => a.name)).toEqual(['x']);
    } finally {
      suggestions.close();
      db.close();
      expect(await server.stop()).toBe(0);
    }
  });

  it('runs the rate limit service with two decision units', async () => {
    const domain = `build${randomBytes(4).toString('hex')}`;
    const runtime = await createRuntimeFolder({
      'build.yaml': `domain: ${domain}\ndescriptors:\n  - key: k\n    rate_limit:\n      unit: hour\n      requests_per_unit: 1\n`,
    });
    const server = await startRatelimitServer(
      {
        RATELIMIT_WORKERS: '2',
        REDIS_URL: infra.REDIS_URL,
        RUNTIME_ROOT: runtime.root,
        RUNTIME_SUBDIRECTORY: runtime.subdirectory,
        CACHE_KEY_PREFIX: `${domain}:`,
      },
      { built: TEST_BUILD },
    );
    try {
      const ask = () => server.shouldRateLimit({ domain, descriptors: descriptors({ k: 'v' }) as never });
      expect((await ask()).overall_code).toBe('OK');
      expect((await ask()).overall_code).toBe('OVER_LIMIT');
    } finally {
      expect(await server.stop()).toBe(0);
      await runtime.cleanup();
    }
  });
});
