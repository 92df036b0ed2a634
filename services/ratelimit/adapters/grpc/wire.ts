// The RLS v3 messages as @grpc/proto-loader gives them (field names as written, enums and 64-bit
// integers as strings): what /json parses into and gRPC clients read, and the service's request
// made from them.
import { AppError } from '../../../../shared/errors.ts';
import type { Unit } from '../../config/index.ts';
import type { DecisionRequest, DescriptorInput } from '../../domain/decision.ts';

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

/** The limit override of descriptor `index`; INVALID_ARGUMENT for a unit a request may not use. */
export function limitOverride(
  index: number,
  requestsPerUnit: number,
  unit: string,
): DescriptorInput['limit'] {
  if (!OVERRIDE_UNITS.has(unit))
    throw new AppError(
      'INVALID_ARGUMENT',
      `descriptors[${index}].limit.unit must be one of SECOND, MINUTE, HOUR, DAY, MONTH, YEAR, not ${unit}`,
    );
  return { requestsPerUnit, unit: unit as Unit };
}

export function fromWireRequest(request: WireRequest): DecisionRequest {
  const descriptors: DescriptorInput[] = new Array(request.descriptors.length);
  for (let i = 0; i < descriptors.length; i++) {
    const wire = request.descriptors[i]!;
    let limit: DescriptorInput['limit'];
    if (wire.limit !== null && wire.limit !== undefined)
      limit = limitOverride(i, wire.limit.requests_per_unit, wire.limit.unit);
    const addend = wire.hits_addend;
    descriptors[i] = {
      entries: wire.entries,
      limit,
      hitsAddend: addend === null || addend === undefined ? undefined : Number(addend.value),
    };
  }
  return { domain: request.domain, descriptors, hitsAddend: request.hits_addend };
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
