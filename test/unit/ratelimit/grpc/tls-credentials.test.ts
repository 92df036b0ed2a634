// The gRPC listener's rotating TLS on an in-process server (the services' gRPC server and its
// health service, a grpc-js client): the client certificate checked against the CA, the SAN
// refused per call, a new pair put in force for new connections, and a half-written rotation
// keeping the previous one.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRotatingServerTls,
  type RotatingTls,
} from '../../../../services/ratelimit/adapters/grpc/tls-credentials.ts';
import { type RunningGrpcServer, startGrpcServer } from '../../../../shared/grpc-server/grpc-server.ts';
import { silentLogger } from '../../../../shared/logger.ts';
import { createHealthService } from '../../../../shared/rpc/health.ts';
import { createHealthClient } from '../../../helpers/rls-client.ts';
import {
  type Leaf,
  type ListenerCertificates,
  listenerCertificates,
  presentedCn,
  replaceFile,
  tlsChannelCredentials,
} from '../../../helpers/tls-certs.ts';

describe('rotating gRPC server TLS', () => {
  let dir: string;
  let certs: ListenerCertificates;
  let tls: RotatingTls;
  let server: RunningGrpcServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ratelimit-tls-unit-'));
    certs = await listenerCertificates(dir, 'server');
    tls = createRotatingServerTls({
      files: {
        certFile: certs.certFile,
        keyFile: certs.keyFile,
        clientCaFile: certs.ca.cert,
        clientSan: 'envoy.mesh.local',
      },
      logger: silentLogger,
      checkEveryMs: 3_600_000, // reloads only when the test asks
    });
    const health = createHealthService();
    health.setStatus('', 'SERVING');
    server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [health.rpc],
      ...(tls.admit ? { admit: tls.admit } : {}),
      maxMessageBytes: 1024,
      maxConnectionAgeMs: 0,
      maxConnectionAgeGraceMs: 0,
      tls: tls.options,
      logger: silentLogger,
    });
    tls.attach(server.setSecureContext);
  });
  afterAll(async () => {
    tls?.stop();
    await server?.stop(1_000);
    await rm(dir, { recursive: true, force: true });
  });

  /** The server's health over a connection of its own, presenting `leaf` when given. */
  const check = async (leaf?: Leaf): Promise<string> => {
    const client = createHealthClient(`127.0.0.1:${server.port}`, {
      credentials: await tlsChannelCredentials(certs.caPem, leaf),
      ownConnection: true,
    });
    try {
      return await client.check('');
    } finally {
      client.close();
    }
  };
  const presentedNow = () => presentedCn(server.port, certs.caPem, certs.good);

  it('serves a client certificate the CA signed with the SAN, and refuses the others', async () => {
    expect(await check(certs.good)).toBe('SERVING');
    await expect(check()).rejects.toMatchObject({ code: status.UNAVAILABLE });
    await expect(check(certs.wrongSan)).rejects.toMatchObject({
      code: status.UNAUTHENTICATED,
      details: expect.stringContaining('envoy.mesh.local'),
    });
  });

  it('keeps the pair in force through a half-written rotation, then presents the new one', async () => {
    expect(await presentedNow()).toBe('server-first');
    expect(tls.reload()).toBe(false); // nothing changed
    await replaceFile(certs.second.key, certs.keyFile);
    expect(tls.reload()).toBe(false); // the new key with the old certificate: refused
    expect(await presentedNow()).toBe('server-first');
    expect(await check(certs.good)).toBe('SERVING');
    await replaceFile(certs.second.cert, certs.certFile);
    expect(tls.reload()).toBe(true);
    expect(await presentedNow()).toBe('server-second');
    expect(await check(certs.good)).toBe('SERVING');
    await expect(check(certs.wrongSan)).rejects.toMatchObject({ code: status.UNAUTHENTICATED });
  });
});
