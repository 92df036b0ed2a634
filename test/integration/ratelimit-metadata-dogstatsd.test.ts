// RESPONSE_DYNAMIC_METADATA over gRPC and /json, and DogStatsD lines (tags, mogrifiers) at a real UDP
// listener, against the shared Redis.
import { createSocket, type Socket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRuntimeFolder, type RuntimeFolder } from '../helpers/ratelimit-runtime.ts';
import {
  awayFromMinuteEdge,
  descriptors,
  failedStart,
  type RatelimitServer,
  random,
  startRatelimitServer,
} from '../helpers/ratelimit-server.ts';
import { waitFor } from '../helpers/wait-for.ts';

const CONFIG = `domain: meta
descriptors:
  - key: service
    value: quota
    metadata:
      name: quota service
      owner:
        team: payments
    rate_limit:
      unit: minute
      requests_per_unit: 1
  - key: other
    metadata:
      name: other
      owner:
        team: search
        pager: on-call
      weight: 2
    rate_limit:
      unit: minute
      requests_per_unit: 1000
`;

describe('ratelimit dynamic metadata and DogStatsD', () => {
  const infra = inject('infra');
  let runtime: RuntimeFolder;
  let server: RatelimitServer;
  let statsd: Socket;
  const received: string[] = [];
  const prefix = `meta-${random()}:`;

  beforeAll(async () => {
    statsd = createSocket('udp4');
    statsd.on('message', (message) => received.push(...message.toString('utf8').split('\n')));
    await new Promise<void>((resolve) => statsd.bind(0, '127.0.0.1', resolve));
    runtime = await createRuntimeFolder({ 'meta.yaml': CONFIG });
    server = await startRatelimitServer({
      REDIS_URL: infra.REDIS_URL,
      RUNTIME_ROOT: runtime.root,
      RUNTIME_SUBDIRECTORY: runtime.subdirectory,
      CACHE_KEY_PREFIX: prefix,
      RESPONSE_DYNAMIC_METADATA: 'true',
      USE_STATSD: 'false',
      USE_DOG_STATSD: 'true',
      USE_DOG_STATSD_MOGRIFIERS: 'DESCRIPTOR,CONFIG',
      DOG_STATSD_MOGRIFIERS_DESCRIPTOR_PATTERN:
        '^ratelimit\\.service\\.rate_limit\\.([^.]+)\\.(.*)\\.([^.]+)$',
      DOG_STATSD_MOGRIFIERS_DESCRIPTOR_NAME: 'ratelimit.service.rate_limit.$3',
      DOG_STATSD_MOGRIFIERS_DESCRIPTOR_TAGS: 'domain:$1,descriptor:$2',
      DOG_STATSD_MOGRIFIERS_CONFIG_PATTERN: '^ratelimit\\.service\\.(config_load_success)$',
      DOG_STATSD_MOGRIFIERS_CONFIG_NAME: 'ratelimit.config.$1',
      STATSD_HOST: '127.0.0.1',
      STATSD_PORT: String(statsd.address().port),
      STATS_FLUSH_INTERVAL: '100ms',
      EXTRA_TAGS: 'pod:p1',
    });
  });
  afterAll(async () => {
    await server?.stop();
    statsd?.close();
    await runtime?.cleanup();
  });

  it('gRPC: the request and the merged metadata of the descriptors not over their limit', async () => {
    await awayFromMinuteEdge(10_000);
    const quota = `quota`;
    const value = random();
    const call = () =>
      server.shouldRateLimit({
        domain: 'meta',
        hits_addend: 3,
        descriptors: [
          { entries: [{ key: 'service', value: quota }] },
          { entries: [{ key: 'other', value }], hits_addend: { value: 1 } },
          // An override: limited, but by no configured descriptor, so no metadata of its own.
          { entries: [{ key: 'plain', value }], limit: { requests_per_unit: 7, unit: 'HOUR' } },
        ] as never,
      });
    // service=quota is shared by every run: first make sure it is over this minute.
    const first = (await call()) as unknown as {
      dynamic_metadata: unknown;
      statuses: Array<{ code: string }>;
    };
    expect(first.statuses[0]!.code).toBe('OVER_LIMIT');
    const struct = (fields: Record<string, unknown>) => ({ fields });
    const text = (stringValue: string) => ({ stringValue, kind: 'stringValue' });
    const number = (numberValue: number) => ({ numberValue, kind: 'numberValue' });
    expect(first.dynamic_metadata).toEqual(
      struct({
        domain: text('meta'),
        hitsAddend: number(3),
        descriptors: {
          kind: 'listValue',
          listValue: {
            values: [
              {
                kind: 'structValue',
                structValue: struct({
                  entries: { kind: 'listValue', listValue: { values: [text('service=quota')] } },
                }),
              },
              {
                kind: 'structValue',
                structValue: struct({
                  entries: { kind: 'listValue', listValue: { values: [text(`other=${value}`)] } },
                  hitsAddend: number(1),
                }),
              },
              {
                kind: 'structValue',
                structValue: struct({
                  entries: { kind: 'listValue', listValue: { values: [text(`plain=${value}`)] } },
                  limit: text('requests_per_unit:7 unit:HOUR'),
                }),
              },
            ],
          },
        },
        // Only `other` has metadata and is under its limit: its metadata alone.
        metadata: {
          kind: 'structValue',
          structValue: struct({
            name: text('other'),
            owner: {
              kind: 'structValue',
              structValue: struct({ team: text('search'), pager: text('on-call') }),
            },
            weight: number(2),
          }),
        },
      }),
    );
  });

  it('/json: the metadata of several descriptors under their limits merges, first value wins', async () => {
    await awayFromMinuteEdge(10_000);
    const res = await server.json({
      domain: 'meta',
      descriptors: [
        { entries: [{ key: 'other', value: random() }] },
        { entries: [{ key: 'other', value: 'x' }] },
      ],
    });
    const body = JSON.parse(res.body) as { dynamicMetadata: Record<string, unknown> };
    expect(body.dynamicMetadata.metadata).toEqual({
      name: 'other',
      owner: { team: 'search', pager: 'on-call' },
      weight: 2,
    });
    expect(body.dynamicMetadata.domain).toBe('meta');
    expect(body.dynamicMetadata).not.toHaveProperty('hitsAddend');
  });

  it('DogStatsD: a mogrified name with its tags and EXTRA_TAGS as tags; unmatched names keep theirs', async () => {
    await server.shouldRateLimit({ domain: 'meta', descriptors: descriptors({ other: random() }) as never });
    const mogrified = await waitFor('a mogrified total_hits line of `other`', () =>
      received.find((l) => l.startsWith('ratelimit.service.rate_limit.total_hits:') && l.endsWith(':other')),
    );
    expect(mogrified).toMatch(
      /^ratelimit\.service\.rate_limit\.total_hits:\d+\|c\|#pod:p1,domain:meta,descriptor:other$/,
    );
    const config = await waitFor('the config load line', () =>
      received.find((l) => l.startsWith('ratelimit.config.config_load_success:')),
    );
    expect(config).toBe('ratelimit.config.config_load_success:1|c|#pod:p1');
    const plain = await waitFor('a response time line', () =>
      received.find((l) => l.startsWith('ratelimit_server.ShouldRateLimit.response_time:')),
    );
    expect(plain).toMatch(/^ratelimit_server\.ShouldRateLimit\.response_time:\d+\|ms(\|@[\d.]+)?\|#pod:p1$/);
    expect(received.some((l) => l.includes('.__pod='))).toBe(false);
  });

  it('a mogrifier listed without its variables, or with a bad pattern, stops the start naming them', async () => {
    const failed = await failedStart(
      {
        REDIS_URL: infra.REDIS_URL,
        RUNTIME_ROOT: runtime.root,
        RUNTIME_SUBDIRECTORY: runtime.subdirectory,
        USE_DOG_STATSD: 'true',
        USE_DOG_STATSD_MOGRIFIERS: 'A,B',
        DOG_STATSD_MOGRIFIERS_B_PATTERN: '(',
        DOG_STATSD_MOGRIFIERS_B_NAME: 'x',
      },
      { readyTimeoutMs: 10_000 },
    );
    expect(failed).toContain('DOG_STATSD_MOGRIFIERS_A_PATTERN must be set');
    expect(failed).toContain('DOG_STATSD_MOGRIFIERS_A_NAME must be set');
    expect(failed).toContain('DOG_STATSD_MOGRIFIERS_B_PATTERN="(" is not allowed: a regular expression');
    expect(failed).toContain('exited with code 2');
  });
});
