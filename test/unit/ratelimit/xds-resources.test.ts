// The xDS client's pure parts: RateLimitConfig resources (encoded from rls_conf.proto) become
// configuration files the loader reads like YAML ones, and the reconnect delays.
import { describe, expect, it } from 'vitest';
import {
  backoffDelayMs,
  connectRetryDelayMs,
} from '../../../services/ratelimit/adapters/config/xds-backoff.ts';
import { loadConfig } from '../../../services/ratelimit/config/index.ts';
import { rateLimitConfigToFile, rateLimitConfigType } from '../../../services/ratelimit/config/xds.ts';

const encode = (resource: Record<string, unknown>): Uint8Array => {
  const type = rateLimitConfigType();
  return type.encode(type.fromObject(resource)).finish();
};

describe('RateLimitConfig resources', () => {
  it('load like the same YAML: units, nesting, replaces, shadow mode, detailed metric, metadata', () => {
    const file = rateLimitConfigToFile(
      encode({
        name: 'mesh-config',
        domain: 'mesh',
        descriptors: [
          {
            key: 'client',
            value: 'yes',
            descriptors: [
              {
                key: 'path',
                rate_limit: { unit: 'MINUTE', requests_per_unit: 5, name: 'narrow' },
                detailed_metric: true,
              },
            ],
          },
          {
            key: 'any',
            rate_limit: { unit: 'WEEK', requests_per_unit: 9, replaces: [{ name: 'narrow' }] },
            shadow_mode: true,
            metadata: { fields: { team: { stringValue: 'edge' }, weight: { numberValue: 2 } } },
          },
          { key: 'free', rate_limit: { unlimited: true } },
        ],
      }),
    );
    expect(file.name).toBe('mesh-config');
    const yaml = loadConfig(
      [
        {
          name: 'same.yaml',
          text: `domain: mesh
descriptors:
  - key: client
    value: "yes"
    descriptors:
      - key: path
        detailed_metric: true
        rate_limit: {unit: minute, requests_per_unit: 5, name: narrow}
  - key: any
    shadow_mode: true
    metadata: {team: edge, weight: 2}
    rate_limit: {unit: week, requests_per_unit: 9, replaces: [{name: narrow}]}
  - key: free
    rate_limit: {unlimited: true}
`,
        },
      ],
      { mergeDomainConfig: false },
    );
    expect(loadConfig([file], { mergeDomainConfig: false }).dump()).toBe(yaml.dump());
  });

  it('fails to load a limited policy of unit UNKNOWN, naming the resource', () => {
    const file = rateLimitConfigToFile(
      encode({ name: 'bad', domain: 'd', descriptors: [{ key: 'k', rate_limit: { requests_per_unit: 1 } }] }),
    );
    expect(() => loadConfig([file], { mergeDomainConfig: false })).toThrow(
      /^bad: .*invalid rate limit unit 'UNKNOWN'/,
    );
  });
});

describe('reconnect delays', () => {
  const backoff = { initialMs: 10_000, maxMs: 60_000, factor: 0.5, jitter: true };
  it("stay at the initial interval with the reference's factor 0.5 (jpillora/backoff clamps to min)", () => {
    for (const attempt of [0, 1, 5]) expect(backoffDelayMs(attempt, backoff, () => 0.9)).toBe(10_000);
  });
  it('grow by the factor up to the maximum, jittered between min and the grown delay', () => {
    const grow = { initialMs: 100, maxMs: 1_000, factor: 2, jitter: false };
    expect([0, 1, 2, 3, 4, 10].map((a) => backoffDelayMs(a, grow, Math.random))).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
    expect(backoffDelayMs(2, { ...grow, jitter: true }, () => 0.5)).toBe(250);
  });
  it('retry the first connection at the interval ±50%', () => {
    expect(connectRetryDelayMs(3_000, () => 0)).toBe(1_500);
    expect(connectRetryDelayMs(3_000, () => 1)).toBe(4_500);
  });
});
