// The rate limiter, kvupgrade and the entry point from the image, each in a container of its own:
// host network, read-only root file system (no writable /tmp either), the image's non-root user,
// every capability dropped.
import { chmod, readdir } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type Container,
  ensureTestImage,
  podman,
  processIdentity,
  startContainer,
} from '../helpers/container.ts';
import type { EtcdTestCluster } from '../helpers/etcd-cluster.ts';
import { withEtcdCluster } from '../helpers/etcd-cluster-hooks.ts';
import { freePort } from '../helpers/experiment-server.ts';
import { uniqueName } from '../helpers/kafka.ts';
import { PREPARATION_HOOK_TIMEOUT_MS, prepared } from '../helpers/preparations.ts';
import { createHealthClient, createRlsClient } from '../helpers/rls-client.ts';
import { waitFor } from '../helpers/wait-for.ts';

const infra = inject('infra');
const NON_ROOT = 65532;
const EXAMPLE_CONFIG = join(import.meta.dirname, '..', '..', 'services', 'ratelimit', 'example', 'current');
let tag: string;
let cluster: EtcdTestCluster;
const started: Container[] = [];

beforeAll(async () => {
  await prepared('test-image');
  tag = (await ensureTestImage()).tag;
}, PREPARATION_HOOK_TIMEOUT_MS);

withEtcdCluster({ infra, basePort: 23610 }, async (c) => {
  cluster = c;
  await readableByAll(c.dir);
});

afterAll(async () => {
  for (const container of started) await container.remove();
});

/** Makes every folder and file under `dir` readable by the image's user (mkdtemp and etcd make them 0700). */
async function readableByAll(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await readableByAll(path);
    else if (entry.isFile()) await chmod(path, 0o644);
  }
}

describe('the rate limiter from the image', () => {
  it('answers ShouldRateLimit and /json with the example configuration mounted read-only, then drains on SIGTERM', async () => {
    const [http, grpc, debug] = await Promise.all([freePort(), freePort(), freePort()]);
    // envoyproxy/ratelimit's settings, as its Kubernetes examples set them.
    const container = await startContainer(tag, ['ratelimit'], {
      name: uniqueName('test-ratelimit'),
      env: {
        REDIS_SOCKET_TYPE: 'tcp',
        REDIS_URL: infra.REDIS_URL,
        USE_STATSD: 'false',
        RUNTIME_ROOT: '/data',
        RUNTIME_SUBDIRECTORY: 'ratelimit',
        RUNTIME_WATCH_ROOT: 'false',
        KAFKA_BROKERS: infra.KAFKA_BROKERS,
        CONFIG_KAFKA_KEY: uniqueName('container'),
        RATELIMIT_WORKERS: '1',
        PORT: String(http),
        GRPC_PORT: String(grpc),
        DEBUG_PORT: String(debug),
      },
      readOnlyMounts: { [EXAMPLE_CONFIG]: '/data' },
    });
    started.push(container);
    const health = createHealthClient(`127.0.0.1:${grpc}`);
    const rls = createRlsClient(`127.0.0.1:${grpc}`);
    try {
      await waitFor('the rate limiter serving', async () => (await health.check('ratelimit')) === 'SERVING', {
        timeoutMs: 90_000,
        intervalMs: 250,
      }).catch(async (error) => {
        throw new Error(`${(error as Error).message}\n${await container.logs()}`);
      });
      const reply = await rls.shouldRateLimit({
        domain: 'rl',
        descriptors: [{ entries: [{ key: 'generic_key', value: 'default' }] }] as never,
      });
      expect(reply.overall_code).toBe('OK');
      expect(reply.statuses[0]).toMatchObject({
        code: 'OK',
        current_limit: { requests_per_unit: 10, unit: 'SECOND' },
      });
      const json = await fetch(`http://127.0.0.1:${http}/json`, {
        method: 'POST',
        body: JSON.stringify({
          domain: 'rl',
          descriptors: [
            {
              entries: [
                { key: 'foo', value: 'x' },
                { key: 'bar', value: 'y' },
              ],
            },
          ],
        }),
      });
      expect(json.status).toBe(200);
      expect(await json.json()).toMatchObject({
        overallCode: 'OK',
        statuses: [{ code: 'OK', limitRemaining: 2 }],
      });
      expect((await fetch(`http://127.0.0.1:${http}/healthcheck`)).status).toBe(200);
      expect(processIdentity(await container.hostPid())).toEqual({ uid: NON_ROOT, namespacePid: 1 });
    } finally {
      rls.close();
      health.close();
    }
    const code = await container.stop();
    expect(code, (await container.logs()).slice(-4000)).toBe(0);
  });
});

describe('kvupgrade from the image', () => {
  it('plans an upgrade of a real 3.4 cluster from its cluster file mounted read-only, as the image user', async () => {
    const binaries = [dirname(cluster.bin.etcd34), dirname(cluster.bin.etcd35)];
    const container = await startContainer(
      tag,
      ['kvupgrade', 'plan', '--cluster', join(cluster.dir, 'cluster.yaml')],
      {
        name: uniqueName('test-kvupgrade'),
        env: { KAFKA_BROKERS: infra.KAFKA_BROKERS },
        readOnlyMounts: Object.fromEntries([cluster.dir, ...binaries].map((path) => [path, path])),
        // The local driver finds the members in /proc: the host's processes.
        pidHost: true,
      },
    );
    started.push(container);
    const code = await container.wait();
    const output = await container.logs();
    expect(code, output).toBe(0);
    expect(output).toContain('verdict: ready to upgrade');
    expect(output).toMatch(/followers first, the leader last: m\d -> m\d -> m\d/);
  });

  it('exits 128 + 15 on SIGTERM as PID 1, as outside a container (it installs no handler itself)', async () => {
    // A "broker" that accepts connections and never answers: `status` waits on it, long enough to be stopped.
    let connections = 0;
    const silent = createServer(() => {
      connections++;
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      const file = join(cluster.dir, 'cluster.yaml');
      const container = await startContainer(tag, ['kvupgrade', 'status', '--cluster', file], {
        name: uniqueName('test-kvupgrade-term'),
        env: { KAFKA_BROKERS: `127.0.0.1:${port}` },
        readOnlyMounts: { [cluster.dir]: cluster.dir },
      });
      started.push(container);
      // Connected to the silent broker: node runs the program (and the handler is installed) by then.
      await waitFor('kvupgrade connecting to Kafka', () => connections > 0, {
        timeoutMs: 30_000,
      });
      // Without the handler PID 1 ignores SIGTERM, and podman kills it after 60 s: 137.
      expect(await container.stop()).toBe(143);
    } finally {
      silent.close();
    }
  });
});

describe('the entry point', () => {
  it('prints the programs without an argument and refuses an unknown one (exit 2)', async () => {
    const help = await podman('run', '--rm', '--read-only', tag);
    expect(help).toContain('experiment');
    expect(help).toContain('ratelimit');
    const refused = await podman('run', '--rm', '--read-only', tag, 'nope').then(
      () => 'exit 0',
      (error: { code?: number; stderr?: string }) => `exit ${error.code}: ${error.stderr}`,
    );
    expect(refused).toMatch(/^exit 2: backbone: unknown program "nope"/);
  });

  it('carries the OCI labels, the non-root user and the SQLite volume', async () => {
    const config = JSON.parse(await podman('image', 'inspect', '--format', '{{json .Config}}', tag));
    expect(config.User).toBe(`${NON_ROOT}:${NON_ROOT}`);
    expect(Object.keys(config.Volumes)).toEqual(['/app/data']);
    expect(config.Labels['org.opencontainers.image.version']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(config.Labels['org.opencontainers.image.revision']).toMatch(/^[0-9a-f]{40}(-dirty)?$/);
    expect(config.Labels['org.opencontainers.image.source']).not.toBe('');
  });
});
