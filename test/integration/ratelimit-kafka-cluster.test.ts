// The configuration broadcast on a three-broker Kafka cluster (replication factor 3): a publisher
// instance (files, CONFIG_KAFKA_PUBLISH) and a follower (CONFIG_TYPE=KAFKA). A configuration
// published while one broker of three is down reaches the follower; the follower survives the
// whole cluster being lost and coming back, saying so on gRPC health (`ratelimit.config`) while
// its decisions keep answering without waiting on Kafka. Figures are printed.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  CLUSTER_NODES,
  type KafkaCluster,
  startKafkaCluster,
  stopKafkaCluster,
} from '../helpers/kafka-cluster.ts';
import { createRuntimeFolder, type RuntimeFolder } from '../helpers/ratelimit-runtime.ts';
import {
  descriptors,
  type RatelimitServer,
  random,
  startRatelimitServer,
  versionOf,
} from '../helpers/ratelimit-server.ts';
import { waitFor } from '../helpers/wait-for.ts';

const config = (domain: string, perHour: number) => `domain: ${domain}
descriptors:
  - key: k
    rate_limit:
      unit: hour
      requests_per_unit: ${perHour}
`;

/** Decisions back to back on `server` until stopped: latencies (ms) and failures. */
function keepDeciding(server: RatelimitServer, domain: string) {
  let running = true;
  const latencies: number[] = [];
  const failures: string[] = [];
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        await server.shouldRateLimit({ domain, descriptors: descriptors({ k: random() }) as never });
        latencies.push(performance.now() - started);
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      return { calls: latencies.length, failures, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
    },
  };
}

const ms = (n: number) => `${n.toFixed(1)} ms`;
const say = (line: string) => process.stdout.write(`${line}\n`);

describe('ratelimit configuration broadcast on a three-broker cluster', () => {
  const infra = inject('infra');
  let cluster: KafkaCluster;
  let runtime: RuntimeFolder;
  let publisher: RatelimitServer;
  let follower: RatelimitServer;
  const domain = `cluster${random()}`;
  const publishedVersion = () => versionOf(publisher);
  const converged = async () => (await versionOf(follower)) === (await publishedVersion());

  beforeAll(async () => {
    cluster = startKafkaCluster();
    runtime = await createRuntimeFolder({ 'cluster.yaml': config(domain, 100) });
    const common = {
      REDIS_URL: infra.REDIS_URL,
      KAFKA_BROKERS: cluster.brokers,
      CONFIG_KAFKA_KEY: `cluster-${random()}`,
      CACHE_KEY_PREFIX: `cluster-${random()}:`,
    };
    publisher = await startRatelimitServer({
      ...common,
      RUNTIME_ROOT: runtime.root,
      RUNTIME_SUBDIRECTORY: runtime.subdirectory,
      CONFIG_KAFKA_PUBLISH: 'true',
    });
    // Two decision units: the main thread's follower sets the health every unit answers.
    follower = await startRatelimitServer(
      { ...common, CONFIG_TYPE: 'KAFKA', RATELIMIT_WORKERS: '2' },
      { readyTimeoutMs: 60_000 },
    );
    await waitFor('the follower to apply the published configuration', converged, { timeoutMs: 30_000 });
  }, 240_000);

  afterAll(async () => {
    for (const node of CLUSTER_NODES) cluster?.resume(node);
    cluster?.startMissing();
    await follower?.stop();
    await publisher?.stop();
    await runtime?.cleanup();
    await cluster?.close();
    stopKafkaCluster();
  }, 120_000);

  it('a configuration published while one broker of three is down reaches the follower', async () => {
    const node = await cluster.busiestLeader('ratelimit.config');
    cluster.kill(node);
    const before = await publishedVersion();
    const started = performance.now();
    await runtime.write('cluster.yaml', config(domain, 200));
    await waitFor('the publisher to load the change', async () => (await publishedVersion()) !== before);
    await waitFor('the follower to apply it', converged, { timeoutMs: 60_000 });
    say(
      `broker ${node} of 3 down: the follower applied the new configuration ${ms(performance.now() - started)} after the file changed`,
    );
    const reply = await follower.shouldRateLimit({
      domain,
      descriptors: descriptors({ k: random() }) as never,
    });
    expect(reply.statuses[0]?.current_limit?.requests_per_unit).toBe(200);
    cluster.startMissing();
    await cluster.waitForFullIsr('ratelimit.config', 120_000);
  }, 240_000);

  it('the follower survives the cluster lost and back; its decisions never wait on Kafka', async () => {
    const decisions = keepDeciding(follower, domain);
    const lostAt = performance.now();
    for (const node of CLUSTER_NODES) cluster.pause(node);
    await waitFor(
      'health to say the configuration feed is lost',
      async () => (await follower.grpcHealth('ratelimit.config')) === 'NOT_SERVING',
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    expect(await follower.grpcHealthOnNewConnections('ratelimit.config', 6)).toEqual(
      Array(6).fill('NOT_SERVING'),
    );
    const noticedMs = performance.now() - lostAt;
    // Deciding is not the feed: the instance and its rate limit service stay SERVING.
    expect(await follower.grpcHealth('')).toBe('SERVING');
    expect(await follower.grpcHealth('ratelimit')).toBe('SERVING');
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    const during = await decisions.stop();

    const backAt = performance.now();
    for (const node of CLUSTER_NODES) cluster.resume(node);
    await waitFor(
      'health to say the configuration feed runs again',
      async () => (await follower.grpcHealth('ratelimit.config')) === 'SERVING',
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    const servingMs = performance.now() - backAt;
    await waitFor('every decision unit to say so', async () =>
      (await follower.grpcHealthOnNewConnections('ratelimit.config', 6)).every((s) => s === 'SERVING'),
    );
    const before = await publishedVersion();
    await runtime.write('cluster.yaml', config(domain, 300));
    await waitFor('the publisher to load the change', async () => (await publishedVersion()) !== before);
    await waitFor('the follower to apply a configuration published after the return', converged, {
      timeoutMs: 60_000,
    });
    const convergedMs = performance.now() - backAt;
    say(
      `cluster paused 8 s: health NOT_SERVING after ${ms(noticedMs)}; ${during.calls} decisions meanwhile, ${during.failures.length} failed, p50 ${ms(during.p50)}, p99 ${ms(during.p99)}, max ${ms(during.max)}; SERVING again ${ms(servingMs)} after the return, a new configuration applied ${ms(convergedMs)} after it`,
    );
    expect(during.failures).toEqual([]);
    expect(during.calls).toBeGreaterThan(100);
    expect(during.max).toBeLessThan(1_000);
    const metrics = await follower.debug('/metrics');
    expect(metrics).toMatch(/^component_running\{component="config follower"[^}]*\} 1$/m);
  }, 180_000);
});
