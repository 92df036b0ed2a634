// The configuration broadcast on a three-broker Kafka cluster (replication factor 3): a publisher
// instance (files, CONFIG_KAFKA_PUBLISH) and a follower (CONFIG_TYPE=KAFKA). A configuration
// published while one broker of three is down reaches the follower; the follower survives the
// whole cluster being lost and coming back, saying so on gRPC health (`ratelimit.config`) while
// its decisions keep answering without waiting on Kafka. How fast is `npm run bench:faults`' to
// measure (the same scenarios, test/helpers/faults); the figures are printed here too.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type ConfigFeedRig,
  loseEveryBrokerUnderDecisions,
  publishWithBrokerDown,
  startConfigFeedRig,
} from '../helpers/faults/ratelimit-config-feed.ts';
import {
  CLUSTER_NODES,
  type KafkaCluster,
  startKafkaCluster,
  stopKafkaCluster,
} from '../helpers/kafka-cluster.ts';

const ms = (n: number) => `${n.toFixed(1)} ms`;
const say = (line: string) => process.stdout.write(`${line}\n`);

describe('ratelimit configuration broadcast on a three-broker cluster', () => {
  const infra = inject('infra');
  let cluster: KafkaCluster;
  let rig: ConfigFeedRig;

  beforeAll(async () => {
    cluster = startKafkaCluster();
    rig = await startConfigFeedRig(cluster, infra.REDIS_URL);
  }, 240_000);

  afterAll(async () => {
    for (const node of CLUSTER_NODES) cluster?.resume(node);
    cluster?.startMissing();
    await rig?.close();
    await cluster?.close();
    stopKafkaCluster();
  }, 120_000);

  it('a configuration published while one broker of three is down reaches the follower', async () => {
    const run = await publishWithBrokerDown(rig, cluster, 200);
    say(
      `broker ${run.node} of 3 down: the follower applied the new configuration ${ms(run.appliedMs)} after the file changed`,
    );
    expect(run.appliedMs).not.toBeNaN();
    expect(run.limitAfter).toBe(200);
  }, 480_000);

  it('the follower survives the cluster lost and back; its decisions never wait on Kafka', async () => {
    const run = await loseEveryBrokerUnderDecisions(rig, cluster, { pauseMs: 8_000 });
    const d = run.decisions;
    say(
      `cluster paused ${(run.pausedMs / 1000).toFixed(1)} s: health NOT_SERVING after ${ms(run.noticedMs)}; ${d.calls} decisions meanwhile, ${d.failures.length} failed, p50 ${ms(d.p50)}, p99 ${ms(d.p99)}, max ${ms(d.max)}; SERVING again ${ms(run.servingMs)} after the return, a new configuration applied ${ms(run.convergedMs)} after it`,
    );
    // NaN: not within the scenario's minute.
    expect(run.noticedMs).not.toBeNaN();
    expect(run.unitsWhileLost).toEqual(Array(6).fill('NOT_SERVING'));
    // Deciding is not the feed: the instance and its rate limit service stay SERVING.
    expect(run.overallWhileLost).toBe('SERVING');
    expect(run.ratelimitWhileLost).toBe('SERVING');
    expect(d.failures).toEqual([]);
    expect(d.calls).toBeGreaterThan(100);
    // A decision that waited on Kafka would wait out the 8 s pause; half of it only catches that.
    expect(d.max).toBeLessThan(4_000);
    expect(run.servingMs).not.toBeNaN();
    expect(run.unitsServing).toBe(true);
    expect(run.convergedMs).not.toBeNaN();
    const metrics = await rig.follower.debug('/metrics');
    expect(metrics).toMatch(/^component_running\{component="config follower"[^}]*\} 1$/m);
  }, 300_000);
});
