import { describe, expect, it } from 'vitest';
import type { RateLimitRule } from '../../../services/ratelimit/config/index.ts';
import type { Check, DescriptorStatus } from '../../../services/ratelimit/domain/decision.ts';
import { dynamicMetadata } from '../../../services/ratelimit/domain/dynamic-metadata.ts';

const limited = (metadata: RateLimitRule['metadata']): Check =>
  ({ kind: 'limit', rule: { metadata } as RateLimitRule, stats: {}, key: {}, addend: 1 }) as unknown as Check;
const status = (code: 'OK' | 'OVER_LIMIT'): DescriptorStatus => ({
  code,
  currentLimit: undefined,
  limitRemaining: 0,
  secondsUntilReset: undefined,
});

describe('dynamic metadata', () => {
  it('merges the metadata of descriptors not over their limit: first value wins, nested maps merge', () => {
    const request = {
      domain: 'd',
      hitsAddend: 0,
      descriptors: [
        { entries: [{ key: 'a', value: '1' }], hitsAddend: undefined },
        { entries: [{ key: 'b', value: '2' }], hitsAddend: 0 },
        { entries: [{ key: 'c', value: '3' }], hitsAddend: undefined },
        { entries: [], hitsAddend: undefined },
      ],
    };
    const checks = [
      limited({ name: 'first', owner: { team: 'a' }, list: [1] }),
      limited({ name: 'over', secret: true }),
      limited({ name: 'second', owner: { team: 'b', pager: 'x' }, list: [2], extra: null }),
      { kind: 'none' } as Check,
    ];
    expect(
      dynamicMetadata(request, checks, [status('OK'), status('OVER_LIMIT'), status('OK'), status('OK')]),
    ).toEqual({
      domain: 'd',
      descriptors: [
        { entries: ['a=1'] },
        { entries: ['b=2'], hitsAddend: 0 },
        { entries: ['c=3'] },
        { entries: [] },
      ],
      metadata: { name: 'first', owner: { team: 'a', pager: 'x' }, list: [1], extra: null },
    });
  });

  it('has no metadata field when no descriptor under its limit has any', () => {
    const request = { domain: 'd', hitsAddend: 2, descriptors: [{ entries: [], hitsAddend: undefined }] };
    expect(dynamicMetadata(request, [limited(undefined)], [status('OK')])).toEqual({
      domain: 'd',
      descriptors: [{ entries: [] }],
      hitsAddend: 2,
    });
  });
});
