// An ADS client, state of the world (envoy.service.discovery.v3.AggregatedDiscoveryService/
// StreamAggregatedResources), for RateLimitConfig resources (reference 1.2): every response is
// unpacked, turned into configuration files and offered whole to `onResources`; a response that is
// applied is ACKed (its version and nonce), one that is not is NACKed with the reason in
// error_detail (version_info stays the last applied one). A stream that fails is opened again after
// a delay: CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL until the server first answered, then the
// XDS_CLIENT_BACKOFF_* backoff (jpillora/backoff's formula, reset by every response). Decisions
// never wait for any of it: the configuration in force stays until a new one is applied.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type ClientDuplexStream, credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { loadPackageDefinition, lookupService, PROTO_ROOT } from '../../../../shared/grpc.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { ConfigFile, MetadataValue } from '../../config/index.ts';

export const RLS_CONFIG_TYPE_URL = 'type.googleapis.com/ratelimit.config.ratelimit.v3.RateLimitConfig';
export const ADS_PROTO = 'envoy/service/discovery/v3/ads.proto';
export const ADS_SERVICE = 'envoy.service.discovery.v3.AggregatedDiscoveryService';
export const RLS_CONF_PROTO = 'ratelimit/config/ratelimit/v3/rls_conf.proto';
/** google.rpc.Code INVALID_ARGUMENT: the status of a NACK. */
const INVALID_ARGUMENT = 3;

// --- resources -------------------------------------------------------------------------------

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

// --- backoff ---------------------------------------------------------------------------------

export interface BackoffSettings {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly factor: number;
  readonly jitter: boolean;
}

/** jpillora/backoff `ForAttempt`: min·factor^attempt, jittered between min and that, clamped to [min, max]. */
export function backoffDelayMs(attempt: number, b: BackoffSettings, random: () => number): number {
  const min = b.initialMs > 0 ? b.initialMs : 100;
  const max = b.maxMs > 0 ? b.maxMs : 10_000;
  if (min >= max) return max;
  const factor = b.factor > 0 ? b.factor : 2;
  let delay = min * factor ** attempt;
  if (b.jitter) delay = random() * (delay - min) + min;
  if (!Number.isFinite(delay) || delay > max) return max;
  return Math.max(min, Math.floor(delay));
}

/** go-grpc-middleware's BackoffLinearWithJitter(interval, 0.5): interval ± 50%. */
export function connectRetryDelayMs(intervalMs: number, random: () => number): number {
  return Math.max(0, Math.round(intervalMs * (1 + 0.5 * (random() * 2 - 1))));
}

// --- the client ------------------------------------------------------------------------------

export interface XdsClientOptions {
  readonly serverUrl: string;
  readonly nodeId: string;
  readonly nodeMetadata: Readonly<Record<string, string>>;
  readonly additionalHeaders: Readonly<Record<string, string>>;
  readonly tls?: {
    readonly caFile: string;
    readonly certFile: string;
    readonly keyFile: string;
    /** Name checked on the server certificate instead of the URL's host ('' : the host). */
    readonly san: string;
  };
  readonly connectRetryIntervalMs: number;
  readonly backoff: BackoffSettings;
  /** 0: gRPC's default (4 MiB). */
  readonly maxMessageBytes: number;
  /**
   * Validates and applies one response's configuration files (all resources, in order); returns
   * undefined when applied, else the reason (sent back in the NACK).
   */
  onResources(files: readonly ConfigFile[], version: string): string | undefined;
  logger: Logger;
  random?: () => number;
}

export interface XdsClient {
  /** The version last ACKed ('' before any). */
  ackedVersion(): string;
  stop(): Promise<void>;
}

interface WireRequest {
  version_info: string;
  node: unknown;
  resource_names: string[];
  type_url: string;
  response_nonce: string;
  error_detail?: { code: number; message: string; details: unknown[] };
}

interface WireResponse {
  version_info: string;
  resources: Array<{ type_url: string; value: Buffer }>;
  type_url: string;
  nonce: string;
}

export function startXdsClient(options: XdsClientOptions): XdsClient {
  const { logger } = options;
  const random = options.random ?? Math.random;
  const Ads = lookupService(loadPackageDefinition([ADS_PROTO]), ADS_SERVICE);
  const channelOptions: Record<string, string | number> = {};
  if (options.maxMessageBytes > 0)
    channelOptions['grpc.max_receive_message_length'] = options.maxMessageBytes;
  const tls = options.tls;
  if (tls !== undefined && tls.san !== '') channelOptions['grpc.ssl_target_name_override'] = tls.san;
  const channelCredentials =
    tls === undefined
      ? credentials.createInsecure()
      : credentials.createSsl(
          tls.caFile !== '' ? readFileSync(tls.caFile) : null,
          tls.keyFile !== '' ? readFileSync(tls.keyFile) : null,
          tls.certFile !== '' ? readFileSync(tls.certFile) : null,
        );
  const client = new Ads(options.serverUrl, channelCredentials, channelOptions) as unknown as {
    StreamAggregatedResources(metadata: Metadata): ClientDuplexStream<WireRequest, WireResponse>;
    close(): void;
  };
  const node = {
    id: options.nodeId,
    metadata: {
      fields: Object.fromEntries(
        Object.entries(options.nodeMetadata).map(([k, v]) => [k, { stringValue: v }]),
      ),
    },
    user_agent_name: 'ratelimit',
    client_features: [],
  };

  let acked = '';
  let stopped = false;
  let current: ClientDuplexStream<WireRequest, WireResponse> | undefined;
  let wake: (() => void) | undefined;

  const request = (nonce: string, errorDetail?: string): WireRequest => ({
    version_info: acked,
    node,
    resource_names: [],
    type_url: RLS_CONFIG_TYPE_URL,
    response_nonce: nonce,
    ...(errorDetail !== undefined
      ? { error_detail: { code: INVALID_ARGUMENT, message: errorDetail, details: [] } }
      : {}),
  });

  const handle = (stream: ClientDuplexStream<WireRequest, WireResponse>, response: WireResponse): void => {
    let problem: string | undefined;
    const files: ConfigFile[] = [];
    if (response.type_url !== RLS_CONFIG_TYPE_URL)
      problem = `unexpected type_url ${JSON.stringify(response.type_url)}: want ${RLS_CONFIG_TYPE_URL}`;
    else
      for (const resource of response.resources) {
        if (resource.type_url !== RLS_CONFIG_TYPE_URL) {
          problem = `unexpected resource type ${JSON.stringify(resource.type_url)}: want ${RLS_CONFIG_TYPE_URL}`;
          break;
        }
        try {
          files.push(rateLimitConfigToFile(resource.value));
        } catch (error) {
          problem = `cannot decode a RateLimitConfig resource: ${(error as Error).message}`;
          break;
        }
      }
    if (problem === undefined) {
      try {
        problem = options.onResources(files, response.version_info);
      } catch (error) {
        problem = `cannot apply the configuration: ${(error as Error).message}`;
      }
    }
    if (problem === undefined) {
      acked = response.version_info;
      logger.info(
        { version: response.version_info, nonce: response.nonce, resources: files.length },
        'xDS configuration applied (ACK)',
      );
      stream.write(request(response.nonce));
    } else {
      logger.error(
        { version: response.version_info, nonce: response.nonce, kept: acked, problem },
        'xDS configuration rejected (NACK)',
      );
      stream.write(request(response.nonce, problem));
    }
  };

  /** One stream, until it fails or ends; true when the server answered at least once. */
  const runStream = (): Promise<boolean> =>
    new Promise((resolve) => {
      const metadata = new Metadata();
      for (const [key, value] of Object.entries(options.additionalHeaders)) metadata.add(key, value);
      const stream = client.StreamAggregatedResources(metadata);
      current = stream;
      let answered = false;
      let done = false;
      const finish = (why: string, error?: ServiceError): void => {
        if (done) return;
        done = true;
        current = undefined;
        if (!stopped)
          logger.warn(
            { server: options.serverUrl, code: error?.code, err: error?.details ?? why },
            'xDS stream ended; reconnecting',
          );
        resolve(answered);
      };
      stream.on('data', (response: WireResponse) => {
        if (!answered) logger.warn({ server: options.serverUrl }, 'xDS stream established');
        answered = true;
        handle(stream, response);
      });
      stream.on('error', (error: ServiceError) => finish('error', error));
      stream.on('end', () => finish('server closed the stream'));
      stream.write(request(''));
    });

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const loop = (async () => {
    let everAnswered = false;
    let failures = 0;
    while (!stopped) {
      const answered = await runStream();
      if (stopped) break;
      if (answered) {
        everAnswered = true;
        failures = 0;
      }
      const delay = everAnswered
        ? backoffDelayMs(failures++, options.backoff, random)
        : connectRetryDelayMs(options.connectRetryIntervalMs, random);
      logger.info({ delayMs: delay }, 'xDS reconnect scheduled');
      await sleep(delay);
    }
  })();

  return {
    ackedVersion: () => acked,
    async stop() {
      stopped = true;
      current?.cancel();
      wake?.();
      await loop;
      client.close();
    },
  };
}
