// envoy.service.ratelimit.v3 RateLimitRequest and RateLimitResponse in protobuf, written for these two
// messages (field numbers from proto/envoy/service/ratelimit/v3/rls.proto): the request decodes
// straight into the service's DecisionRequest, the decision encodes straight into the response.

import { ProtobufReader, ProtobufWriter, varintSize, WIRE } from '../../../../shared/protobuf/wire.ts';
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

export function decodeRateLimitRequest(bytes: Uint8Array): DecisionRequest {
  const reader = new ProtobufReader(bytes);
  let domain = '';
  let hitsAddend = 0;
  const descriptors: DescriptorInput[] = [];
  while (!reader.done()) {
    const tag = reader.tag();
    if (tag === 0x0a) domain = reader.string();
    else if (tag === 0x12) descriptors.push(decodeDescriptor(reader.message(), descriptors.length));
    else if (tag === 0x18) hitsAddend = reader.uint32();
    else reader.skip(tag & 7);
  }
  return { domain, descriptors, hitsAddend };
}

function decodeDescriptor(reader: ProtobufReader, index: number): DescriptorInput {
  const entries: Array<{ key: string; value: string }> = [];
  let limit: DescriptorInput['limit'];
  let hitsAddend: number | undefined;
  while (!reader.done()) {
    const tag = reader.tag();
    if (tag === 0x0a) {
      const entry = reader.message();
      let key = '';
      let value = '';
      while (!entry.done()) {
        const t = entry.tag();
        if (t === 0x0a) key = entry.string();
        else if (t === 0x12) value = entry.string();
        else entry.skip(t & 7);
      }
      entries.push({ key, value });
    } else if (tag === 0x12) {
      const override = reader.message();
      let requestsPerUnit = 0;
      let unit = 0;
      while (!override.done()) {
        const t = override.tag();
        if (t === 0x08) requestsPerUnit = override.uint32();
        else if (t === 0x10)
          unit = override.uint32() | 0; // an enum is an int32
        else override.skip(t & 7);
      }
      limit = limitOverride(index, requestsPerUnit, OVERRIDE_UNIT_NAMES[unit] ?? String(unit));
    } else if (tag === 0x1a) {
      // google.protobuf.UInt64Value: present means set, its value 0 when absent.
      const wrapper = reader.message();
      hitsAddend = 0;
      while (!wrapper.done()) {
        const t = wrapper.tag();
        if (t === 0x08) hitsAddend = wrapper.varint();
        else wrapper.skip(t & 7);
      }
    } else reader.skip(tag & 7);
  }
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
  out.tag(1, WIRE.varint);
  out.varint(CODE[decision.overallCode]);
  for (let i = 0; i < statuses.length; i++) writeStatus(out, decision.statuses[i]!, statuses[i]!);
  decision.headers.forEach((header, i) => {
    const layout = headers[i]!;
    out.tag(3, WIRE.bytes);
    out.varint(layout.size);
    out.string(1, header.key, layout.key);
    out.string(2, header.value, layout.value);
  });
  if (metadata !== undefined) {
    out.tag(6, WIRE.bytes);
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
  out.tag(2, WIRE.bytes);
  out.varint(layout.size);
  out.tag(1, WIRE.varint);
  out.varint(CODE[status.code]);
  const current = status.currentLimit;
  if (current !== undefined) {
    out.tag(2, WIRE.bytes);
    out.varint(layout.limit);
    if (current.requestsPerUnit !== 0) {
      out.tag(1, WIRE.varint);
      out.varint(current.requestsPerUnit);
    }
    const unit = RESPONSE_UNIT[current.unit] ?? 0;
    if (unit !== 0) {
      out.tag(2, WIRE.varint);
      out.varint(unit);
    }
    if (layout.name !== 0) out.string(3, current.name, layout.name);
  }
  if (status.limitRemaining !== 0) {
    out.tag(3, WIRE.varint);
    out.varint(status.limitRemaining);
  }
  if (layout.reset >= 0) {
    out.tag(4, WIRE.bytes);
    out.varint(layout.reset);
    if (status.secondsUntilReset !== 0) {
      out.tag(1, WIRE.varint);
      out.varint(status.secondsUntilReset!);
    }
  }
}

/** google.protobuf.Struct (dynamic metadata: rare, small; encoded part by part). */
function encodeStruct(struct: { readonly [key: string]: MetadataValue }): Buffer {
  const parts: Buffer[] = [];
  for (const [key, value] of Object.entries(struct)) {
    const entry = Buffer.concat([stringField(1, key), messageField(2, encodeValue(value))]);
    parts.push(messageField(1, entry));
  }
  return Buffer.concat(parts);
}

function encodeValue(value: MetadataValue): Buffer {
  if (value === null) return Buffer.from([0x08, 0x00]);
  if (typeof value === 'number') {
    const out = new ProtobufWriter(Buffer.allocUnsafe(9));
    out.double(2, value);
    return out.bytes;
  }
  if (typeof value === 'string') return stringField(3, value);
  if (typeof value === 'boolean') return Buffer.from([0x20, value ? 1 : 0]);
  if (Array.isArray(value))
    return messageField(6, Buffer.concat(value.map((v) => messageField(1, encodeValue(v)))));
  return messageField(5, encodeStruct(value as { readonly [key: string]: MetadataValue }));
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
