// CONFIG_TYPE=GRPC_XDS_SOTW against a real ADS management server over gRPC (test/helpers/ads-server.ts,
// resources encoded from rls_conf.proto): listeners held until the first configuration, first
// configuration ACKed, an update, a NACK of a bad one (the old one still decides), a server restart
// (reconnect with the backoff, nothing lost), and the configuration reaching a Kafka-only follower
// through ratelimit.config.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServerCredentials } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type AdsServer, type RlsConfigResource, startAdsServer } from '../helpers/ads-server.ts';
import { freePort } from '../helpers/experiment-server.ts';
import {
  askEveryDecisionProcess,
  descriptors,
  failedStart,
  type RatelimitServer,
  random,
  startRatelimitServer,
  versionOf,
} from '../helpers/ratelimit-server.ts';
import { clientLeaf, makeCa, serverLeaf } from '../helpers/tls-certs.ts';
import { waitFor } from '../helpers/wait-for.ts';

/** A resource the loader refuses (a limited rule of unit UNKNOWN). */
const broken: RlsConfigResource = {
  name: 'xds-broken',
  domain: 'broken',
  descriptors: [{ key: 'k', rate_limit: { unit: 'UNKNOWN', requests_per_unit: 5 } }],
};

/** Whether nothing listens on `port` (the connection is refused). */
const refused = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(true));
  });

/** How many reconnects the xDS client has scheduled so far (one per stream that ended or failed). */
const reconnectsOf = (server: RatelimitServer): number =>
  server.output().split('xDS reconnect scheduled').length - 1;

const config = (name: string, perHour: number): RlsConfigResource => ({
  name,
  domain: 'xds',
  descriptors: [
    { key: 'user', rate_limit: { unit: 'HOUR', requests_per_unit: perHour } },
    { key: 'open', value: 'yes', rate_limit: { unlimited: true } },
  ],
});

describe('rate limit configuration from an xDS management server', () => {
  const infra = inject('infra');
  const fleet = `xds-${random()}`;
  let ads: AdsServer;
  let server: RatelimitServer;
  let follower: RatelimitServer | undefined;
  const limitFor = async (target: RatelimitServer): Promise<number | undefined> => {
    const reply = await target.shouldRateLimit({
      domain: 'xds',
      descriptors: descriptors({ user: random() }) as never,
    });
    return reply.statuses[0]?.current_limit?.requests_per_unit;
  };

  beforeAll(async () => {
    ads = await startAdsServer();
  });
  afterAll(async () => {
    await Promise.all([server, follower].filter((s) => s !== undefined).map((s) => s.stop()));
    await ads?.stop();
  });

  it('holds the listeners until the first configuration, then ACKs it with its version and nonce', async () => {
    const [httpPort, grpcPort] = [await freePort(), await freePort()];
    const starting = startRatelimitServer(
      {
        REDIS_URL: infra.REDIS_URL,
        KAFKA_BROKERS: infra.KAFKA_BROKERS,
        CONFIG_KAFKA_KEY: fleet,
        CONFIG_KAFKA_PUBLISH: 'true',
        CONFIG_TYPE: 'GRPC_XDS_SOTW',
        CONFIG_GRPC_XDS_SERVER_URL: ads.address,
        CONFIG_GRPC_XDS_NODE_ID: 'ratelimit-test-node',
        CONFIG_GRPC_XDS_NODE_METADATA: 'zone=eu-1,team=edge',
        CONFIG_GRPC_XDS_CLIENT_ADDITIONAL_HEADERS: 'x-tenant:blue',
        CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL: '200ms',
        XDS_CLIENT_BACKOFF_INITIAL_INTERVAL: '200ms',
        XDS_CLIENT_BACKOFF_MAX_INTERVAL: '1s',
        FORCE_START_WITHOUT_INITIAL_CONFIG: 'false',
        LOG_LEVEL: 'info',
        PORT: String(httpPort),
        GRPC_PORT: String(grpcPort),
      },
      { readyTimeoutMs: 60_000 },
    );
    void starting.catch(() => undefined); // awaited below, once the first configuration is served
    // The client's first request arrives; no snapshot yet, so no answer and no listener.
    await waitFor('the first DiscoveryRequest', () => ads.requests.find((r) => r.kind === 'initial'));
    const first = ads.requests.find((r) => r.kind === 'initial')!;
    expect(first).toMatchObject({
      versionInfo: '',
      typeUrl: 'type.googleapis.com/ratelimit.config.ratelimit.v3.RateLimitConfig',
      nodeId: 'ratelimit-test-node',
      nodeMetadata: { zone: 'eu-1', team: 'edge' },
    });
    expect(first.headers['x-tenant']).toBe('blue');
    // A response it handles but cannot apply: once its NACK is back the service is up and has
    // nothing left to do but wait for a configuration, and its listeners are still closed.
    ads.setSnapshot('v0-bad', [broken]);
    const sentBad = ads.sent.find((s) => s.version === 'v0-bad')!;
    await waitFor('the NACK of v0-bad', () =>
      ads.requests.find((r) => r.responseNonce === sentBad.nonce && r.kind === 'nack'),
    );
    expect(await refused(httpPort)).toBe(true);
    expect(await refused(grpcPort)).toBe(true);

    ads.setSnapshot('v1', [config('xds-main', 100)]);
    server = await starting;
    expect(await limitFor(server)).toBe(100);
    const sentV1 = ads.sent.find((s) => s.version === 'v1')!;
    await waitFor('the ACK of v1', () =>
      ads.requests.find((r) => r.kind === 'ack' && r.responseNonce === sentV1.nonce),
    );
    expect(ads.requests.find((r) => r.responseNonce === sentV1.nonce)).toMatchObject({
      kind: 'ack',
      versionInfo: 'v1',
    });
    const dump = await server.debug('/rlconfig');
    expect(dump).toContain('xds.user: unit=HOUR requests_per_unit=100');
    const unlimited = await server.shouldRateLimit({
      domain: 'xds',
      descriptors: descriptors({ open: 'yes' }) as never,
    });
    expect(unlimited.statuses[0]?.limit_remaining).toBe(4294967295);
  });

  it('applies an update and ACKs it', async () => {
    ads.setSnapshot('v2', [config('xds-main', 200)]);
    await waitFor('the update to decide', async () => (await limitFor(server)) === 200);
    const sentV2 = ads.sent.find((s) => s.version === 'v2')!;
    await waitFor('the ACK of v2', () =>
      ads.requests.find(
        (r) => r.kind === 'ack' && r.responseNonce === sentV2.nonce && r.versionInfo === 'v2',
      ),
    );
  });

  it('NACKs an invalid configuration with the loader message, and the previous one keeps deciding', async () => {
    const errorsBefore = await server.stat('ratelimit.service.config_load_error');
    const versionBefore = await versionOf(server);
    ads.setSnapshot('v3-bad', [config('xds-main', 300), broken]);
    const sentBad = ads.sent.find((s) => s.version === 'v3-bad')!;
    const nack = await waitFor('the NACK', () =>
      ads.requests.find((r) => r.responseNonce === sentBad?.nonce && r.kind === 'nack'),
    );
    // version_info stays the last accepted version; error_detail says what is wrong, naming the resource.
    expect(nack.versionInfo).toBe('v2');
    expect(nack.errorDetail?.message).toMatch(/^xds-broken: .*invalid rate limit unit 'UNKNOWN'/);
    expect(await limitFor(server)).toBe(200);
    expect(await versionOf(server)).toBe(versionBefore);
    // Counted as the reference does only when the load itself fails; nothing was applied.
    expect(await server.stat('ratelimit.service.config_load_error')).toBe(errorsBefore);
  });

  it('reconnects after the server restarts and applies what it then serves; decisions never stop', async () => {
    const streamsBefore = new Set(ads.requests.map((r) => r.stream));
    const reconnectsBefore = reconnectsOf(server);
    await ads.stop();
    // The management server is gone: decisions still follow the configuration in force, also once
    // the client has seen its stream end and a reconnect fail.
    for (let i = 0; i < 5; i++) expect(await limitFor(server)).toBe(200);
    await waitFor(
      'the stream end and a failed reconnect',
      () => reconnectsOf(server) >= reconnectsBefore + 2,
    );
    expect(server.output()).toContain('xDS stream ended; reconnecting');
    expect(await limitFor(server)).toBe(200);
    ads.setSnapshot('v4', [config('xds-main', 400)]);
    await ads.restart();
    const reconnect = await waitFor(
      'a new stream',
      () => ads.requests.find((r) => r.kind === 'initial' && !streamsBefore.has(r.stream)),
      { timeoutMs: 60_000 },
    );
    // Nothing lost: the new stream starts from the version the client holds.
    expect(reconnect.versionInfo).toBe('v2');
    await waitFor('v4 to decide', async () => (await limitFor(server)) === 400, { timeoutMs: 60_000 });
    await waitFor('the ACK of v4', () =>
      ads.requests.find((r) => r.kind === 'ack' && r.versionInfo === 'v4'),
    );
  });

  it('publishes what it applied on ratelimit.config, so a Kafka-only follower converges on it', async () => {
    follower = await startRatelimitServer({
      REDIS_URL: infra.REDIS_URL,
      KAFKA_BROKERS: infra.KAFKA_BROKERS,
      CONFIG_KAFKA_KEY: fleet,
      CONFIG_TYPE: 'KAFKA',
    });
    const version = await versionOf(server);
    await waitFor(
      'the follower to apply the xDS configuration',
      async () => (await versionOf(follower!)) === version,
    );
    expect(await limitFor(follower)).toBe(400);
    ads.setSnapshot('v5', [config('xds-main', 500)]);
    await waitFor('the follower to follow the next one', async () => (await limitFor(follower!)) === 500);
    expect(await versionOf(follower)).toBe(await versionOf(server));
  });
  it('feeds every decision process from the primary (RATELIMIT_WORKERS=2)', async () => {
    const processes = await startRatelimitServer({
      REDIS_URL: infra.REDIS_URL,
      CONFIG_TYPE: 'GRPC_XDS_SOTW',
      CONFIG_GRPC_XDS_SERVER_URL: ads.address,
      CONFIG_GRPC_XDS_NODE_ID: 'ratelimit-workers',
      RATELIMIT_WORKERS: '2',
    });
    try {
      // Each decision process answers with the limit of the xDS snapshot, which only the primary received.
      await askEveryDecisionProcess(
        processes,
        2,
        () => ({ domain: 'xds', descriptors: descriptors({ user: random() }) as never }),
        (reply) => expect(reply.statuses[0]?.current_limit?.requests_per_unit).toBe(500),
      );
      expect(ads.requests.filter((r) => r.nodeId === 'ratelimit-workers' && r.kind === 'ack')).toHaveLength(
        1,
      );
    } finally {
      await processes.stop();
    }
  });
});

describe('xDS over mutual TLS (CONFIG_GRPC_XDS_SERVER_USE_TLS)', () => {
  let dir: string;
  let ads: AdsServer;
  let server: RatelimitServer | undefined;
  const files = { ca: '', cert: '', key: '' };
  /** xDS over TLS with the client certificate, checking `san` on the management server's certificate. */
  const tlsSettings = (san: string): Record<string, string> => ({
    REDIS_URL: inject('infra').REDIS_URL,
    CONFIG_TYPE: 'GRPC_XDS_SOTW',
    CONFIG_GRPC_XDS_SERVER_URL: ads.address,
    CONFIG_GRPC_XDS_SERVER_USE_TLS: 'true',
    CONFIG_GRPC_XDS_SERVER_TLS_CACERT: files.ca,
    CONFIG_GRPC_XDS_CLIENT_TLS_CERT: files.cert,
    CONFIG_GRPC_XDS_CLIENT_TLS_KEY: files.key,
    CONFIG_GRPC_XDS_SERVER_TLS_SAN: san,
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ratelimit-xds-tls-'));
    const ca = await makeCa(dir, 'xds-ca');
    // The management server's certificate names xds.mesh.local, not the address dialled.
    const serverCert = await serverLeaf(dir, 'xds-server', ca, ['xds.mesh.local']);
    const client = await clientLeaf(dir, 'ratelimit', ca, 'ratelimit.mesh.local');
    ads = await startAdsServer({
      credentials: ServerCredentials.createSsl(
        await readFile(ca.cert),
        [{ cert_chain: await readFile(serverCert.cert), private_key: await readFile(serverCert.key) }],
        true,
      ),
    });
    ads.setSnapshot('tls-1', [config('xds-tls', 77)]);
    Object.assign(files, { ca: ca.cert, cert: client.cert, key: client.key });
  });
  afterAll(async () => {
    await server?.stop();
    await ads?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('gets its configuration over TLS with a client certificate, checking the SAN override', async () => {
    server = await startRatelimitServer(tlsSettings('xds.mesh.local'));
    const reply = await server.shouldRateLimit({
      domain: 'xds',
      descriptors: descriptors({ user: random() }) as never,
    });
    expect(reply.statuses[0]?.current_limit?.requests_per_unit).toBe(77);
    expect(ads.requests.some((r) => r.kind === 'ack' && r.versionInfo === 'tls-1')).toBe(true);
  });
  it('refuses a management server whose certificate does not carry CONFIG_GRPC_XDS_SERVER_TLS_SAN', async () => {
    const before = ads.requests.length;
    const reconnects = (output: string) => output.split('xDS stream ended; reconnecting').length - 1;
    // No configuration ever arrives, so the listeners never open; the client keeps retrying. Three
    // refused streams say so however slowly the process starts on a loaded machine.
    const failed = await failedStart(
      { ...tlsSettings('impostor.mesh.local'), CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL: '200ms' },
      { notStartingWhen: { what: 'three xDS streams ended', seen: (output) => reconnects(output) >= 3 } },
    );
    expect(failed).toContain('not starting: three xDS streams ended');
    expect(reconnects(failed)).toBeGreaterThanOrEqual(3);
    expect(ads.requests.length).toBe(before);
  });
});
