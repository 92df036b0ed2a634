// Bad input, a Redis outage, stats at a real UDP listener and on /metrics, and the matching
// features end to end (shadow mode, unlimited, replaces, quota mode, RateLimit-* headers, WEEK).
import { createSocket, type Socket } from 'node:dgram';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRuntimeFolder, RUNTIME_FIXTURES, type RuntimeFolder } from '../helpers/ratelimit-runtime.ts';
import {
  awayFromMinuteEdge,
  descriptors,
  type RatelimitServer,
  random,
  startRatelimitServer,
} from '../helpers/ratelimit-server.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/ratelimit-tcp-proxy.ts';
import { waitFor } from '../helpers/wait-for.ts';

describe('ratelimit faults, stats and features', () => {
  const infra = inject('infra');
  let runtime: RuntimeFolder;
  let proxy: TcpProxy;
  let server: RatelimitServer;
  let statsd: Socket;
  const received: string[] = [];

  beforeAll(async () => {
    const [host, port] = infra.REDIS_URL.split(':');
    proxy = await startTcpProxy({ host: host!, port: Number(port) });
    statsd = createSocket('udp4');
    statsd.on('message', (message) => received.push(...message.toString('utf8').split('\n')));
    await new Promise<void>((resolve) => statsd.bind(0, '127.0.0.1', resolve));
    runtime = await createRuntimeFolder();
    await runtime.write('features.yaml', await readFile(join(RUNTIME_FIXTURES, 'features.yaml'), 'utf8'));
    server = await startRatelimitServer({
      REDIS_URL: `127.0.0.1:${proxy.port}`,
      REDIS_HEALTH_CHECK_ACTIVE_CONNECTION: 'true',
      REDIS_TIMEOUT: '2s',
      RUNTIME_ROOT: runtime.root,
      RUNTIME_SUBDIRECTORY: runtime.subdirectory,
      CACHE_KEY_PREFIX: `faults-${random()}:`,
      USE_STATSD: 'true',
      STATSD_HOST: '127.0.0.1',
      STATSD_PORT: String(statsd.address().port),
      STATS_FLUSH_INTERVAL: '100ms',
      EXTRA_TAGS: 'foo:bar,a:b',
      LIMIT_RESPONSE_HEADERS_ENABLED: 'true',
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    statsd?.close();
    await runtime?.cleanup();
  });

  const rejected = async (
    request: Parameters<RatelimitServer['shouldRateLimit']>[0],
  ): Promise<ServiceError> => {
    const error = await server.shouldRateLimit(request).then(
      () => undefined,
      (e: ServiceError) => e,
    );
    expect(error, 'the call should have failed').toBeDefined();
    return error!;
  };

  describe('bad input', () => {
    it('answers the reference status and message over gRPC, and counts service_error', async () => {
      const before = await server.stat('ratelimit.service.call.should_rate_limit.service_error');
      const emptyDomain = await rejected({ domain: '', descriptors: descriptors({ key1: 'a' }) as never });
      expect([emptyDomain.code, emptyDomain.details]).toEqual([
        GrpcStatus.UNKNOWN,
        'rate limit domain must not be empty',
      ]);
      const noDescriptors = await rejected({ domain: 'basic', descriptors: [] });
      expect([noDescriptors.code, noDescriptors.details]).toEqual([
        GrpcStatus.UNKNOWN,
        'rate limit descriptor list must not be empty',
      ]);
      const emptyKey = await rejected({ domain: 'basic', descriptors: descriptors({ '': 'a' }) as never });
      expect([emptyKey.code, emptyKey.details]).toEqual([
        GrpcStatus.INVALID_ARGUMENT,
        'descriptors[0].entries[0].key must not be empty',
      ]);
      const unknownUnit = await rejected({
        domain: 'basic',
        descriptors: [
          { entries: [{ key: 'key1', value: 'a' }], limit: { requests_per_unit: 1, unit: 'UNKNOWN' } },
        ] as never,
      });
      expect([unknownUnit.code, unknownUnit.details]).toEqual([
        GrpcStatus.INVALID_ARGUMENT,
        'descriptors[0].limit.unit must be one of SECOND, MINUTE, HOUR, DAY, MONTH, YEAR, not UNKNOWN',
      ]);
      expect(await server.stat('ratelimit.service.call.should_rate_limit.service_error')).toBe(before + 3);
    });

    it.each([
      ['an empty body', ''],
      ['broken JSON', '}'],
      ['an empty domain', { domain: '', descriptors: [{ entries: [{ key: 'a', value: 'b' }] }] }],
      ['no descriptors', { domain: 'basic' }],
      ['an entry without a key', { domain: 'basic', descriptors: [{ entries: [{ value: 'b' }] }] }],
      ['an unknown field', { domain: 'basic', descriptor: [] }],
      ['a number for the domain', { domain: 5, descriptors: [{ entries: [{ key: 'a' }] }] }],
      [
        'a negative hits addend',
        { domain: 'basic', descriptors: [{ entries: [{ key: 'a' }] }], hitsAddend: -1 },
      ],
      ['a list for the body', [1, 2]],
    ])('answers 400 Bad Request on /json for %s', async (_what, body) => {
      const res = await server.json(body);
      expect([res.status, res.body, res.contentType]).toEqual([
        400,
        'Bad Request\n',
        'text/plain; charset=utf-8',
      ]);
    });

    it('answers 404 elsewhere on the HTTP port, and lists endpoints on the debug port', async () => {
      expect(await server.http('/nothing')).toEqual({
        status: 404,
        body: '404 page not found\n',
        contentType: expect.any(String),
      });
      expect(await server.debug('/')).toContain(
        '/rlconfig: print out the currently loaded configuration for debugging\n',
      );
    });
  });

  describe('features', () => {
    const call = (d: ReturnType<typeof descriptors>) =>
      server.shouldRateLimit({ domain: 'features', descriptors: d as never });

    it('shadow mode answers OK over the limit and counts shadow_mode', async () => {
      const value = random();
      await awayFromMinuteEdge(10_000);
      await call(descriptors({ shadow: value }));
      const over = await call(descriptors({ shadow: value }));
      expect(over.overall_code).toBe('OK');
      expect(over.statuses[0]).toMatchObject({ code: 'OK', limit_remaining: 0 });
      expect(
        await server.stat('ratelimit.service.rate_limit.features.shadow.shadow_mode'),
      ).toBeGreaterThanOrEqual(1);
    });

    it('unlimited answers OK with the largest remaining, without the store', async () => {
      const answer = await call(descriptors({ unlimited: random() }));
      expect(answer.statuses[0]).toMatchObject({
        code: 'OK',
        limit_remaining: 4294967295,
        current_limit: null,
      });
    });

    it('a rule that replaces another takes its place', async () => {
      const value = random();
      await awayFromMinuteEdge(10_000);
      expect((await call(descriptors({ banned: value }))).overall_code).toBe('OVER_LIMIT');
      const codes: string[] = [];
      for (let i = 0; i < 3; i++)
        codes.push((await call(descriptors({ banned: value }, { override: value }))).overall_code);
      expect(codes).toEqual(['OK', 'OK', 'OVER_LIMIT']);
    });

    it('a quota descriptor over its limit alone does not make the answer OVER_LIMIT, all of them do', async () => {
      const [spent, fresh] = [random(), random()];
      await awayFromMinuteEdge(10_000);
      await call(descriptors({ quota: spent }));
      const one = await call(descriptors({ quota: spent }, { quota: fresh }));
      expect([one.overall_code, one.statuses[0]!.code, one.statuses[1]!.code]).toEqual([
        'OK',
        'OVER_LIMIT',
        'OK',
      ]);
      const all = await call(descriptors({ quota: spent }, { quota: fresh }, { unlimited: fresh }));
      expect([all.overall_code, all.statuses[0]!.code, all.statuses[1]!.code]).toEqual([
        'OVER_LIMIT',
        'OVER_LIMIT',
        'OVER_LIMIT',
      ]);
    });

    it('adds RateLimit-* headers for the descriptor closest to its limit, and counts WEEK windows', async () => {
      const value = random();
      const answer = await call(descriptors({ week: value }, { shadow: value }));
      const reset = Number(answer.statuses[0]!.duration_until_reset!.seconds);
      expect(answer.statuses[0]).toMatchObject({
        current_limit: { requests_per_unit: 3, unit: 'WEEK' },
        limit_remaining: 2,
      });
      expect(reset).toBeGreaterThan(0);
      expect(reset).toBeLessThanOrEqual(604_800);
      expect(answer.response_headers_to_add).toEqual([
        { key: 'RateLimit-Limit', value: '1', raw_value: expect.anything() },
        { key: 'RateLimit-Remaining', value: '0', raw_value: expect.anything() },
        {
          key: 'RateLimit-Reset',
          value: String(answer.statuses[1]!.duration_until_reset!.seconds),
          raw_value: expect.anything(),
        },
      ]);
      const json = await server.json({ domain: 'features', descriptors: descriptors({ week: value }) });
      expect(JSON.parse(json.body).responseHeadersToAdd).toEqual([
        { key: 'RateLimit-Limit', value: '3' },
        { key: 'RateLimit-Remaining', value: '1' },
        { key: 'RateLimit-Reset', value: expect.stringMatching(/^\d+$/) },
      ]);
    });
  });

  describe('stats', () => {
    it('sends counters to statsd with EXTRA_TAGS, and shows them on /metrics', async () => {
      const value = random();
      for (let i = 0; i < 3; i++)
        await server.shouldRateLimit({ domain: 'basic', descriptors: descriptors({ key1: value }) as never });
      const tags = '.__a=b.__foo=bar';
      await waitFor('total_hits at the statsd listener', () =>
        received.some((line) =>
          line.startsWith(`ratelimit.service.rate_limit.basic.key1.total_hits${tags}:`),
        ),
      );
      const sum = (name: string) =>
        received
          .filter((line) => line.startsWith(`${name}${tags}:`) && line.endsWith('|c'))
          .reduce((total, line) => total + Number(line.slice(name.length + tags.length + 1, -2)), 0);
      await waitFor(
        'every hit counted at the listener',
        async () =>
          sum('ratelimit.service.rate_limit.basic.key1.total_hits') ===
          (await server.stat('ratelimit.service.rate_limit.basic.key1.total_hits')),
      );
      expect(sum('ratelimit.service.config_load_success')).toBe(1);
      expect(
        received.some((l) => l.startsWith(`ratelimit_server.ShouldRateLimit.response_time${tags}:`)),
      ).toBe(true);
      const metrics = await server.debug('/metrics');
      expect(metrics).toMatch(
        /ratelimit_service_rate_limit_total_hits\{[^}]*domain="basic",key1="key1",key2=""[^}]*\} \d+/,
      );
      expect(metrics).toMatch(/ratelimit_service_config_load_success\{[^}]*\} 1/);
      expect(metrics).toMatch(/ratelimit_config_version_info\{version="[0-9a-f]{64}"[^}]*\} 1/);
    });

    it('logs JSON lines with @timestamp, @message and level when LOG_FORMAT=json', () => {
      const line = server
        .output()
        .split('\n')
        .find((l) => l.includes('applied rate limit configuration'));
      expect(JSON.parse(line!)).toMatchObject({
        '@message': 'applied rate limit configuration',
        level: 'info',
        '@timestamp': expect.any(String),
      });
    });
  });

  describe('Redis outage', () => {
    it('fails fast with UNKNOWN while Redis is unreachable, reports it in health, and resumes by itself', async () => {
      const request = { domain: 'basic', descriptors: descriptors({ key1: random() }) as never };
      await server.shouldRateLimit(request);
      const before = await server.stat('ratelimit.service.call.should_rate_limit.redis_error');
      proxy.cut();
      const failure = await waitFor('a failing decision', async () =>
        server.shouldRateLimit(request).then(
          () => undefined,
          (e: ServiceError) => e,
        ),
      );
      expect(failure.code).toBe(GrpcStatus.UNKNOWN);
      expect(failure.details).toMatch(/^redis/);
      const json = await server.json({ domain: 'basic', descriptors: descriptors({ key1: 'x' }) });
      expect([json.status, json.body]).toEqual([400, 'Bad Request\n']);
      expect(await server.stat('ratelimit.service.call.should_rate_limit.redis_error')).toBeGreaterThan(
        before,
      );
      await waitFor('/healthcheck to fail', async () => (await server.http('/healthcheck')).status === 500);
      expect(await server.grpcHealth('ratelimit')).toBe('NOT_SERVING');

      proxy.restore();
      await waitFor('decisions to resume', async () =>
        server.shouldRateLimit(request).then(
          (answer) => answer.overall_code === 'OK',
          () => false,
        ),
      );
      await waitFor('/healthcheck to pass', async () => (await server.http('/healthcheck')).status === 200);
      expect(await server.grpcHealth('ratelimit')).toBe('SERVING');
    });
  });
});
