// envoy.service.ratelimit.v3 RateLimitRequest and RateLimitResponse in protobuf, written for these two
// messages: the request decodes straight into the service's DecisionRequest, the decision encodes
// straight into the response. Field numbers come from RATE_LIMIT_REQUEST_SCHEMA and
// RATE_LIMIT_RESPONSE_SCHEMA, which test/unit/shared/protobuf-schemas.test.ts checks against
// proto/envoy/service/ratelimit/v3/rls.proto.

import {
  fieldNumbers,
  requireOneByteTags,
  type SchemaDeclaration,
} from '../../../../shared/protobuf/schema.ts';
import {
  MAP_ENTRY,
  oneByteTag,
  ProtobufReader,
  ProtobufWriter,
  tagOf,
  varintSize,
  WIRE,
} from '../../../../shared/protobuf/wire.ts';
import type { MetadataValue } from '../../config/index.ts';
import type { Decision, DecisionRequest, DescriptorInput, DescriptorStatus } from '../../domain/decision.ts';
import { limitOverride } from './wire.ts';

/** envoy.type.v3.RateLimitUnit, the unit a request's limit override names. */
const OVERRIDE_UNIT_NAMES = ['UNKNOWN', 'SECOND', 'MINUTE', 'HOUR', 'DAY', 'MONTH', 'YEAR'];
/** RateLimitResponse.RateLimit.Unit (WEEK is 7). */
const RESPONSE_UNIT: Readonly<Record<string, number>> = {
  SECOND: 1,
  MINUTE: 2,
  HOUR: 3,
  DAY: 4,
  MONTH: 5,
  YEAR: 6,
  WEEK: 7,
};
const CODE = { OK: 1, OVER_LIMIT: 2 } as const;

/** What the request reader reads of rls.proto (and the files it imports). */
export const RATE_LIMIT_REQUEST_SCHEMA = {
  'envoy.service.ratelimit.v3.RateLimitRequest': {
    domain: [1, 'string'],
    descriptors: [2, 'repeated envoy.extensions.common.ratelimit.v3.RateLimitDescriptor'],
    hits_addend: [3, 'uint32'],
  },
  'envoy.extensions.common.ratelimit.v3.RateLimitDescriptor': {
    entries: [1, 'repeated envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry'],
    limit: [2, 'envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride'],
    hits_addend: [3, 'google.protobuf.UInt64Value'],
  },
  'envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry': {
    key: [1, 'string'],
    value: [2, 'string'],
  },
  'envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride': {
    requests_per_unit: [1, 'uint32'],
    unit: [2, 'envoy.type.v3.RateLimitUnit'],
  },
  'google.protobuf.UInt64Value': { value: [1, 'uint64'] },
} as const satisfies SchemaDeclaration;

/** What the response writer writes of rls.proto (and the files it imports). */
export const RATE_LIMIT_RESPONSE_SCHEMA = {
  'envoy.service.ratelimit.v3.RateLimitResponse': {
    overall_code: [1, 'envoy.service.ratelimit.v3.RateLimitResponse.Code'],
    statuses: [2, 'repeated envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus'],
    response_headers_to_add: [3, 'repeated envoy.config.core.v3.HeaderValue'],
    dynamic_metadata: [6, 'google.protobuf.Struct'],
  },
  'envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus': {
    code: [1, 'envoy.service.ratelimit.v3.RateLimitResponse.Code'],
    current_limit: [2, 'envoy.service.ratelimit.v3.RateLimitResponse.RateLimit'],
    limit_remaining: [3, 'uint32'],
    duration_until_reset: [4, 'google.protobuf.Duration'],
  },
  'envoy.service.ratelimit.v3.RateLimitResponse.RateLimit': {
    name: [3, 'string'],
    requests_per_unit: [1, 'uint32'],
    unit: [2, 'envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.Unit'],
  },
  'google.protobuf.Duration': { seconds: [1, 'int64'] },
  'envoy.config.core.v3.HeaderValue': { key: [1, 'string'], value: [2, 'string'] },
  'google.protobuf.Struct': { fields: [1, 'map<string, google.protobuf.Value>'] },
  'google.protobuf.Value': {
    null_value: [1, 'google.protobuf.NullValue'],
    number_value: [2, 'double'],
    string_value: [3, 'string'],
    bool_value: [4, 'bool'],
    struct_value: [5, 'google.protobuf.Struct'],
    list_value: [6, 'google.protobuf.ListValue'],
  },
  'google.protobuf.ListValue': { values: [1, 'repeated google.protobuf.Value'] },
} as const satisfies SchemaDeclaration;

const REQUEST = fieldNumbers(RATE_LIMIT_REQUEST_SCHEMA['envoy.service.ratelimit.v3.RateLimitRequest']);
const DESCRIPTOR = fieldNumbers(
  RATE_LIMIT_REQUEST_SCHEMA['envoy.extensions.common.ratelimit.v3.RateLimitDescriptor'],
);
const ENTRY = fieldNumbers(
  RATE_LIMIT_REQUEST_SCHEMA['envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry'],
);
const OVERRIDE = fieldNumbers(
  RATE_LIMIT_REQUEST_SCHEMA['envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride'],
);
const UINT64_VALUE = fieldNumbers(RATE_LIMIT_REQUEST_SCHEMA['google.protobuf.UInt64Value']);
/** The tags the request reader takes (a known field with another wire type is skipped). */
const DOMAIN_TAG = tagOf(REQUEST.domain, WIRE.bytes);
const DESCRIPTORS_TAG = tagOf(REQUEST.descriptors, WIRE.bytes);
const HITS_ADDEND_TAG = tagOf(REQUEST.hits_addend, WIRE.varint);
const ENTRIES_TAG = tagOf(DESCRIPTOR.entries, WIRE.bytes);
const LIMIT_TAG = tagOf(DESCRIPTOR.limit, WIRE.bytes);
const DESCRIPTOR_HITS_ADDEND_TAG = tagOf(DESCRIPTOR.hits_addend, WIRE.bytes);
const ENTRY_KEY_TAG = tagOf(ENTRY.key, WIRE.bytes);
const ENTRY_VALUE_TAG = tagOf(ENTRY.value, WIRE.bytes);
const REQUESTS_PER_UNIT_TAG = tagOf(OVERRIDE.requests_per_unit, WIRE.varint);
const UNIT_TAG = tagOf(OVERRIDE.unit, WIRE.varint);
const UINT64_VALUE_TAG = tagOf(UINT64_VALUE.value, WIRE.varint);

const RESPONSE = fieldNumbers(RATE_LIMIT_RESPONSE_SCHEMA['envoy.service.ratelimit.v3.RateLimitResponse']);
const STATUS = fieldNumbers(
  RATE_LIMIT_RESPONSE_SCHEMA['envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus'],
);
const RATE_LIMIT = fieldNumbers(
  RATE_LIMIT_RESPONSE_SCHEMA['envoy.service.ratelimit.v3.RateLimitResponse.RateLimit'],
);
const DURATION = fieldNumbers(RATE_LIMIT_RESPONSE_SCHEMA['google.protobuf.Duration']);
const HEADER = fieldNumbers(RATE_LIMIT_RESPONSE_SCHEMA['envoy.config.core.v3.HeaderValue']);
const STRUCT = fieldNumbers(RATE_LIMIT_RESPONSE_SCHEMA['google.protobuf.Struct']);
const VALUE = fieldNumbers(RATE_LIMIT_RESPONSE_SCHEMA['google.protobuf.Value']);
const LIST_VALUE = fieldNumbers(RATE_LIMIT_RESPONSE_SCHEMA['google.protobuf.ListValue']);
// The writer counts one byte for each tag it writes (`field`, `varintField`, the sizes below).
requireOneByteTags(RATE_LIMIT_RESPONSE_SCHEMA);
const NULL_VALUE_TAG = oneByteTag(VALUE.null_value, WIRE.varint);
const BOOL_VALUE_TAG = oneByteTag(VALUE.bool_value, WIRE.varint);

export function decodeRateLimitRequest(bytes: Uint8Array): DecisionRequest {
  const reader = new ProtobufReader(bytes);
  let domain = '';
  let hitsAddend = 0;
  const descriptors: DescriptorInput[] = [];
  while (!reader.done()) {
    const tag = reader.tag();
    if (tag === DOMAIN_TAG) domain = reader.string();
    else if (tag === DESCRIPTORS_TAG)
      descriptors.push(decodeDescriptor(reader.message(), descriptors.length));
    else if (tag === HITS_ADDEND_TAG) hitsAddend = reader.uint32();
    else reader.skip(tag & 7);
  }
  return { domain, descriptors, hitsAddend };
}

function decodeDescriptor(reader: ProtobufReader, index: number): DescriptorInput {
  const entries: Array<{ key: string; value: string }> = [];
  // A message field seen twice is merged (the protobuf encoding's rule): the override's fields
  // are gathered over every occurrence and checked once, after the descriptor.
  let limitSeen = false;
  let requestsPerUnit = 0;
  let unit = 0;
  let hitsAddend: number | undefined;
  while (!reader.done()) {
    const tag = reader.tag();
    if (tag === ENTRIES_TAG) {
      const entry = reader.message();
      let key = '';
      let value = '';
      while (!entry.done()) {
        const t = entry.tag();
        if (t === ENTRY_KEY_TAG) key = entry.string();
        else if (t === ENTRY_VALUE_TAG) value = entry.string();
        else entry.skip(t & 7);
      }
      entries.push({ key, value });
    } else if (tag === LIMIT_TAG) {
      limitSeen = true;
      const override = reader.message();
      while (!override.done()) {
        const t = override.tag();
        if (t === REQUESTS_PER_UNIT_TAG) requestsPerUnit = override.uint32();
        else if (t === UNIT_TAG)
          unit = override.uint32() | 0; // an enum is an int32
        else override.skip(t & 7);
      }
    } else if (tag === DESCRIPTOR_HITS_ADDEND_TAG) {
      // google.protobuf.UInt64Value: present means set, its value 0 when absent.
      const wrapper = reader.message();
      hitsAddend ??= 0;
      while (!wrapper.done()) {
        const t = wrapper.tag();
        if (t === UINT64_VALUE_TAG) hitsAddend = wrapper.varint();
        else wrapper.skip(t & 7);
      }
    } else reader.skip(tag & 7);
  }
  const limit = limitSeen
    ? limitOverride(index, requestsPerUnit, OVERRIDE_UNIT_NAMES[unit] ?? String(unit))
    : undefined;
  return { entries, limit, hitsAddend };
}

/** The response as one buffer with `prefix` bytes free in front (the gRPC frame header). */
export function encodeRateLimitResponse(decision: Decision, prefix: number): Buffer {
  const statuses = decision.statuses.map(statusLayout);
  const headers = decision.headers.map((h) => {
    const key = Buffer.byteLength(h.key);
    const value = Buffer.byteLength(h.value);
    return { key, value, size: field(key) + field(value) };
  });
  const metadata =
    decision.dynamicMetadata === undefined ? undefined : encodeStruct(decision.dynamicMetadata);
  let size = 2; // overall_code
  for (const s of statuses) size += 1 + varintSize(s.size) + s.size;
  for (const h of headers) size += 1 + varintSize(h.size) + h.size;
  if (metadata !== undefined) size += 1 + varintSize(metadata.length) + metadata.length;

  const out = new ProtobufWriter(Buffer.allocUnsafe(prefix + size), prefix);
  out.tag(RESPONSE.overall_code, WIRE.varint);
  out.varint(CODE[decision.overallCode]);
  for (let i = 0; i < statuses.length; i++) writeStatus(out, decision.statuses[i]!, statuses[i]!);
  decision.headers.forEach((header, i) => {
    const layout = headers[i]!;
    out.tag(RESPONSE.response_headers_to_add, WIRE.bytes);
    out.varint(layout.size);
    out.string(HEADER.key, header.key, layout.key);
    out.string(HEADER.value, header.value, layout.value);
  });
  if (metadata !== undefined) {
    out.tag(RESPONSE.dynamic_metadata, WIRE.bytes);
    out.varint(metadata.length);
    metadata.copy(out.bytes, out.at);
  }
  return out.bytes;
}

/** Bytes of a length-delimited field of `length` bytes (its field number below 16). */
const field = (length: number): number => 1 + varintSize(length) + length;
/** Bytes of a varint field, 0 when proto3 leaves it out (its value is 0). */
const varintField = (value: number): number => (value === 0 ? 0 : 1 + varintSize(value));

interface StatusLayout {
  readonly size: number;
  readonly limit: number;
  readonly name: number;
  readonly reset: number;
}

function statusLayout(status: DescriptorStatus): StatusLayout {
  let size = 2; // code
  let limit = 0;
  let name = 0;
  const current = status.currentLimit;
  if (current !== undefined) {
    name = Buffer.byteLength(current.name);
    limit =
      (name === 0 ? 0 : field(name)) +
      varintField(current.requestsPerUnit) +
      varintField(RESPONSE_UNIT[current.unit] ?? 0);
    size += field(limit);
  }
  size += varintField(status.limitRemaining);
  const reset = status.secondsUntilReset === undefined ? -1 : varintField(status.secondsUntilReset);
  if (reset >= 0) size += field(reset);
  return { size, limit, name, reset };
}

function writeStatus(out: ProtobufWriter, status: DescriptorStatus, layout: StatusLayout): void {
  out.tag(RESPONSE.statuses, WIRE.bytes);
  out.varint(layout.size);
  out.tag(STATUS.code, WIRE.varint);
  out.varint(CODE[status.code]);
  const current = status.currentLimit;
  if (current !== undefined) {
    out.tag(STATUS.current_limit, WIRE.bytes);
    out.varint(layout.limit);
    if (current.requestsPerUnit !== 0) {
      out.tag(RATE_LIMIT.requests_per_unit, WIRE.varint);
      out.varint(current.requestsPerUnit);
    }
    const unit = RESPONSE_UNIT[current.unit] ?? 0;
    if (unit !== 0) {
      out.tag(RATE_LIMIT.unit, WIRE.varint);
      out.varint(unit);
    }
    if (layout.name !== 0) out.string(RATE_LIMIT.name, current.name, layout.name);
  }
  if (status.limitRemaining !== 0) {
    out.tag(STATUS.limit_remaining, WIRE.varint);
    out.varint(status.limitRemaining);
  }
  if (layout.reset >= 0) {
    out.tag(STATUS.duration_until_reset, WIRE.bytes);
    out.varint(layout.reset);
    if (status.secondsUntilReset !== 0) {
      out.tag(DURATION.seconds, WIRE.varint);
      out.varint(status.secondsUntilReset!);
    }
  }
}

/** google.protobuf.Struct (dynamic metadata: rare, small; encoded part by part). */
function encodeStruct(struct: { readonly [key: string]: MetadataValue }): Buffer {
  const parts: Buffer[] = [];
  for (const [key, value] of Object.entries(struct)) {
    const entry = Buffer.concat([
      stringField(MAP_ENTRY.key, key),
      messageField(MAP_ENTRY.value, encodeValue(value)),
    ]);
    parts.push(messageField(STRUCT.fields, entry));
  }
  return Buffer.concat(parts);
}

function encodeValue(value: MetadataValue): Buffer {
  if (value === null) return Buffer.from([NULL_VALUE_TAG, 0x00]);
  if (typeof value === 'number') {
    const out = new ProtobufWriter(Buffer.allocUnsafe(9));
    out.double(VALUE.number_value, value);
    return out.bytes;
  }
  if (typeof value === 'string') return stringField(VALUE.string_value, value);
  if (typeof value === 'boolean') return Buffer.from([BOOL_VALUE_TAG, value ? 1 : 0]);
  if (Array.isArray(value))
    return messageField(
      VALUE.list_value,
      Buffer.concat(value.map((v) => messageField(LIST_VALUE.values, encodeValue(v)))),
    );
  return messageField(VALUE.struct_value, encodeStruct(value as { readonly [key: string]: MetadataValue }));
}

function stringField(number: number, text: string): Buffer {
  return messageField(number, Buffer.from(text, 'utf8'));
}

function messageField(number: number, body: Buffer): Buffer {
  const out = new ProtobufWriter(Buffer.allocUnsafe(10 + body.length));
  out.tag(number, WIRE.bytes);
  out.varint(body.length);
  body.copy(out.bytes, out.at);
  return out.bytes.subarray(0, out.at + body.length);
}
