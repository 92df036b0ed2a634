// The gRPC listener's rotating TLS credentials on an in-process server: they rest on grpc-js's
// exported certificate-provider credentials and interceptor credentials (`experimental`), so these
// tests fail if an update of grpc-js changes what those do: the client certificate checked against
// the CA, the SAN refused by the interceptor, a new pair put in force for new connections, and a
// half-written rotation keeping the previous one.
import { copyFile, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { credentials, type ServiceError, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRotatingServerTls,
  type RotatingTls,
} from '../../../../services/ratelimit/adapters/grpc/tls-credentials.ts';
import {
  createHealthService,
  HEALTH_PROTO,
  loadPackageDefinition,
  lookupService,
  type RunningGrpcServer,
  startGrpcServer,
} from '../../../../shared/grpc.ts';
import { silentLogger } from '../../../../shared/logger.ts';
import { clientLeaf, type Leaf, makeCa, serverLeaf } from '../../../helpers/tls-certs.ts';

type HealthClient = {
  Check(r: unknown, o: unknown, cb: (e: ServiceError | null, v: { status: string }) => void): void;
  close(): void;
};
const Health = lookupService(loadPackageDefinition([HEALTH_PROTO]), 'grpc.health.v1.Health');

describe('rotating gRPC server TLS', () => {
  let dir: string;
  let caPem: Buffer;
  let second: Leaf;
  let good: Leaf;
  let wrongSan: Leaf;
  let tls: RotatingTls;
  let server: RunningGrpcServer;
  const certFile = () => join(dir, 'server.crt');
  const keyFile = () => join(dir, 'server.key');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ratelimit-tls-unit-'));
    const ca = await makeCa(dir, 'unit-ca');
    caPem = await readFile(ca.cert);
    const first = await serverLeaf(dir, 'server-first', ca);
    second = await serverLeaf(dir, 'server-second', ca);
    good = await clientLeaf(dir, 'envoy', ca, 'envoy.mesh.local');
    wrongSan = await clientLeaf(dir, 'intruder', ca, 'intruder.mesh.local');
    await copyFile(first.cert, certFile());
    await copyFile(first.key, keyFile());
    tls = createRotatingServerTls({
      files: {
        certFile: certFile(),
        keyFile: keyFile(),
        clientCaFile: ca.cert,
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
      logger: silentLogger,
      credentials: tls.credentials,
      services: [health],
    });
  });
  afterAll(async () => {
    tls?.stop();
    await server?.stop(1_000);
    await rm(dir, { recursive: true, force: true });
  });

  const check = async (leaf?: Leaf): Promise<string> => {
    const channel =
      leaf === undefined
        ? credentials.createSsl(caPem)
        : credentials.createSsl(caPem, await readFile(leaf.key), await readFile(leaf.cert));
    const client = new Health(`127.0.0.1:${server.port}`, channel, {
      'grpc.use_local_subchannel_pool': 1,
      'grpc.ssl_target_name_override': 'localhost',
    }) as unknown as HealthClient;
    try {
      return await new Promise((resolve, reject) =>
        client.Check({ service: '' }, { deadline: Date.now() + 5_000 }, (error, reply) =>
          error ? reject(error) : resolve(reply.status),
        ),
      );
    } finally {
      client.close();
    }
  };

  /** The CN of the certificate the listener presents to a new connection. */
  const presentedCn = async (): Promise<string> => {
    const [key, cert] = [await readFile(good.key), await readFile(good.cert)];
    return new Promise((resolve, reject) => {
      const socket = connect(
        {
          host: '127.0.0.1',
          port: server.port,
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

  it('serves a client certificate the CA signed with the SAN, and refuses the others', async () => {
    expect(await check(good)).toBe('SERVING');
    await expect(check()).rejects.toMatchObject({ code: status.UNAVAILABLE });
    await expect(check(wrongSan)).rejects.toMatchObject({
      code: status.UNAUTHENTICATED,
      details: expect.stringContaining('envoy.mesh.local'),
    });
  });

  it('keeps the pair in force through a half-written rotation, then presents the new one', async () => {
    expect(await presentedCn()).toBe('server-first');
    expect(tls.reload()).toBe(false); // nothing changed
    await copyFile(second.key, join(dir, 'next.key'));
    await rename(join(dir, 'next.key'), keyFile());
    expect(tls.reload()).toBe(false); // the new key with the old certificate: refused
    expect(await presentedCn()).toBe('server-first');
    expect(await check(good)).toBe('SERVING');
    await copyFile(second.cert, join(dir, 'next.crt'));
    await rename(join(dir, 'next.crt'), certFile());
    expect(tls.reload()).toBe(true);
    expect(await presentedCn()).toBe('server-second');
    expect(await check(good)).toBe('SERVING');
    await expect(check(wrongSan)).rejects.toMatchObject({ code: status.UNAUTHENTICATED });
  });
});
