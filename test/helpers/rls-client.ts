// gRPC clients of the rate limit service for the tests: ShouldRateLimit and grpc.health.v1 Check
// as promises, over any channel credentials, with optional call metadata (a traceparent, say).
import { type ChannelCredentials, credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { RLS_PROTO, RLS_SERVICE } from '../../services/ratelimit/adapters/grpc/rls-method.ts';
import type { WireRequest, WireResponse } from '../../services/ratelimit/adapters/grpc/wire.ts';
import { HEALTH_PROTO, loadPackageDefinition, lookupService } from '../../shared/grpc.ts';

type Callback<T> = (error: ServiceError | null, reply: T) => void;
type Stub<Method extends string, Reply> = Record<
  Method,
  (request: unknown, metadata: Metadata, options: { deadline: number }, callback: Callback<Reply>) => void
> & { close(): void };

const RateLimitService = lookupService(loadPackageDefinition([RLS_PROTO]), RLS_SERVICE);
const Health = lookupService(loadPackageDefinition([HEALTH_PROTO]), 'grpc.health.v1.Health');

const call = <Reply>(
  send: (metadata: Metadata, options: { deadline: number }, callback: Callback<Reply>) => void,
  metadata: Metadata | undefined,
  timeoutMs: number,
): Promise<Reply> =>
  new Promise((resolve, reject) =>
    send(metadata ?? new Metadata(), { deadline: Date.now() + timeoutMs }, (error, reply) =>
      error ? reject(error) : resolve(reply),
    ),
  );

export interface RlsClient {
  /** ShouldRateLimit with hits_addend 1 unless the request says otherwise. */
  shouldRateLimit(request: Partial<WireRequest>, metadata?: Metadata): Promise<WireResponse>;
  close(): void;
}

export interface HealthClient {
  /** The serving status of `service` ('' : the server's). */
  check(service: string): Promise<string>;
  close(): void;
}

/** Channel options: a connection of the client's own, or one shared with the other clients of the process. */
const channelOptions = (own: boolean) => (own ? { 'grpc.use_local_subchannel_pool': 1 } : {});

export function createRlsClient(
  address: string,
  options: { credentials?: ChannelCredentials; ownConnection?: boolean; timeoutMs?: number } = {},
): RlsClient {
  const stub = new RateLimitService(
    address,
    options.credentials ?? credentials.createInsecure(),
    channelOptions(options.ownConnection ?? false),
  ) as unknown as Stub<'ShouldRateLimit', WireResponse>;
  return {
    shouldRateLimit: (request, metadata) =>
      call<WireResponse>(
        (m, o, cb) => stub.ShouldRateLimit({ hits_addend: 1, ...request }, m, o, cb),
        metadata,
        options.timeoutMs ?? 10_000,
      ),
    close: () => stub.close(),
  };
}

export function createHealthClient(
  address: string,
  options: { credentials?: ChannelCredentials; ownConnection?: boolean } = {},
): HealthClient {
  const stub = new Health(
    address,
    options.credentials ?? credentials.createInsecure(),
    channelOptions(options.ownConnection ?? false),
  ) as unknown as Stub<'Check', { status: string }>;
  return {
    check: async (service) =>
      (await call<{ status: string }>((m, o, cb) => stub.Check({ service }, m, o, cb), undefined, 5_000))
        .status,
    close: () => stub.close(),
  };
}
