// An ADS state-of-the-world client for RateLimitConfig resources (reference 1.2): each response's
// resources go whole to `onResources`, and the response is ACKed, or NACKed with the reason; a
// stream that fails is opened again after ./xds-backoff.ts's delays.
import { readFileSync } from 'node:fs';
import { type ClientDuplexStream, credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { loadPackageDefinition, lookupService } from '../../../../shared/grpc.ts';
import type { Logger } from '../../../../shared/logger.ts';
import { RLS_CONFIG_TYPE_URL } from '../../config/xds.ts';
import { type BackoffSettings, backoffDelayMs, connectRetryDelayMs } from './xds-backoff.ts';

export const ADS_PROTO = 'envoy/service/discovery/v3/ads.proto';
export const ADS_SERVICE = 'envoy.service.discovery.v3.AggregatedDiscoveryService';
/** google.rpc.Code INVALID_ARGUMENT: the status of a NACK. */
const INVALID_ARGUMENT = 3;

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
   * Takes one response's RateLimitConfig resources (serialized, in order); returns undefined when
   * it applied them, else the reason (sent back in the NACK).
   */
  onResources(resources: readonly Uint8Array[], version: string): string | undefined;
  logger: Logger;
  random?: () => number;
}

export interface XdsClient {
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

type AdsStream = ClientDuplexStream<WireRequest, WireResponse>;
interface AdsStub {
  StreamAggregatedResources(metadata: Metadata): AdsStream;
  close(): void;
}

/** The ADS stub over a channel to the server: plaintext, or TLS with the optional client certificate and SAN. */
function createAdsStub(options: XdsClientOptions): AdsStub {
  const Ads = lookupService(loadPackageDefinition([ADS_PROTO]), ADS_SERVICE);
  const channelOptions: Record<string, string | number> = {};
  if (options.maxMessageBytes > 0)
    channelOptions['grpc.max_receive_message_length'] = options.maxMessageBytes;
  const tls = options.tls;
  if (tls !== undefined && tls.san !== '') channelOptions['grpc.ssl_target_name_override'] = tls.san;
  const read = (file: string): Buffer | null => (file !== '' ? readFileSync(file) : null);
  const channelCredentials =
    tls === undefined
      ? credentials.createInsecure()
      : credentials.createSsl(read(tls.caFile), read(tls.keyFile), read(tls.certFile));
  return new Ads(options.serverUrl, channelCredentials, channelOptions) as unknown as AdsStub;
}

/** The response's resources, or why it is refused before anyone looks at them. */
function resourcesOf(response: WireResponse): { resources: Uint8Array[] } | { problem: string } {
  if (response.type_url !== RLS_CONFIG_TYPE_URL)
    return {
      problem: `unexpected type_url ${JSON.stringify(response.type_url)}: want ${RLS_CONFIG_TYPE_URL}`,
    };
  const strange = response.resources.find((resource) => resource.type_url !== RLS_CONFIG_TYPE_URL);
  if (strange !== undefined)
    return {
      problem: `unexpected resource type ${JSON.stringify(strange.type_url)}: want ${RLS_CONFIG_TYPE_URL}`,
    };
  return { resources: response.resources.map((resource) => resource.value) };
}

export function startXdsClient(options: XdsClientOptions): XdsClient {
  const { logger } = options;
  const random = options.random ?? Math.random;
  const client = createAdsStub(options);
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
  let current: AdsStream | undefined;
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

  /** Offers the response's resources, then ACKs or NACKs it. */
  const handle = (stream: AdsStream, response: WireResponse): void => {
    const found = resourcesOf(response);
    let problem = 'problem' in found ? found.problem : undefined;
    if ('resources' in found) {
      try {
        problem = options.onResources(found.resources, response.version_info);
      } catch (error) {
        problem = `cannot apply the configuration: ${(error as Error).message}`;
      }
    }
    const where = { version: response.version_info, nonce: response.nonce };
    if (problem === undefined) {
      acked = response.version_info;
      logger.info({ ...where, resources: response.resources.length }, 'xDS configuration applied (ACK)');
      stream.write(request(response.nonce));
    } else {
      logger.error({ ...where, kept: acked, problem }, 'xDS configuration rejected (NACK)');
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
    async stop() {
      stopped = true;
      current?.cancel();
      wake?.();
      await loop;
      client.close();
    },
  };
}
