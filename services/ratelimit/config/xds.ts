// envoyproxy/ratelimit's config_xds.go: a RateLimitConfig resource (rls_conf.proto) becomes a
// configuration file in the YAML model, so that the xDS source loads it with the YAML files' loader
// and its messages.
import path from 'node:path';
import protobuf from 'protobufjs';
import { PROTO_ROOT } from '../../../shared/grpc.ts';
import type { ConfigFile, MetadataValue } from './types.ts';

export const RLS_CONFIG_TYPE_URL = 'type.googleapis.com/ratelimit.config.ratelimit.v3.RateLimitConfig';
export const RLS_CONF_PROTO = 'ratelimit/config/ratelimit/v3/rls_conf.proto';

let rlsConfType: protobuf.Type | undefined;
/** The protobufjs type of RateLimitConfig (for encoding in tests and management servers, and decoding here). */
export function rateLimitConfigType(): protobuf.Type {
  if (rlsConfType === undefined) {
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) => path.resolve(PROTO_ROOT, target);
    root.loadSync(RLS_CONF_PROTO, { keepCase: true });
    rlsConfType = root.lookupType('ratelimit.config.ratelimit.v3.RateLimitConfig');
  }
  return rlsConfType;
}

// google.protobuf.Struct comes from protobufjs's bundled definitions, whose fields are camelCase.
interface StructValue {
  nullValue?: unknown;
  numberValue?: number;
  stringValue?: string;
  boolValue?: boolean;
  structValue?: { fields?: Record<string, StructValue> };
  listValue?: { values?: StructValue[] };
}

function fromStructValue(value: StructValue): MetadataValue {
  if (value.structValue !== undefined) return fromStruct(value.structValue);
  if (value.listValue !== undefined) return (value.listValue.values ?? []).map(fromStructValue);
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.numberValue !== undefined) return value.numberValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return null;
}

function fromStruct(struct: { fields?: Record<string, StructValue> }): { [key: string]: MetadataValue } {
  const out: { [key: string]: MetadataValue } = {};
  for (const [key, value] of Object.entries(struct.fields ?? {})) out[key] = fromStructValue(value);
  return out;
}

interface DecodedDescriptor {
  key?: string;
  value?: string;
  rate_limit?: {
    unit?: string;
    requests_per_unit?: number;
    unlimited?: boolean;
    name?: string;
    replaces?: Array<{ name?: string }>;
  };
  descriptors?: DecodedDescriptor[];
  shadow_mode?: boolean;
  detailed_metric?: boolean;
  quota_mode?: boolean;
  metadata?: { fields?: Record<string, StructValue> };
}

/** A descriptor in the YAML model's shape (snake_case keys), as the reference's xDS provider builds it. */
function toYamlDescriptor(d: DecodedDescriptor): Record<string, unknown> {
  const out: Record<string, unknown> = { key: d.key ?? '' };
  if (d.value) out.value = d.value;
  if (d.rate_limit !== undefined && d.rate_limit !== null) {
    const policy: Record<string, unknown> = {
      // The enum's name, as the reference does: a limited policy of unit UNKNOWN fails to load.
      unit: d.rate_limit.unit ?? 'UNKNOWN',
      requests_per_unit: d.rate_limit.requests_per_unit ?? 0,
    };
    if (d.rate_limit.unlimited) policy.unlimited = true;
    if (d.rate_limit.name) policy.name = d.rate_limit.name;
    if ((d.rate_limit.replaces ?? []).length > 0)
      policy.replaces = (d.rate_limit.replaces ?? []).map((r) => ({ name: r.name ?? '' }));
    out.rate_limit = policy;
  }
  if ((d.descriptors ?? []).length > 0) out.descriptors = (d.descriptors ?? []).map(toYamlDescriptor);
  if (d.shadow_mode) out.shadow_mode = true;
  if (d.detailed_metric) out.detailed_metric = true;
  if (d.quota_mode) out.quota_mode = true;
  if (d.metadata !== undefined && d.metadata !== null) out.metadata = fromStruct(d.metadata);
  return out;
}

/**
 * One RateLimitConfig resource (its serialized bytes) as a configuration file: named after the
 * resource's `name` (validation errors start with it), its text the YAML model written as JSON
 * (a YAML flow document in which every string is quoted, so no value is read as another type).
 */
export function rateLimitConfigToFile(bytes: Uint8Array): ConfigFile {
  const type = rateLimitConfigType();
  const decoded = type.toObject(type.decode(bytes), { enums: String, defaults: false, arrays: true }) as {
    name?: string;
    domain?: string;
    descriptors?: DecodedDescriptor[];
  };
  const document = {
    domain: decoded.domain ?? '',
    descriptors: (decoded.descriptors ?? []).map(toYamlDescriptor),
  };
  return { name: decoded.name ?? '', text: `${JSON.stringify(document, null, 1)}\n` };
}
