// TLS and mutual TLS on the gRPC listener (GRPC_SERVER_USE_TLS, GRPC_SERVER_TLS_CERT/_KEY,
// GRPC_CLIENT_TLS_CACERT, GRPC_CLIENT_TLS_SAN), with certificates made by openssl: who gets in, who
// does not, health over TLS, and a certificate rotation while a client keeps deciding.
import { copyFile, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { type ChannelCredentials, credentials, type ServiceError, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RLS_PROTO, RLS_SERVICE } from '../../services/ratelimit/adapters/grpc/grpc-handlers.ts';
import type { WireResponse } from '../../services/ratelimit/adapters/grpc/wire.ts';
import { HEALTH_PROTO, loadPackageDefinition, lookupService } from '../../shared/grpc.ts';
import {
  createRuntimeFolder,
  descriptors,
  type RatelimitServer,
  type RuntimeFolder,
  startRatelimitServer,
} from '../helpers/ratelimit-server.ts';
import { clientLeaf, type Leaf, makeCa, serverLeaf } from '../helpers/tls-certs.ts';
import { waitFor } from '../helpers/wait-for.ts';

const CONFIG = `domain: tls
descriptors:
  - key: k
    rate_limit:
      unit: hour
      requests_per_unit: 1000000
`;

type RlsClient = {
  ShouldRateLimit(r: unknown, o: unknown, cb: (e: ServiceError | null, v: WireResponse) => void): void;
  close(): void;
};
type HealthClient = {
  Check(r: unknown, o: unknown, cb: (e: ServiceError | null, v: { status: string }) => void): void;
  close(): void;
};
const RateLimitService = lookupService(loadPackageDefinition([RLS_PROTO]), RLS_SERVICE);
const Health = lookupService(loadPackageDefinition([HEALTH_PROTO]), 'grpc.health.v1.Health');

describe('gRPC listener with mutual TLS', () => {
  let dir: string;
  let runtime: RuntimeFolder;
  let server: RatelimitServer;
  let caPem: Buffer;
  let good: Leaf;
  let wrongSan: Leaf;
  let foreign: Leaf;
  let second: Leaf;
  const certFile = () => join(dir, 'grpc.crt');
  const keyFile = () => join(dir, 'grpc.key');
  const clients: Array<{ close(): void }> = [];

  const tlsCredentials = async (leaf?: Leaf): Promise<ChannelCredentials> =>
    leaf === undefined
      ? credentials.createSsl(caPem)
      : credentials.createSsl(caPem, await readFile(leaf.key), await readFile(leaf.cert));
  const rlsClient = (creds: ChannelCredentials): RlsClient => {
    const client = new RateLimitService(server.grpcAddress, creds, {
      'grpc.use_local_subchannel_pool': 1,
    }) as unknown as RlsClient;
    clients.push(client);
    return client;
  };
  const decide = (client: RlsClient) =>
    new Promise<WireResponse>((resolve, reject) =>
      client.ShouldRateLimit(
        { domain: 'tls', descriptors: descriptors({ k: 'v' }), hits_addend: 1 },
        { deadline: Date.now() + 5_000 },
        (error, reply) => (error ? reject(error) : resolve(reply)),
      ),
    );
  /** The CN of the certificate the listener presents to a new connection now. */
  const presentedCn = async (): Promise<string> => {
    const [key, cert] = [await readFile(good.key), await readFile(good.cert)];
    return new Promise((resolve, reject) => {
      const socket = connect(
        {
          host: '127.0.0.1',
          port: server.grpcPort,
          servername: 'localhost',
          ca: caPem,
          key,
          cert,
          ALPNProtocols: ['h2'],
        },
        () => {
          const cn = socket.getPeerCertificate().subject.CN;
          socket.destroy();
          resolve(String(cn));
        },
      );
      socket.on('error', reject);
    });
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ratelimit-tls-'));
    const ca = await makeCa(dir, 'client-and-server-ca');
    const other = await makeCa(dir, 'other-ca');
    caPem = await readFile(ca.cert);
    const first = await serverLeaf(dir, 'ratelimit-first', ca);
    second = await serverLeaf(dir, 'ratelimit-second', ca);
    good = await clientLeaf(dir, 'envoy', ca, 'envoy.mesh.local');
    wrongSan = await clientLeaf(dir, 'intruder', ca, 'intruder.mesh.local');
    foreign = await clientLeaf(dir, 'foreign', other, 'envoy.mesh.local');
    await copyFile(first.cert, certFile());
    await copyFile(first.key, keyFile());
    runtime = await createRuntimeFolder({ 'tls.yaml': CONFIG });
    server = await startRatelimitServer({
      REDIS_URL: inject('infra').REDIS_URL,
      RUNTIME_ROOT: runtime.root,
      RUNTIME_SUBDIRECTORY: runtime.subdirectory,
      GRPC_SERVER_USE_TLS: 'true',
      GRPC_SERVER_TLS_CERT: certFile(),
      GRPC_SERVER_TLS_KEY: keyFile(),
      GRPC_CLIENT_TLS_CACERT: ca.cert,
      GRPC_CLIENT_TLS_SAN: 'envoy.mesh.local',
    });
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await server?.stop();
    await runtime?.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a plaintext client', async () => {
    await expect(
      server.shouldRateLimit({ domain: 'tls', descriptors: descriptors({ k: 'v' }) as never }),
    ).rejects.toMatchObject({
      code: status.UNAVAILABLE,
    });
  });

  it('refuses a TLS client without a certificate', async () => {
    const client = rlsClient(await tlsCredentials());
    await expect(decide(client)).rejects.toMatchObject({ code: status.UNAVAILABLE });
  });

  it('refuses a client certificate of another CA', async () => {
    const client = rlsClient(await tlsCredentials(foreign));
    await expect(decide(client)).rejects.toMatchObject({ code: status.UNAVAILABLE });
  });

  it('refuses a client certificate without the GRPC_CLIENT_TLS_SAN name', async () => {
    const client = rlsClient(await tlsCredentials(wrongSan));
    await expect(decide(client)).rejects.toMatchObject({
      code: status.UNAUTHENTICATED,
      details: expect.stringContaining('envoy.mesh.local'),
    });
  });

  it('decides for the right client, and answers health checks over TLS', async () => {
    const creds = await tlsCredentials(good);
    const reply = await decide(rlsClient(creds));
    expect(reply.overall_code).toBe('OK');
    expect(reply.statuses[0]?.current_limit?.requests_per_unit).toBe(1000000);
    const health = new Health(server.grpcAddress, creds) as unknown as HealthClient;
    clients.push(health);
    for (const service of ['', 'ratelimit']) {
      const answer = await new Promise<string>((resolve, reject) =>
        health.Check({ service }, { deadline: Date.now() + 5_000 }, (error, reply) =>
          error ? reject(error) : resolve(reply.status),
        ),
      );
      expect(answer).toBe('SERVING');
    }
  });

  it('picks up a rotated certificate and key without a restart while a client keeps deciding', async () => {
    expect(await presentedCn()).toBe('ratelimit-first');
    const client = rlsClient(await tlsCredentials(good));
    let decided = 0;
    const failures: unknown[] = [];
    let running = true;
    const loop = (async () => {
      while (running) {
        try {
          if ((await decide(client)).overall_code === 'OK') decided++;
        } catch (error) {
          failures.push(error);
        }
      }
    })();
    await waitFor('the client to decide', async () => decided > 10);
    // A deploy tool's rotation: each file replaced in one rename, the key first.
    await copyFile(second.key, join(dir, 'next.key'));
    await copyFile(second.cert, join(dir, 'next.crt'));
    await rename(join(dir, 'next.key'), keyFile());
    await rename(join(dir, 'next.crt'), certFile());
    await waitFor(
      'the new certificate on new connections',
      async () => (await presentedCn()) === 'ratelimit-second',
      {
        timeoutMs: 10_000,
        intervalMs: 200,
      },
    );
    const before = decided;
    await waitFor('more decisions after the rotation', async () => decided > before + 10);
    running = false;
    await loop;
    expect(failures).toEqual([]);
    // A client connecting afresh gets the new certificate and decides too.
    expect((await decide(rlsClient(await tlsCredentials(good)))).overall_code).toBe('OK');
    expect(server.output()).toContain('gRPC TLS certificate reloaded');
  });

  it('does not start with a missing certificate file, naming it beside the other bad settings', async () => {
    const failed = await startRatelimitServer(
      {
        REDIS_URL: inject('infra').REDIS_URL,
        RUNTIME_ROOT: runtime.root,
        RUNTIME_SUBDIRECTORY: runtime.subdirectory,
        GRPC_SERVER_USE_TLS: 'true',
        GRPC_SERVER_TLS_CERT: join(dir, 'nowhere.crt'),
        GRPC_SERVER_TLS_KEY: keyFile(),
        TRACING_SAMPLING_RATE: '2',
      },
      { readyTimeoutMs: 10_000 },
    ).then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(failed).toContain('the process exited with code 2');
    expect(failed).toContain(
      `GRPC_SERVER_TLS_CERT="${join(dir, 'nowhere.crt')}" is not allowed: cannot read the file`,
    );
    expect(failed).toContain('TRACING_SAMPLING_RATE="2" is not allowed');
  });
});
