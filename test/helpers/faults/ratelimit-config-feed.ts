// The rate limiter's configuration broadcast on a three-broker Kafka, as scenarios that return what
// happened: a publisher instance (files, CONFIG_KAFKA_PUBLISH) and a follower (CONFIG_TYPE=KAFKA).
// `test/integration/ratelimit-kafka-cluster.test.ts` asserts the behaviour, `bench/faults.ts`
// prints the figures beside their goals.
import { setTimeout as sleep } from 'node:timers/promises';
import { CLUSTER_NODES, type KafkaCluster } from '../kafka-cluster.ts';
import { createRuntimeFolder, type RuntimeFolder } from '../ratelimit-runtime.ts';
import {
  descriptors,
  type RatelimitServer,
  random,
  startRatelimitServer,
  versionOf,
} from '../ratelimit-server.ts';
import { waitFor } from '../wait-for.ts';

export const feedConfig = (domain: string, perHour: number) => `domain: ${domain}
descriptors:
  - key: k
    rate_limit:
      unit: hour
      requests_per_unit: ${perHour}
`;

export interface ConfigFeedRig {
  readonly domain: string;
  readonly runtime: RuntimeFolder;
  readonly publisher: RatelimitServer;
  readonly follower: RatelimitServer;
  /** Whether the follower applies the version the publisher loaded last. */
  converged(): Promise<boolean>;
  /** Writes a new limit and waits (up to `ceilingMs`) until the publisher loaded it. */
  publish(perHour: number, ceilingMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startConfigFeedRig(cluster: KafkaCluster, redisUrl: string): Promise<ConfigFeedRig> {
  const domain = `cluster${random()}`;
  const runtime = await createRuntimeFolder({ 'cluster.yaml': feedConfig(domain, 100) });
  const common = {
    REDIS_URL: redisUrl,
    KAFKA_BROKERS: cluster.brokers,
    CONFIG_KAFKA_KEY: `cluster-${random()}`,
    CACHE_KEY_PREFIX: `cluster-${random()}:`,
  };
  const publisher = await startRatelimitServer({
    ...common,
    RUNTIME_ROOT: runtime.root,
    RUNTIME_SUBDIRECTORY: runtime.subdirectory,
    CONFIG_KAFKA_PUBLISH: 'true',
  });
  // Two decision units: the main thread's follower sets the health every unit answers.
  const follower = await startRatelimitServer(
    { ...common, CONFIG_TYPE: 'KAFKA', RATELIMIT_WORKERS: '2' },
    { readyTimeoutMs: 60_000 },
  );
  const converged = async () => (await versionOf(follower)) === (await versionOf(publisher));
  await waitFor('the follower to apply the published configuration', converged, { timeoutMs: 60_000 });
  return {
    domain,
    runtime,
    publisher,
    follower,
    converged,
    async publish(perHour, ceilingMs = 60_000) {
      const before = await versionOf(publisher);
      await runtime.write('cluster.yaml', feedConfig(domain, perHour));
      await waitFor('the publisher to load the change', async () => (await versionOf(publisher)) !== before, {
        timeoutMs: ceilingMs,
      });
    },
    async close() {
      await follower.stop();
      await publisher.stop();
      await runtime.cleanup();
    },
  };
}

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

export interface FeedPublishedWithBrokerDown {
  readonly node: number;
  /** ms from the file change to the follower applying it (NaN past the ceiling). */
  readonly appliedMs: number;
  /** The follower's limit for the domain afterwards. */
  readonly limitAfter: number | undefined;
}

/** One broker of three SIGKILLed, a new configuration published meanwhile; the broker started again after. */
export async function publishWithBrokerDown(
  rig: ConfigFeedRig,
  cluster: KafkaCluster,
  perHour: number,
  ceilingMs = 120_000,
): Promise<FeedPublishedWithBrokerDown> {
  const node = await cluster.busiestLeader('ratelimit.config');
  cluster.kill(node);
  const started = performance.now();
  await rig.publish(perHour, ceilingMs);
  const applied = await waitFor('the follower to apply it', rig.converged, { timeoutMs: ceilingMs }).then(
    () => true,
    () => false,
  );
  const appliedMs = applied ? performance.now() - started : Number.NaN;
  const reply = await rig.follower.shouldRateLimit({
    domain: rig.domain,
    descriptors: descriptors({ k: random() }) as never,
  });
  cluster.startMissing();
  await cluster.waitForFullIsr('ratelimit.config', 180_000);
  return { node, appliedMs, limitAfter: reply.statuses[0]?.current_limit?.requests_per_unit };
}

export interface FeedLost {
  /** ms from pausing every broker to health saying `ratelimit.config` NOT_SERVING (NaN past the ceiling). */
  readonly noticedMs: number;
  /** What six new connections (one per decision unit, round robin) were told meanwhile. */
  readonly unitsWhileLost: readonly string[];
  readonly overallWhileLost: string;
  readonly ratelimitWhileLost: string;
  /** Decisions made while the feed was lost. */
  readonly decisions: { calls: number; failures: string[]; p50: number; p99: number; max: number };
  /** ms from resuming the brokers to SERVING again, and to a configuration published after the return applied. */
  readonly servingMs: number;
  readonly unitsServing: boolean;
  readonly convergedMs: number;
  readonly pausedMs: number;
}

/** Every broker SIGSTOPped for `pauseMs` while a loop decides on the follower, then resumed. */
export async function loseEveryBrokerUnderDecisions(
  rig: ConfigFeedRig,
  cluster: KafkaCluster,
  options: { pauseMs?: number; ceilingMs?: number } = {},
): Promise<FeedLost> {
  const ceilingMs = options.ceilingMs ?? 60_000;
  const pauseMs = options.pauseMs ?? 8_000;
  const { follower } = rig;
  const time = async (what: string, check: () => Promise<boolean>, since: number) =>
    waitFor(what, check, { timeoutMs: ceilingMs, intervalMs: 50 }).then(
      () => performance.now() - since,
      () => Number.NaN,
    );
  const decisions = keepDeciding(follower, rig.domain);
  const lostAt = performance.now();
  for (const node of CLUSTER_NODES) cluster.pause(node);
  const noticedMs = await time(
    'health to say the configuration feed is lost',
    async () => (await follower.grpcHealth('ratelimit.config')) === 'NOT_SERVING',
    lostAt,
  );
  const unitsWhileLost = await follower.grpcHealthOnNewConnections('ratelimit.config', 6);
  const overallWhileLost = await follower.grpcHealth('');
  const ratelimitWhileLost = await follower.grpcHealth('ratelimit');
  await sleep(Math.max(0, pauseMs - (performance.now() - lostAt)));
  const during = await decisions.stop();

  const backAt = performance.now();
  for (const node of CLUSTER_NODES) cluster.resume(node);
  const servingMs = await time(
    'health to say the configuration feed runs again',
    async () => (await follower.grpcHealth('ratelimit.config')) === 'SERVING',
    backAt,
  );
  const unitsServing = await waitFor(
    'every decision unit to say so',
    async () =>
      (await follower.grpcHealthOnNewConnections('ratelimit.config', 6)).every((s) => s === 'SERVING'),
    { timeoutMs: ceilingMs },
  ).then(
    () => true,
    () => false,
  );
  await rig.publish(300, ceilingMs);
  const convergedMs = await time(
    'the follower to apply a configuration published after the return',
    rig.converged,
    backAt,
  );
  return {
    noticedMs,
    unitsWhileLost,
    overallWhileLost,
    ratelimitWhileLost,
    decisions: during,
    servingMs,
    unitsServing,
    convergedMs,
    pausedMs: backAt - lostAt,
  };
}
