// An xDS management server for the tests: envoy.service.discovery.v3.AggregatedDiscoveryService
// (state of the world) over gRPC, serving RateLimitConfig resources encoded from rls_conf.proto
// with protobufjs. Behaves as ADS says: every response carries the snapshot's version and a fresh
// nonce; a request whose response_nonce is not the stream's last one is stale and ignored; a
// request answering the last response is an ACK (version_info = that version) or a NACK
// (error_detail set, version_info = the last accepted one). A snapshot is sent once to each stream
// (at its first request, or when the snapshot changes), not again after a NACK. Every request is
// recorded for the tests to check.
import { Server, ServerCredentials, type ServerDuplexStream, type ServiceError } from '@grpc/grpc-js';
import { ADS_PROTO, ADS_SERVICE } from '../../services/ratelimit/adapters/config/xds-client.ts';
import { RLS_CONFIG_TYPE_URL, rateLimitConfigType } from '../../services/ratelimit/config/xds.ts';
import { loadPackageDefinition, lookupService } from '../../shared/grpc.ts';

/** A RateLimitConfig as protobufjs takes it (snake_case, enums by name). */
export interface RlsConfigResource {
  name: string;
  domain: string;
  descriptors: unknown[];
}

export interface RecordedRequest {
  readonly stream: number;
  readonly versionInfo: string;
  readonly responseNonce: string;
  readonly typeUrl: string;
  readonly nodeId: string;
  readonly nodeMetadata: Record<string, string>;
  readonly errorDetail?: { code: number; message: string };
  readonly headers: Record<string, string>;
  /** 'initial', 'ack', 'nack' or 'stale'. */
  readonly kind: 'initial' | 'ack' | 'nack' | 'stale';
}

export interface SentResponse {
  readonly stream: number;
  readonly version: string;
  readonly nonce: string;
}

export interface AdsServer {
  readonly port: number;
  readonly address: string;
  readonly requests: RecordedRequest[];
  readonly sent: SentResponse[];
  /** Replaces the snapshot and sends it to every open stream. */
  setSnapshot(version: string, resources: RlsConfigResource[]): void;
  openStreams(): number;
  /** Stops at once (open streams fail with UNAVAILABLE). */
  stop(): Promise<void>;
  /** Listens again on the same port, with the current snapshot. */
  restart(): Promise<void>;
}

/** Encodes a resource as an Any holding a RateLimitConfig. */
export function encodeRlsConfig(resource: RlsConfigResource): { type_url: string; value: Buffer } {
  const type = rateLimitConfigType();
  const message = type.fromObject(resource);
  const problem = type.verify(message);
  if (problem !== null) throw new Error(`bad RateLimitConfig in the test: ${problem}`);
  return { type_url: RLS_CONFIG_TYPE_URL, value: Buffer.from(type.encode(message).finish()) };
}

interface WireRequest {
  version_info: string;
  node?: { id: string; metadata?: { fields?: Record<string, { stringValue?: string }> } };
  type_url: string;
  response_nonce: string;
  error_detail?: { code: number; message: string } | null;
}

export async function startAdsServer(options: { port?: number; credentials?: ServerCredentials } = {}) {
  const Ads = lookupService(loadPackageDefinition([ADS_PROTO]), ADS_SERVICE);
  const requests: RecordedRequest[] = [];
  const sent: SentResponse[] = [];
  let snapshot: { version: string; resources: Array<{ type_url: string; value: Buffer }> } | undefined;
  let nonceCounter = 0;
  let streamCounter = 0;
  const streams = new Map<
    number,
    { call: ServerDuplexStream<WireRequest, unknown>; lastNonce: string; sentVersion?: string }
  >();

  const send = (id: number): void => {
    const stream = streams.get(id);
    if (stream === undefined || snapshot === undefined || stream.sentVersion === snapshot.version) return;
    const nonce = `n${++nonceCounter}`;
    stream.lastNonce = nonce;
    stream.sentVersion = snapshot.version;
    sent.push({ stream: id, version: snapshot.version, nonce });
    stream.call.write({
      version_info: snapshot.version,
      resources: snapshot.resources,
      type_url: RLS_CONFIG_TYPE_URL,
      nonce,
    });
  };

  const implementation = {
    StreamAggregatedResources(call: ServerDuplexStream<WireRequest, unknown>) {
      const id = ++streamCounter;
      streams.set(id, { call, lastNonce: '' });
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(call.metadata.getMap())) headers[key] = String(value);
      call.on('data', (request: WireRequest) => {
        const stream = streams.get(id);
        if (stream === undefined) return;
        const metadata: Record<string, string> = {};
        for (const [key, value] of Object.entries(request.node?.metadata?.fields ?? {}))
          metadata[key] = value.stringValue ?? '';
        const kind =
          request.response_nonce === ''
            ? 'initial'
            : request.response_nonce !== stream.lastNonce
              ? 'stale'
              : request.error_detail
                ? 'nack'
                : 'ack';
        requests.push({
          stream: id,
          versionInfo: request.version_info,
          responseNonce: request.response_nonce,
          typeUrl: request.type_url,
          nodeId: request.node?.id ?? '',
          nodeMetadata: metadata,
          ...(request.error_detail
            ? { errorDetail: { code: request.error_detail.code, message: request.error_detail.message } }
            : {}),
          headers,
          kind,
        });
        if (request.type_url !== RLS_CONFIG_TYPE_URL) return;
        // A client that already holds the snapshot's version (reconnecting) is not sent it again.
        if (kind === 'initial' && snapshot !== undefined && request.version_info === snapshot.version)
          stream.sentVersion = snapshot.version;
        if (kind === 'initial') send(id);
      });
      const close = (): void => {
        streams.delete(id);
      };
      call.on('end', () => {
        close();
        call.end();
      });
      call.on('error', (_error: ServiceError) => close());
      call.on('cancelled', close);
    },
  };

  let server: Server;
  let port = options.port ?? 0;
  const listen = async (): Promise<void> => {
    server = new Server();
    server.addService(Ads.service, implementation as never);
    port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(
        `127.0.0.1:${port}`,
        options.credentials ?? ServerCredentials.createInsecure(),
        (error, bound) => (error ? reject(error) : resolve(bound)),
      ),
    );
  };
  await listen();

  const ads: AdsServer = {
    get port() {
      return port;
    },
    get address() {
      return `127.0.0.1:${port}`;
    },
    requests,
    sent,
    setSnapshot(version, resources) {
      snapshot = { version, resources: resources.map(encodeRlsConfig) };
      for (const id of streams.keys()) send(id);
    },
    openStreams: () => streams.size,
    async stop() {
      server.forceShutdown();
      streams.clear();
    },
    restart: listen,
  };
  return ads;
}
