// TLS and mutual TLS on the gRPC listener (GRPC_SERVER_USE_TLS, GRPC_SERVER_TLS_CERT/_KEY,
// GRPC_CLIENT_TLS_CACERT, GRPC_CLIENT_TLS_SAN), with certificates made by openssl: who gets in, who
// does not, health over TLS, and a certificate rotation while a client keeps deciding.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChannelCredentials, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRuntimeFolder, type RuntimeFolder } from '../helpers/ratelimit-runtime.ts';
import {
  descriptors,
  failedStart,
  logged,
  type RatelimitServer,
  startRatelimitServer,
} from '../helpers/ratelimit-server.ts';
import { createHealthClient, createRlsClient, type RlsClient } from '../helpers/rls-client.ts';
import {
  clientLeaf,
  type Leaf,
  type ListenerCertificates,
  listenerCertificates,
  makeCa,
  presentedCn,
  replaceFile,
  tlsChannelCredentials,
} from '../helpers/tls-certs.ts';
import { waitFor } from '../helpers/wait-for.ts';

const CONFIG = `domain: tls
descriptors:
  - key: k
    rate_limit:
      unit: hour
      requests_per_unit: 1000000
`;

describe('gRPC listener with mutual TLS', () => {
  let dir: string;
  let runtime: RuntimeFolder;
  let server: RatelimitServer;
  let certs: ListenerCertificates;
  let foreign: Leaf;
  const clients: Array<{ close(): void }> = [];

  const tlsCredentials = (leaf?: Leaf) => tlsChannelCredentials(certs.caPem, leaf);
  const rlsClient = (creds: ChannelCredentials): RlsClient => {
    const client = createRlsClient(server.grpcAddress, {
      credentials: creds,
      ownConnection: true,
      timeoutMs: 5_000,
    });
    clients.push(client);
    return client;
  };
  const decide = (client: RlsClient) =>
    client.shouldRateLimit({ domain: 'tls', descriptors: descriptors({ k: 'v' }) as never });
  /** The CN of the certificate the listener presents to a new connection now. */
  const presentedNow = () => presentedCn(server.grpcPort, certs.caPem, certs.good);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ratelimit-tls-'));
    certs = await listenerCertificates(dir, 'ratelimit');
    foreign = await clientLeaf(dir, 'foreign', await makeCa(dir, 'other-ca'), 'envoy.mesh.local');
    runtime = await createRuntimeFolder({ 'tls.yaml': CONFIG });
    server = await startRatelimitServer({
      REDIS_URL: inject('infra').REDIS_URL,
      RUNTIME_ROOT: runtime.root,
      RUNTIME_SUBDIRECTORY: runtime.subdirectory,
      GRPC_SERVER_USE_TLS: 'true',
      GRPC_SERVER_TLS_CERT: certs.certFile,
      GRPC_SERVER_TLS_KEY: certs.keyFile,
      GRPC_CLIENT_TLS_CACERT: certs.ca.cert,
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
    const client = rlsClient(await tlsCredentials(certs.wrongSan));
    await expect(decide(client)).rejects.toMatchObject({
      code: status.UNAUTHENTICATED,
      details: expect.stringContaining('envoy.mesh.local'),
    });
  });

  it('decides for the right client, and answers health checks over TLS', async () => {
    const creds = await tlsCredentials(certs.good);
    const reply = await decide(rlsClient(creds));
    expect(reply.overall_code).toBe('OK');
    expect(reply.statuses[0]?.current_limit?.requests_per_unit).toBe(1000000);
    const health = createHealthClient(server.grpcAddress, { credentials: creds });
    clients.push(health);
    for (const service of ['', 'ratelimit']) expect(await health.check(service)).toBe('SERVING');
  });

  it('picks up a rotated certificate and key without a restart while a client keeps deciding', async () => {
    expect(await presentedNow()).toBe('ratelimit-first');
    const client = rlsClient(await tlsCredentials(certs.good));
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
    await replaceFile(certs.second.key, certs.keyFile);
    await replaceFile(certs.second.cert, certs.certFile);
    await waitFor(
      'the new certificate on new connections',
      async () => (await presentedNow()) === 'ratelimit-second',
      {
        timeoutMs: 60_000,
        intervalMs: 200,
      },
    );
    const before = decided;
    await waitFor('more decisions after the rotation', async () => decided > before + 10);
    running = false;
    await loop;
    expect(failures).toEqual([]);
    // A client connecting afresh gets the new certificate and decides too.
    expect((await decide(rlsClient(await tlsCredentials(certs.good)))).overall_code).toBe('OK');
    await logged(server, 'gRPC TLS certificate reloaded');
  });

  it('does not start with a missing certificate file, naming it beside the other bad settings', async () => {
    const failed = await failedStart(
      {
        REDIS_URL: inject('infra').REDIS_URL,
        RUNTIME_ROOT: runtime.root,
        RUNTIME_SUBDIRECTORY: runtime.subdirectory,
        GRPC_SERVER_USE_TLS: 'true',
        GRPC_SERVER_TLS_CERT: join(dir, 'nowhere.crt'),
        GRPC_SERVER_TLS_KEY: certs.keyFile,
        TRACING_SAMPLING_RATE: '2',
      },
      { readyTimeoutMs: 10_000 },
    );
    expect(failed).toContain('the process exited with code 2');
    expect(failed).toContain(
      `GRPC_SERVER_TLS_CERT="${join(dir, 'nowhere.crt')}" is not allowed: cannot read the file`,
    );
    expect(failed).toContain('TRACING_SAMPLING_RATE="2" is not allowed');
  });
});
