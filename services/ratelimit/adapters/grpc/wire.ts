// Between the RLS v3 messages (as @grpc/proto-loader gives them: field names as written, enums
// and 64-bit integers as strings) and the service's request and decision.
import { AppError } from '../../../../shared/errors.ts';
import type { MetadataValue, Unit } from '../../config/index.ts';
import type { Decision, DecisionRequest, DescriptorInput, DescriptorStatus } from '../../domain/decision.ts';
import type { Struct } from '../../domain/dynamic-metadata.ts';

export interface WireEntry {
  key: string;
  value: string;
}

export interface WireDescriptor {
  entries: WireEntry[];
  limit: { requests_per_unit: number; unit: string } | null;
  hits_addend: { value: string | number } | null;
}

export interface WireRequest {
  domain: string;
  descriptors: WireDescriptor[];
  hits_addend: number;
}

export interface WireStatus {
  code: string;
  current_limit: { name: string; requests_per_unit: number; unit: string } | null;
  limit_remaining: number;
  duration_until_reset: { seconds: number; nanos: number } | null;
}

export interface WireResponse {
  overall_code: string;
  statuses: WireStatus[];
  response_headers_to_add: Array<{ key: string; value: string }>;
  dynamic_metadata?: WireStruct | null;
}

/** Units a request may override a limit with (envoy.type.v3.RateLimitUnit has no WEEK). */
const OVERRIDE_UNITS: ReadonlySet<string> = new Set(['SECOND', 'MINUTE', 'HOUR', 'DAY', 'MONTH', 'YEAR']);

export function fromWireRequest(request: WireRequest): DecisionRequest {
  const descriptors: DescriptorInput[] = new Array(request.descriptors.length);
  for (let i = 0; i < descriptors.length; i++) {
    const wire = request.descriptors[i]!;
    let limit: DescriptorInput['limit'];
    if (wire.limit !== null && wire.limit !== undefined) {
      if (!OVERRIDE_UNITS.has(wire.limit.unit))
        throw new AppError(
          'INVALID_ARGUMENT',
          `descriptors[${i}].limit.unit must be one of SECOND, MINUTE, HOUR, DAY, MONTH, YEAR, not ${wire.limit.unit}`,
        );
      limit = { requestsPerUnit: wire.limit.requests_per_unit, unit: wire.limit.unit as Unit };
    }
    const addend = wire.hits_addend;
    descriptors[i] = {
      entries: wire.entries,
      limit,
      hitsAddend: addend === null || addend === undefined ? undefined : Number(addend.value),
    };
  }
  return { domain: request.domain, descriptors, hitsAddend: request.hits_addend };
}

function toWireStatus(status: DescriptorStatus): WireStatus {
  const limit = status.currentLimit;
  return {
    code: status.code,
    current_limit:
      limit === undefined
        ? null
        : { name: limit.name, requests_per_unit: limit.requestsPerUnit, unit: limit.unit },
    limit_remaining: status.limitRemaining,
    duration_until_reset:
      status.secondsUntilReset === undefined ? null : { seconds: status.secondsUntilReset, nanos: 0 },
  };
}

export function toWireResponse(decision: Decision): WireResponse {
  return {
    overall_code: decision.overallCode,
    statuses: decision.statuses.map(toWireStatus),
    response_headers_to_add: decision.headers as Array<{ key: string; value: string }>,
    dynamic_metadata: decision.dynamicMetadata === undefined ? null : toWireStruct(decision.dynamicMetadata),
  };
}

/** google.protobuf.Value as @grpc/proto-loader takes it (the `kind` oneof by field name). */
export type WireValue =
  | { nullValue: 'NULL_VALUE' }
  | { numberValue: number }
  | { stringValue: string }
  | { boolValue: boolean }
  | { structValue: WireStruct }
  | { listValue: { values: WireValue[] } };
export interface WireStruct {
  fields: Record<string, WireValue>;
}

function toWireValue(value: MetadataValue): WireValue {
  if (value === null) return { nullValue: 'NULL_VALUE' };
  if (typeof value === 'number') return { numberValue: value };
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (Array.isArray(value)) return { listValue: { values: value.map(toWireValue) } };
  return { structValue: toWireStruct(value as Struct) };
}

export function toWireStruct(struct: Struct): WireStruct {
  const fields: Record<string, WireValue> = {};
  for (const [key, value] of Object.entries(struct)) fields[key] = toWireValue(value);
  return { fields };
}
