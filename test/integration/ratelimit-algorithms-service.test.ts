// The rate limit service itself (a child process, real time) with sliding windows, token buckets,
// unit_multiplier and rate_limits in its YAML: gRPC statuses, /json and the RateLimit-* headers,
// /rlconfig, GET /counters on the debug port, a bad configuration refused on hot reload naming the
// descriptor, decision threads deciding with the limits they were handed, and memcached.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CountersPage } from '../../services/ratelimit/counters-view.ts';
import { createRuntimeFolder, type RuntimeFolder } from '../helpers/ratelimit-runtime.ts';
import {
  askEveryDecisionProcess,
  descriptors,
  logged,
  type RatelimitServer,
  random,
  startRatelimitServer,
} from '../helpers/ratelimit-server.ts';
import { waitFor } from '../helpers/wait-for.ts';

// Windows of hours and days: a test run never crosses one that matters.
const CONFIG = `domain: algo
descriptors:
  - key: sliding
    rate_limit: {unit: hour, requests_per_unit: 3, algorithm: sliding_window}
  - key: bucket
    rate_limit: {unit: hour, requests_per_unit: 1, algorithm: token_bucket, burst: 2}
  - key: sets
    rate_limits:
      - {unit: hour, unit_multiplier: 2, requests_per_unit: 5, name: two-hours}
      - {unit: day, requests_per_unit: 2, algorithm: sliding_window, name: daily}
`;

async function counters(
  server: RatelimitServer,
  query: string,
): Promise<{ status: number; body: CountersPage & { error?: string } }> {
  const res = await fetch(`http://127.0.0.1:${server.debugPort}/counters?${query}`);
  return { status: res.status, body: (await res.json()) as CountersPage & { error?: string } };
}

const codes = async (server: RatelimitServer, key: string, value: string, calls: number) => {
  const seen: Array<[string, number]> = [];
  for (let i = 0; i < calls; i++) {
    const reply = await server.shouldRateLimit({
      domain: 'algo',
      descriptors: descriptors({ [key]: value }) as never,
    });
    seen.push([reply.overall_code, reply.statuses[0]!.limit_remaining]);
  }
  return seen;
};

describe('the service with limit algorithms, on Redis', () => {
  let runtime: RuntimeFolder;
  let server: RatelimitServer;
  const prefix = `algo-${random()}:`;
  beforeAll(async () => {
    runtime = await createRuntimeFolder({ 'algo.yaml': CONFIG });
    server = await startRatelimitServer({
      REDIS_URL: inject('infra').REDIS_URL,
      RUNTIME_ROOT: runtime.root,
      RUNTIME_SUBDIRECTORY: runtime.subdirectory,
      CACHE_KEY_PREFIX: prefix,
      LIMIT_RESPONSE_HEADERS_ENABLED: 'true',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await runtime?.cleanup();
  });

  it('answers sliding windows and token buckets over gRPC, with the wait until reset', async () => {
    expect(await codes(server, 'sliding', random(), 4)).toEqual([
      ['OK', 2],
      ['OK', 1],
      ['OK', 0],
      ['OVER_LIMIT', 0],
    ]);
    const value = random();
    expect(await codes(server, 'bucket', value, 3)).toEqual([
      ['OK', 1],
      ['OK', 0],
      ['OVER_LIMIT', 0],
    ]);
    // One token an hour: the next one in about an hour.
    const reply = await server.shouldRateLimit({
      domain: 'algo',
      descriptors: descriptors({ bucket: value }) as never,
    });
    expect(Number(reply.statuses[0]!.duration_until_reset!.seconds)).toBeGreaterThan(3_500);
    expect(Number(reply.statuses[0]!.duration_until_reset!.seconds)).toBeLessThanOrEqual(3_600);
  });

  it('reports the limit closest to its own in the status and the RateLimit-* headers; /json answers 429 when over', async () => {
    const value = random();
    const json = () => server.json({ domain: 'algo', descriptors: descriptors({ sets: value }) });
    const first = await server.shouldRateLimit({
      domain: 'algo',
      descriptors: descriptors({ sets: value }) as never,
    });
    expect(first.statuses[0]).toMatchObject({
      code: 'OK',
      current_limit: { requests_per_unit: 2, unit: 'DAY', name: 'daily' },
      limit_remaining: 1,
    });
    expect(first.response_headers_to_add.map((h) => [h.key, h.value]).slice(0, 2)).toEqual([
      ['RateLimit-Limit', '2'],
      ['RateLimit-Remaining', '1'],
    ]);
    expect((await json()).status).toBe(200);
    const over = await json();
    expect(over.status).toBe(429);
    expect(JSON.parse(over.body)).toMatchObject({
      overallCode: 'OVER_LIMIT',
      statuses: [{ code: 'OVER_LIMIT' }],
    });
  });

  it('shows each limit with its window and algorithm in /rlconfig', async () => {
    const dump = await server.debug('/rlconfig');
    expect(dump).toContain(
      'algo.sets: unit=HOUR unit_multiplier=2 requests_per_unit=5 algorithm=fixed_window, shadow_mode: false, quota_mode: false\n',
    );
    expect(dump).toContain(
      'algo.bucket: unit=HOUR unit_multiplier=1 requests_per_unit=1 algorithm=token_bucket burst=2, shadow_mode: false, quota_mode: false\n',
    );
  });

  it('lists the counters in use on the debug port, one descriptor with key=, a page at a time', async () => {
    const value = random();
    await codes(server, 'sliding', value, 2);
    await codes(server, 'sets', value, 1);
    const one = await counters(server, `domain=algo&key=sliding=${value}`);
    expect(one).toEqual({
      status: 200,
      body: {
        domain: 'algo',
        counters: [
          {
            key: `${prefix}algo_sliding_${value}_s3600`,
            descriptor: 'algo.sliding',
            limit: {
              name: '',
              unit: 'HOUR',
              unit_multiplier: 1,
              requests_per_unit: 3,
              algorithm: 'sliding_window',
            },
            count: 2,
            remaining: 1,
            reset_seconds: expect.any(Number),
          },
        ],
      },
    });
    // Every key of the domain, three at a time: the ones above are among them.
    const seen: string[] = [];
    let cursor = '';
    for (let pages = 0; pages < 100; pages++) {
      const page = await counters(server, `domain=algo&limit=3${cursor === '' ? '' : `&cursor=${cursor}`}`);
      expect(page.status).toBe(200);
      expect(page.body.counters.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.counters.map((c) => c.key));
      if (page.body.cursor === undefined) break;
      cursor = page.body.cursor;
    }
    expect(seen).toEqual(
      expect.arrayContaining([one.body.counters[0]!.key, `${prefix}algo_sets_${value}_s86400`]),
    );
    expect(await counters(server, 'domain=nowhere')).toEqual({
      status: 404,
      body: { error: "domain 'nowhere' is not in the configuration in force" },
    });
    expect((await counters(server, 'domain=algo&cursor=bogus')).status).toBe(400);
  });

  it('refuses a configuration with a wrong combination on hot reload, naming the descriptor, and keeps the one in force', async () => {
    const errors = await server.stat('ratelimit.service.config_load_error');
    await runtime.write(
      'algo.yaml',
      CONFIG.replace('algorithm: sliding_window}', 'algorithm: sliding_window, burst: 4}'),
    );
    await waitFor(
      'the load error',
      async () => (await server.stat('ratelimit.service.config_load_error')) > errors,
    );
    await logged(
      server,
      "config.algo.yaml: burst can only be used with algorithm token_bucket, but found algorithm 'sliding_window' on descriptor 'algo.sliding'",
    );
    expect(await server.debug('/rlconfig')).toContain(
      'algo.sliding: unit=HOUR unit_multiplier=1 requests_per_unit=3',
    );
    await runtime.write('algo.yaml', CONFIG);
  });
});

describe('the service with limit algorithms, decision threads', () => {
  let runtime: RuntimeFolder;
  let server: RatelimitServer;
  beforeAll(async () => {
    runtime = await createRuntimeFolder({ 'algo.yaml': CONFIG });
    server = await startRatelimitServer({
      REDIS_URL: inject('infra').REDIS_URL,
      RUNTIME_ROOT: runtime.root,
      RUNTIME_SUBDIRECTORY: runtime.subdirectory,
      CACHE_KEY_PREFIX: `threads-${random()}:`,
      RATELIMIT_WORKERS: '2',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await runtime?.cleanup();
  });

  it('every decision unit counts the same bucket with the limits it was handed', async () => {
    const value = random();
    const seen: string[] = [];
    await askEveryDecisionProcess(
      server,
      2,
      () => ({ domain: 'algo', descriptors: descriptors({ bucket: value }) as never }),
      (reply) => {
        seen.push(reply.overall_code);
        expect(reply.statuses[0]!.current_limit).toMatchObject({ requests_per_unit: 1, unit: 'HOUR' });
      },
    );
    expect(seen.slice(0, 2)).toEqual(['OK', 'OK']);
    expect(seen.slice(2).every((code) => code === 'OVER_LIMIT')).toBe(true);
  });
});

describe('the service with limit algorithms, on memcached', () => {
  let runtime: RuntimeFolder;
  let server: RatelimitServer;
  beforeAll(async () => {
    runtime = await createRuntimeFolder({ 'algo.yaml': CONFIG });
    server = await startRatelimitServer({
      BACKEND_TYPE: 'memcache',
      MEMCACHE_HOST_PORT: inject('infra').MEMCACHE_HOST_PORT,
      RUNTIME_ROOT: runtime.root,
      RUNTIME_SUBDIRECTORY: runtime.subdirectory,
      CACHE_KEY_PREFIX: `mc-${random()}:`,
    });
  });
  afterAll(async () => {
    await server?.stop();
    await runtime?.cleanup();
  });

  it('decides sliding windows and buckets exactly, and reads one descriptor on /counters', async () => {
    const value = random();
    expect(await codes(server, 'bucket', value, 3)).toEqual([
      ['OK', 1],
      ['OK', 0],
      ['OVER_LIMIT', 0],
    ]);
    expect(await codes(server, 'sliding', value, 4)).toEqual([
      ['OK', 2],
      ['OK', 1],
      ['OK', 0],
      ['OVER_LIMIT', 0],
    ]);
    const page = await counters(server, `domain=algo&key=bucket=${value}`);
    expect(page.body.counters).toMatchObject([
      { count: 2, remaining: 0, limit: { algorithm: 'token_bucket', burst: 2 } },
    ]);
    expect(await counters(server, 'domain=algo')).toEqual({
      status: 501,
      body: {
        error:
          'this store cannot list its keys (memcached): ask for one descriptor with key=<key>=<value>[,...]',
      },
    });
  });
});
