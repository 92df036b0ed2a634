import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { fromWireRequest } from '../../../services/ratelimit/adapters/grpc/wire.ts';
import { parseJsonRequest, toJsonResponse } from '../../../services/ratelimit/adapters/http/json-codec.ts';
import { validKey } from '../../../services/ratelimit/adapters/memcached/memcache-client.ts';
import { createImplicitPipeline } from '../../../services/ratelimit/adapters/redis/implicit-pipeline.ts';
import { parseAuth, parseHostPort } from '../../../services/ratelimit/adapters/redis/redis-client.ts';
import { createRatelimitLogger, toTextLine } from '../../../services/ratelimit/adapters/telemetry/logging.ts';
import { tagSuffix } from '../../../services/ratelimit/adapters/telemetry/statsd-sink.ts';
import { parseDescriptor, parseFlags, protoText } from '../../../services/ratelimit/cli/client.ts';
import { createStatsStore, sanitizeStatsKey } from '../../../services/ratelimit/domain/stats.ts';
import type { CounterIncrement } from '../../../services/ratelimit/ports.ts';

describe('/json codec (protojson)', () => {
  it('accepts JSON and proto field names, numbers as strings, enum names and numbers', () => {
    const request = parseJsonRequest(
      JSON.stringify({
        domain: 'd',
        hits_addend: '2',
        descriptors: [
          {
            entries: [{ key: 'k', value: 'v' }],
            limit: { requestsPerUnit: 5, unit: 'HOUR' },
            hitsAddend: '0',
          },
          { entries: [{ key: 'k' }], limit: { requests_per_unit: 1, unit: 4 }, hits_addend: null },
        ],
      }),
    );
    expect(request).toEqual({
      domain: 'd',
      hits_addend: 2,
      descriptors: [
        {
          entries: [{ key: 'k', value: 'v' }],
          limit: { requests_per_unit: 5, unit: 'HOUR' },
          hits_addend: { value: 0 },
        },
        {
          entries: [{ key: 'k', value: '' }],
          limit: { requests_per_unit: 1, unit: 'DAY' },
          hits_addend: null,
        },
      ],
    });
    expect(fromWireRequest(request).descriptors.map((d) => d.hitsAddend)).toEqual([0, undefined]);
  });

  it.each([
    ['', 'invalid /json body: Unexpected end of JSON input'],
    ['{"domain":"d","x":1}', 'unknown field "x" in the body'],
    ['{"descriptors":{}}', 'descriptors must be a list'],
    ['{"descriptors":[{"entries":[{"key":1}]}]}', 'descriptors[0].entries[0].key must be a string'],
    ['{"hitsAddend":1.5}', 'hitsAddend must be an unsigned integer'],
    ['{"descriptors":[{"limit":{"unit":"WEEK"}}]}', 'descriptors[0].limit.unit must be a RateLimitUnit name'],
    ['"text"', 'the body must be an object'],
  ])('refuses %s', (body, message) => {
    expect(() => parseJsonRequest(body)).toThrow(message);
  });

  it('refuses an override with unit UNKNOWN instead of crashing', () => {
    const wire = parseJsonRequest(
      '{"domain":"d","descriptors":[{"entries":[{"key":"k"}],"limit":{"requestsPerUnit":1}}]}',
    );
    expect(() => fromWireRequest(wire)).toThrow('descriptors[0].limit.unit must be one of SECOND');
  });

  it('writes what protojson writes: defaults left out, durations in seconds', () => {
    expect(
      JSON.parse(
        toJsonResponse({
          overallCode: 'OVER_LIMIT',
          statuses: [
            { code: 'OK', currentLimit: undefined, limitRemaining: 0, secondsUntilReset: undefined },
            {
              code: 'OVER_LIMIT',
              currentLimit: { requestsPerUnit: 0, unit: 'SECOND', name: 'n' },
              limitRemaining: 0,
              secondsUntilReset: 1,
            },
            {
              code: 'OK',
              currentLimit: { requestsPerUnit: 5, unit: 'MINUTE', name: '' },
              limitRemaining: 4,
              secondsUntilReset: 58,
            },
          ],
          headers: [{ key: 'RateLimit-Limit', value: '5' }],
        }),
      ),
    ).toEqual({
      overallCode: 'OVER_LIMIT',
      statuses: [
        { code: 'OK' },
        { code: 'OVER_LIMIT', currentLimit: { name: 'n', unit: 'SECOND' }, durationUntilReset: '1s' },
        {
          code: 'OK',
          currentLimit: { requestsPerUnit: 5, unit: 'MINUTE' },
          limitRemaining: 4,
          durationUntilReset: '58s',
        },
      ],
      responseHeadersToAdd: [{ key: 'RateLimit-Limit', value: '5' }],
    });
    expect(toJsonResponse({ overallCode: 'OK', statuses: [], headers: [] })).toBe('{"overallCode":"OK"}');
  });
});

describe('stats names', () => {
  it('sanitises keys as the reference does', () => {
    expect(sanitizeStatsKey('d.remote_address_50.0.0.5')).toBe('d.remote_address_50_0_0_5');
    expect(sanitizeStatsKey('d.k_a:b|c')).toBe('d.k_a_b_c');
  });

  it('names rule counters and splits them into Prometheus labels', () => {
    const stats = createStatsStore();
    const rule = stats.rule('dom.key1_value1.subkey1');
    expect(rule.totalHits).toMatchObject({
      name: 'ratelimit.service.rate_limit.dom.key1_value1.subkey1.total_hits',
      domain: 'dom',
      key1: 'key1_value1',
      key2: 'subkey1',
    });
    expect(stats.rule('dom.key1_value1.subkey1')).toBe(rule);
    expect(stats.domainNotFound('x').name).toBe('ratelimit.service.rate_limit.x.domain_not_found');
  });

  it('appends EXTRA_TAGS sorted by key, as gostats does', () => {
    expect(tagSuffix({ foo: 'bar', a: 'b.c:d' })).toBe('.__a=b_c_d.__foo=bar');
    expect(tagSuffix({})).toBe('');
  });
});

describe('logs', () => {
  it('writes logrus text lines', () => {
    expect(
      toTextLine('{"level":"warn","time":"2026-01-01T00:00:00.000Z","msg":"hello there","port":8080}'),
    ).toBe('time="2026-01-01T00:00:00.000Z" level=warning msg="hello there" port=8080\n');
  });

  it('writes @timestamp, @message and level with LOG_FORMAT=json', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createRatelimitLogger({ level: 'info', format: 'json' }, sink as never);
    logger.info({ port: 1 }, 'listening');
    logger.debug('hidden');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      level: 'info',
      '@timestamp': expect.any(String),
      '@message': 'listening',
      port: 1,
    });
  });
});

describe('connections', () => {
  it('reads Redis auth and addresses', () => {
    expect(parseAuth('secret')).toEqual({ password: 'secret' });
    expect(parseAuth('user:pa:ss')).toEqual({ username: 'user', password: 'pa:ss' });
    expect(parseHostPort('redis://[::1]:6380')).toEqual({ host: '::1', port: 6380 });
    expect(() => parseHostPort('nohost')).toThrow('not a host:port pair');
  });

  it('accepts memcached keys as gomemcache does', () => {
    expect(validKey('domain_key_value_1234')).toBe(true);
    expect(validKey('has space')).toBe(false);
    expect(validKey('x'.repeat(251))).toBe(false);
  });

  it('sends queued increments as one pipeline once the limit is reached', async () => {
    const batches: number[] = [];
    const send = createImplicitPipeline(
      async (items) => {
        batches.push(items.length);
        return items.map((_, i) => i + 1);
      },
      1_000,
      4,
    );
    const item = (key: string): CounterIncrement => ({ key, addend: 1, windowSeconds: 60, perSecond: false });
    const [a, b] = await Promise.all([send([item('a')]), send([item('b'), item('c')].slice(0, 1))]);
    expect([a, b, batches]).toEqual([[1], [2], [2]]);
  });

  it('fails every waiting decision when the pipeline fails', async () => {
    const send = createImplicitPipeline(async () => Promise.reject(new Error('down')), 0.1, 0);
    const item: CounterIncrement = { key: 'k', addend: 1, windowSeconds: 1, perSecond: true };
    const results = await Promise.allSettled([send([item]), send([item])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});

describe('command line client', () => {
  it('reads flags as Go does, repeatable -descriptors', () => {
    expect(
      parseFlags(['-dial_string', 'h:1', '--domain=d', '-descriptors', 'a=b,c=d', '-descriptors=e=f']),
    ).toEqual({
      dialString: 'h:1',
      domain: 'd',
      descriptors: ['a=b,c=d', 'e=f'],
    });
    expect(() => parseFlags(['-nope', 'x'])).toThrow('flag provided but not defined: -nope');
    expect(parseDescriptor('a=b,c=d')).toEqual([
      { key: 'a', value: 'b' },
      { key: 'c', value: 'd' },
    ]);
    expect(() => parseDescriptor('a=b=c')).toThrow('invalid descriptor list');
    expect(() => parseDescriptor('a')).toThrow('invalid descriptor list');
  });

  it('prints a response in text format', () => {
    expect(
      protoText({
        overall_code: 'OK',
        statuses: [
          {
            code: 'OK',
            current_limit: { name: '', requests_per_unit: 50, unit: 'SECOND' },
            limit_remaining: 49,
            duration_until_reset: { seconds: '1', nanos: 0 },
          },
        ],
        response_headers_to_add: [],
      }),
    ).toBe(
      'overall_code:OK statuses:{code:OK current_limit:{requests_per_unit:50 unit:SECOND} limit_remaining:49 duration_until_reset:{seconds:1}}',
    );
  });
});
