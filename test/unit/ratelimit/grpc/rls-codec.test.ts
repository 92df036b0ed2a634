// The hand-written RLS codec against protobufjs (through @grpc/proto-loader, as clients encode and
// decode): requests it writes decode to the service's request, decisions encode to what it reads.
import { loadSync } from '@grpc/proto-loader';
import { describe, expect, it } from 'vitest';
import {
  decodeRateLimitRequest,
  encodeRateLimitResponse,
} from '../../../../services/ratelimit/adapters/grpc/rls-codec.ts';
import { RLS_PROTO } from '../../../../services/ratelimit/adapters/grpc/rls-method.ts';
import type { Decision } from '../../../../services/ratelimit/domain/decision.ts';
import { PROTO_LOADER_OPTIONS, PROTO_ROOT } from '../../../../shared/grpc.ts';
import { ProtobufError } from '../../../../shared/protobuf/wire.ts';

const definition = loadSync(`${PROTO_ROOT}/${RLS_PROTO}`, {
  ...PROTO_LOADER_OPTIONS,
  includeDirs: [PROTO_ROOT],
});
const method = (definition['envoy.service.ratelimit.v3.RateLimitService'] as Record<string, never>)
  .ShouldRateLimit as unknown as {
  requestSerialize(value: unknown): Buffer;
  responseDeserialize(bytes: Buffer): unknown;
};

describe('RateLimitRequest decoding', () => {
  it('reads what a protobufjs client writes', () => {
    const bytes = method.requestSerialize({
      domain: 'edge-ünï',
      hits_addend: 3,
      descriptors: [
        {
          entries: [
            { key: 'k', value: 'v' },
            { key: 'user', value: '' },
          ],
          limit: { requests_per_unit: 7, unit: 'HOUR' },
          hits_addend: { value: 12 },
        },
        { entries: [{ key: 'a', value: 'b' }], hits_addend: { value: 0 } },
        { entries: [] },
      ],
    });
    expect(decodeRateLimitRequest(bytes)).toEqual({
      domain: 'edge-ünï',
      hitsAddend: 3,
      descriptors: [
        {
          entries: [
            { key: 'k', value: 'v' },
            { key: 'user', value: '' },
          ],
          limit: { requestsPerUnit: 7, unit: 'HOUR' },
          hitsAddend: 12,
        },
        { entries: [{ key: 'a', value: 'b' }], limit: undefined, hitsAddend: 0 },
        { entries: [], limit: undefined, hitsAddend: undefined },
      ],
    });
  });

  it('skips fields it does not know', () => {
    // field 9 (varint 1) and field 10 (bytes "x") before the domain
    const bytes = Buffer.concat([
      Buffer.from([0x48, 0x01, 0x52, 0x01, 0x78]),
      method.requestSerialize({ domain: 'd' }),
    ]);
    expect(decodeRateLimitRequest(bytes).domain).toBe('d');
  });

  it('refuses an override unit a request may not use, naming the descriptor', () => {
    const bytes = method.requestSerialize({
      domain: 'd',
      descriptors: [{ entries: [] }, { entries: [], limit: { requests_per_unit: 1 } }],
    });
    expect(() => decodeRateLimitRequest(bytes)).toThrow(
      'descriptors[1].limit.unit must be one of SECOND, MINUTE, HOUR, DAY, MONTH, YEAR, not UNKNOWN',
    );
  });

  it('skips unknown groups, nested ones too, and reads a tag or a 32-bit field from the low 32 bits of its varint', () => {
    const group = [0x5b, 0x63, 0x08, 0x01, 0x64, 0x5c]; // field 11: a group holding a group holding a varint
    const tag = [0x8a, 0x80, 0x80, 0x80, 0x10]; // 0x10000000a: field 1 (domain), length-delimited
    const hits = [0x18, 0x85, 0x80, 0x80, 0x80, 0xf0, 0xff, 0xff, 0xff, 0xff, 0x01]; // 5 in a 10-byte varint
    const bytes = Buffer.from([...group, ...tag, 0x01, 0x64, ...hits]);
    expect(decodeRateLimitRequest(bytes)).toEqual({ domain: 'd', descriptors: [], hitsAddend: 5 });
  });

  it.each([
    [[0x0a, 0x05, 0x61], 'truncated length-delimited field'],
    [[0x18, 0x80], 'truncated varint'],
    [[0x1b], 'truncated varint'], // a group never ended
    [[0x1f], 'wire type 7 is not supported'],
    [[0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02], 'varint over 64 bits'],
  ])('refuses malformed bytes %j: %s', (bytes, message) => {
    expect(() => decodeRateLimitRequest(Buffer.from(bytes))).toThrow(new ProtobufError(message));
  });
});

describe('RateLimitResponse encoding', () => {
  const decode = (decision: Decision) =>
    method.responseDeserialize(encodeRateLimitResponse(decision, 5).subarray(5));

  it('writes statuses, limits, resets and headers as protobufjs reads them', () => {
    expect(
      decode({
        overallCode: 'OVER_LIMIT',
        statuses: [
          { code: 'OK', currentLimit: undefined, limitRemaining: 0, secondsUntilReset: undefined },
          {
            code: 'OVER_LIMIT',
            currentLimit: { requestsPerUnit: 10, unit: 'WEEK', name: 'named ✓' },
            limitRemaining: 0,
            secondsUntilReset: 0,
          },
          {
            code: 'OK',
            currentLimit: { requestsPerUnit: 4_000_000_000, unit: 'SECOND', name: '' },
            limitRemaining: 3_999_999_999,
            secondsUntilReset: 86_400,
          },
        ],
        headers: [{ key: 'X-RateLimit-Limit', value: '10, 10;w=60' }],
      }),
    ).toMatchObject({
      overall_code: 'OVER_LIMIT',
      statuses: [
        { code: 'OK', current_limit: null, limit_remaining: 0, duration_until_reset: null },
        {
          code: 'OVER_LIMIT',
          current_limit: { requests_per_unit: 10, unit: 'WEEK', name: 'named ✓' },
          limit_remaining: 0,
          duration_until_reset: { seconds: '0', nanos: 0 },
        },
        {
          code: 'OK',
          current_limit: { requests_per_unit: 4_000_000_000, unit: 'SECOND', name: '' },
          limit_remaining: 3_999_999_999,
          duration_until_reset: { seconds: '86400', nanos: 0 },
        },
      ],
      response_headers_to_add: [{ key: 'X-RateLimit-Limit', value: '10, 10;w=60' }],
      dynamic_metadata: null,
    });
  });

  it('writes dynamic metadata as a google.protobuf.Struct', () => {
    const reply = decode({
      overallCode: 'OK',
      statuses: [],
      headers: [],
      dynamicMetadata: { domain: 'd', n: 1.5, off: false, none: null, list: ['a', 2], nested: { k: 'v' } },
    }) as { dynamic_metadata: unknown };
    expect(reply.dynamic_metadata).toEqual({
      fields: {
        domain: { stringValue: 'd', kind: 'stringValue' },
        n: { numberValue: 1.5, kind: 'numberValue' },
        off: { boolValue: false, kind: 'boolValue' },
        none: { nullValue: 'NULL_VALUE', kind: 'nullValue' },
        list: {
          listValue: {
            values: [
              { stringValue: 'a', kind: 'stringValue' },
              { numberValue: 2, kind: 'numberValue' },
            ],
          },
          kind: 'listValue',
        },
        nested: {
          structValue: { fields: { k: { stringValue: 'v', kind: 'stringValue' } } },
          kind: 'structValue',
        },
      },
    });
  });
});
