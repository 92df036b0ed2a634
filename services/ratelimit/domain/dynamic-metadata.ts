// RESPONSE_DYNAMIC_METADATA (envoyproxy/ratelimit service/ratelimit.go ratelimitToMetadata): the
// response's dynamic_metadata Struct: the request (domain, each descriptor's `key=value` entries,
// its limit override and hits_addend when set, the request's hits_addend when not 0) and the merge
// of the YAML `metadata` of every limited descriptor not over its limit (first value wins, nested
// maps merged).
import type { MetadataValue } from '../config/index.ts';
import type { Check, DecisionRequest, DescriptorStatus } from './decision.ts';

export type Struct = { readonly [key: string]: MetadataValue };

const isStruct = (value: MetadataValue | undefined): value is Struct =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `into` gains every key of `from` it lacks; maps on both sides merge the same way. */
function merge(into: Record<string, MetadataValue>, from: Struct): void {
  for (const [key, value] of Object.entries(from)) {
    const have = into[key];
    if (have === undefined) into[key] = isStruct(value) ? { ...value } : value;
    else if (isStruct(have) && isStruct(value)) {
      const nested = { ...have };
      merge(nested, value);
      into[key] = nested;
    }
  }
}

export function dynamicMetadata(
  request: DecisionRequest,
  checks: readonly Check[],
  statuses: readonly DescriptorStatus[],
): Struct {
  const descriptors = request.descriptors.map((descriptor) => {
    const out: Record<string, MetadataValue> = {
      entries: descriptor.entries.map((e) => `${e.key}=${e.value}`),
    };
    // Go's prototext of the override (the reference's text; its spacing is not stable there).
    if (descriptor.limit !== undefined)
      out.limit = `requests_per_unit:${descriptor.limit.requestsPerUnit} unit:${descriptor.limit.unit}`;
    if (descriptor.hitsAddend !== undefined) out.hitsAddend = descriptor.hitsAddend;
    return out;
  });
  const struct: Record<string, MetadataValue> = { domain: request.domain, descriptors };
  if (request.hitsAddend !== 0) struct.hitsAddend = request.hitsAddend;
  let metadata: Record<string, MetadataValue> | undefined;
  for (let i = 0; i < checks.length; i++) {
    const check = checks[i]!;
    if ((check.kind !== 'limit' && check.kind !== 'limits') || check.rule.metadata === undefined) continue;
    if (statuses[i]?.code === 'OVER_LIMIT') continue;
    metadata ??= {};
    merge(metadata, check.rule.metadata);
  }
  if (metadata !== undefined) struct.metadata = metadata;
  return struct;
}
