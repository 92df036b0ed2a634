// Configuration in force: hot reload of the files (changes inside the folder and the symlink swap
// of RUNTIME_ROOT) with no failed request, an invalid file never applied, FORCE_START_WITHOUT_INITIAL_CONFIG,
// and three instances converging on a configuration published on Kafka.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRuntimeFolder, RUNTIME_FIXTURES, type RuntimeFolder } from '../helpers/ratelimit-runtime.ts';
import {
  askEveryDecisionProcess,
  descriptors,
  logged,
  type RatelimitServer,
  random,
  startRatelimitServer,
  versionOf,
} from '../helpers/ratelimit-server.ts';
import { waitFor } from '../helpers/wait-for.ts';

/** Sends decisions back to back until stopped; every failure is kept. */
function keepDeciding(server: RatelimitServer): { stop(): Promise<{ calls: number; failures: unknown[] }> } {
  let running = true;
  let calls = 0;
  const failures: unknown[] = [];
  const loop = (async () => {
    while (running) {
      calls++;
      await server
        .shouldRateLimit({ domain: 'basic', descriptors: descriptors({ key1: random() }) as never })
        .catch((error: unknown) => failures.push(error));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { calls, failures };
    },
  };
}

describe('ratelimit hot reload', () => {
  const infra = inject('infra');
  let runtime: RuntimeFolder;
  let server: RatelimitServer;
  const reloadYaml = () => readFile(join(RUNTIME_FIXTURES, 'reload.yaml'), 'utf8');

  beforeAll(async () => {
    runtime = await createRuntimeFolder();
    server = await startRatelimitServer({
      REDIS_URL: infra.REDIS_URL,
      RUNTIME_ROOT: runtime.root,
      RUNTIME_SUBDIRECTORY: runtime.subdirectory,
      RUNTIME_IGNOREDOTFILES: 'true',
      CACHE_KEY_PREFIX: `reload-${random()}:`,
    });
  });
  afterAll(async () => {
    await server?.stop();
    await runtime?.cleanup();
  });

  const blockCode = async (): Promise<string> =>
    (
      await server.shouldRateLimit({
        domain: 'reload',
        descriptors: descriptors({ block: random() }) as never,
      })
    ).overall_code;

  it('applies a new file, a removed file and a swapped root while decisions keep succeeding', async () => {
    const load = keepDeciding(server);
    expect(await blockCode()).toBe('OK');
    const successes = await server.stat('ratelimit.service.config_load_success');

    await runtime.write('reload.yaml', await reloadYaml());
    await waitFor('the new file to limit decisions', async () => (await blockCode()) === 'OVER_LIMIT');
    expect(await server.stat('ratelimit.service.config_load_success')).toBeGreaterThan(successes);
    const key1 = await server.shouldRateLimit({
      domain: 'reload',
      descriptors: descriptors({ key1: random() }) as never,
    });
    expect(key1.statuses[0]).toMatchObject({
      code: 'OK',
      current_limit: { requests_per_unit: 50, unit: 'SECOND' },
      limit_remaining: 49,
    });

    await runtime.remove('reload.yaml');
    await waitFor('the removed file to stop limiting', async () => (await blockCode()) === 'OK');

    const before = await versionOf(server);
    await runtime.swap({
      'basic.yaml': await readFile(join(runtime.configDir(), 'basic.yaml'), 'utf8'),
      'reload.yaml': await reloadYaml(),
    });
    await waitFor('the swapped root to limit decisions', async () => (await blockCode()) === 'OVER_LIMIT');
    expect(await versionOf(server)).not.toBe(before);

    const { calls, failures } = await load.stop();
    expect(calls).toBeGreaterThan(10);
    expect(failures).toEqual([]);
  });

  it('keeps the configuration in force when a file is invalid, and counts config_load_error', async () => {
    const version = await versionOf(server);
    const errors = await server.stat('ratelimit.service.config_load_error');
    await runtime.write('bad.yaml', "'''\n");
    await waitFor(
      'the load error',
      async () => (await server.stat('ratelimit.service.config_load_error')) > errors,
    );
    expect(await versionOf(server)).toBe(version);
    expect(await blockCode()).toBe('OVER_LIMIT');
    await logged(
      server,
      'Error loading new configuration: config.bad.yaml: error loading config file: yaml: line 2: found unexpected end of stream',
    );
    await runtime.remove('bad.yaml');
  });

  it('ignores dot files with RUNTIME_IGNOREDOTFILES (a second copy of a domain would not load)', async () => {
    const errors = await server.stat('ratelimit.service.config_load_error');
    await runtime.write('.basic-copy.yaml', await readFile(join(runtime.configDir(), 'basic.yaml'), 'utf8'));
    await runtime.write(
      'reload.yaml',
      (await reloadYaml()).replace('requests_per_unit: 50', 'requests_per_unit: 51'),
    );
    await waitFor('the change beside the dot file', async () => {
      const answer = await server.shouldRateLimit({
        domain: 'reload',
        descriptors: descriptors({ key1: random() }) as never,
      });
      return answer.statuses[0]?.current_limit?.requests_per_unit === 51;
    });
    expect(await server.stat('ratelimit.service.config_load_error')).toBe(errors);
  });
});

describe('ratelimit without an initial configuration', () => {
  const infra = inject('infra');

  it('starts with FORCE_START_WITHOUT_INITIAL_CONFIG, refuses decisions, then serves once a file loads', async () => {
    const runtime = await createRuntimeFolder({ 'basic.yaml': 'domain: basic\ndescriptors: [a, b]\n' });
    const server = await startRatelimitServer({
      REDIS_URL: infra.REDIS_URL,
      RUNTIME_ROOT: runtime.root,
      RUNTIME_SUBDIRECTORY: runtime.subdirectory,
      RUNTIME_WATCH_ROOT: 'false',
      FORCE_START_WITHOUT_INITIAL_CONFIG: 'true',
    });
    try {
      const error = await server
        .shouldRateLimit({ domain: 'basic', descriptors: descriptors({ key1: 'x' }) as never })
        .then(
          () => undefined,
          (e: ServiceError) => e,
        );
      expect([error?.code, error?.details]).toEqual([
        GrpcStatus.UNKNOWN,
        'no rate limit configuration loaded',
      ]);
      // The log line travels through a pipe: wait for it rather than race it.
      await waitFor('the load error in the log', () =>
        server
          .output()
          .includes('basic.yaml: config error, yaml file contains list of type other than map: a'),
      );
      await runtime.write(
        'basic.yaml',
        await readFile(join(RUNTIME_FIXTURES, 'current/ratelimit/config/basic.yaml'), 'utf8'),
      );
      await waitFor('the fixed file to load', async () =>
        server
          .shouldRateLimit({ domain: 'basic', descriptors: descriptors({ key1: random() }) as never })
          .then(
            (answer) => answer.statuses[0]?.current_limit?.requests_per_unit === 50,
            () => false,
          ),
      );
    } finally {
      await server.stop();
      await runtime.cleanup();
    }
  });
});

describe('ratelimit configuration broadcast on Kafka', () => {
  const infra = inject('infra');
  const fleet = `test-${random()}`;
  let runtime: RuntimeFolder;
  let publisher: RatelimitServer;
  let followers: RatelimitServer[] = [];

  beforeAll(async () => {
    runtime = await createRuntimeFolder();
    const common = {
      REDIS_URL: infra.REDIS_URL,
      KAFKA_BROKERS: infra.KAFKA_BROKERS,
      CONFIG_KAFKA_KEY: fleet,
    };
    publisher = await startRatelimitServer({
      ...common,
      RUNTIME_ROOT: runtime.root,
      RUNTIME_SUBDIRECTORY: runtime.subdirectory,
      CONFIG_KAFKA_PUBLISH: 'true',
    });
    followers = await Promise.all([
      startRatelimitServer({ ...common, CONFIG_TYPE: 'KAFKA' }),
      // Two decision processes: the primary subscribes and hands each configuration to both.
      startRatelimitServer({ ...common, CONFIG_TYPE: 'KAFKA', RATELIMIT_WORKERS: '2' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([publisher, ...followers].filter(Boolean).map((s) => s.stop()));
    await runtime?.cleanup();
  });

  it('starts followers on the published configuration, and every instance converges on a new one', async () => {
    const instances = [publisher, ...followers];
    const initial = await versionOf(publisher);
    for (const follower of followers) expect(await versionOf(follower)).toBe(initial);

    await runtime.write('reload.yaml', await readFile(join(RUNTIME_FIXTURES, 'reload.yaml'), 'utf8'));
    await waitFor('the publisher to load the new file', async () => (await versionOf(publisher)) !== initial);
    const next = await versionOf(publisher);
    await waitFor('all three instances to apply it', async () =>
      (await Promise.all(instances.map(versionOf))).every((v) => v === next),
    );
    for (const instance of instances) {
      const answer = await instance.shouldRateLimit({
        domain: 'reload',
        descriptors: descriptors({ block: random() }) as never,
      });
      expect(answer.overall_code).toBe('OVER_LIMIT');
      expect(await instance.debug('/metrics')).toContain(`ratelimit_config_version_info{version="${next}"`);
    }
    // Every decision process of the two-process follower applied it: each answers by the new configuration.
    await askEveryDecisionProcess(
      followers[1]!,
      2,
      () => ({ domain: 'reload', descriptors: descriptors({ block: random() }) as never }),
      (answer) => expect(answer.overall_code).toBe('OVER_LIMIT'),
    );
  });

  it('never publishes an invalid configuration', async () => {
    const version = await versionOf(publisher);
    const errors = await publisher.stat('ratelimit.service.config_load_error');
    await runtime.write('bad.yaml', 'domain: basic\n');
    await waitFor(
      'the publisher to refuse it',
      async () => (await publisher.stat('ratelimit.service.config_load_error')) > errors,
    );
    // A valid change after it proves the followers are still listening and saw nothing in between.
    await runtime.remove('bad.yaml');
    await runtime.remove('reload.yaml');
    await waitFor('the publisher to load the valid change', async () => {
      const v = await versionOf(publisher);
      return v !== version && v;
    });
    const next = await versionOf(publisher);
    await waitFor('the followers to apply it', async () =>
      (await Promise.all(followers.map(versionOf))).every((v) => v === next),
    );
    for (const follower of followers)
      expect(await follower.stat('ratelimit.service.config_load_error')).toBe(0);
  });
});
