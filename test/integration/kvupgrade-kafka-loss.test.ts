// kvupgrade on a real etcd cluster while its Kafka (the tests' three brokers) cannot be reached:
// every broker SIGSTOPped mid-run, as a hung cluster would be, then SIGCONTed.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readProgressEvents } from '../../services/kvupgrade/adapters/progress-topic.ts';
import { distinctEvents, type UpgradeProgress } from '../../services/kvupgrade/domain/progress.ts';
import { TOPICS } from '../../shared/bus/index.ts';
import type { EtcdTestCluster } from '../helpers/etcd-cluster.ts';
import { withEtcdCluster } from '../helpers/etcd-cluster-hooks.ts';
import {
  type CliResult,
  memberUpgrade,
  runKvupgrade,
  spawnKvupgrade,
  story,
} from '../helpers/etcd-kvupgrade.ts';
import {
  CLUSTER_NODES,
  type KafkaCluster,
  startKafkaCluster,
  stopKafkaCluster,
} from '../helpers/kafka-cluster.ts';
import { waitFor } from '../helpers/wait-for.ts';

const infra = inject('infra');
let kafka: KafkaCluster;
let pids: number[] = [];
const signalAll = (signal: NodeJS.Signals) => {
  for (const pid of pids) process.kill(pid, signal);
};

beforeAll(() => {
  kafka = startKafkaCluster();
  pids = CLUSTER_NODES.map((node) => kafka.pidOf(node));
});

afterAll(async () => {
  signalAll('SIGCONT');
  await kafka?.close();
  stopKafkaCluster();
});

/** The cluster's events as kvupgrade reads them (an event sent again after a lost answer, once). */
const events = async (cluster: EtcdTestCluster): Promise<UpgradeProgress[]> =>
  distinctEvents(await topicEvents(cluster));
const topicEvents = (cluster: EtcdTestCluster): Promise<UpgradeProgress[]> =>
  readProgressEvents(kafka.bus, TOPICS.upgradeProgress.name, cluster.name);

/** ms until the brokers, SIGCONTed at `since`, answer a read of the topic again. */
async function kafkaBack(cluster: EtcdTestCluster, since: number): Promise<number> {
  await waitFor(
    'kafka answers a read of kv.upgrade-progress',
    () =>
      topicEvents(cluster).then(
        () => true,
        () => false,
      ),
    {
      timeoutMs: 90_000,
      intervalMs: 250,
    },
  );
  return performance.now() - since;
}

/** The story of a whole upgrade in the order the run chose. */
const fullStory = (order: readonly string[]) => [
  'checks-passed',
  'snapshot-saved',
  ...order.flatMap(memberUpgrade),
  'all-members-upgraded',
  'cluster-version-updated',
];

/**
 * `run` on the three-broker Kafka; every broker is paused the moment the run prints that it stops
 * its first member, and kept paused until `hold` says. Times are ms from the pause.
 */
async function runLosingKafka(cluster: EtcdTestCluster, hold: (lostAt: number) => Promise<void> | void) {
  const { child, result } = spawnKvupgrade(infra, ['run', '--cluster', cluster.file], {
    brokers: kafka.brokers,
  });
  let stdout = '';
  let lostAt = 0;
  let noticedAfterMs: number | undefined;
  let held: Promise<void> | undefined;
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (lostAt === 0 && / member-stopping \[/.test(stdout)) {
      signalAll('SIGSTOP');
      lostAt = performance.now();
      held = Promise.resolve(hold(lostAt));
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    if (noticedAfterMs === undefined && chunk.toString().includes('does not record'))
      noticedAfterMs = performance.now() - lostAt;
  });
  const run: CliResult = await result;
  const endedAfterMs = performance.now() - lostAt;
  await held;
  return { run, lostAt, noticedAfterMs, endedAfterMs };
}

const versionOf = async (url: string): Promise<string | undefined> =>
  fetch(`${url}/version`, { signal: AbortSignal.timeout(2000) })
    .then((r) => r.json() as Promise<{ etcdserver: string }>)
    .then((v) => v.etcdserver)
    .catch(() => undefined);

describe('kvupgrade run while Kafka cannot be reached for longer than options.recordWaitSeconds (3 s)', () => {
  let cluster: EtcdTestCluster;
  withEtcdCluster({ infra, basePort: 24310, options: { recordWaitSeconds: 3 } }, (c) => {
    cluster = c;
  });

  it('stops before the step it cannot record (exit 5); resume finishes once Kafka is back, nothing lost', async () => {
    const { run, noticedAfterMs, endedAfterMs } = await runLosingKafka(cluster, () => {});
    // What the cluster is when the run stops, before Kafka (and so anything else) is back.
    const versions = await Promise.all(cluster.members.map((m) => versionOf(m.clientUrl)));
    signalAll('SIGCONT');
    const backAt = performance.now();
    const answeredAfterMs = await kafkaBack(cluster, backAt);

    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(5);
    expect(run.stderr).toContain(
      'kvupgrade: the run stopped: kv.upgrade-progress did not record its next event within 3 s, and no step is taken unless the event announcing it is recorded first\n  not recorded: ',
    );
    expect(run.stderr).toMatch(
      /\n {2}last recorded: member-\w+ \[m\d\]: .* \(phase [\w-]+\)\n {2}why: kafka: /,
    );
    expect(run.stderr).toContain(
      `\n  once Kafka answers, resume continues from the last recorded step: kvupgrade resume --cluster ${cluster.file}\n`,
    );

    const recorded = story(await events(cluster));
    const order = (await events(cluster)).find((e) => e.step === 'checks-passed')!.order;
    const full = fullStory(order);
    // What was recorded is the start of the story, and nothing was done that it does not announce.
    expect(full.slice(0, recorded.length)).toEqual(recorded);
    cluster.members.forEach((m, i) => {
      if (versions[i] === undefined) expect(recorded).toContain(`member-stopping[${m.name}]`);
      if (versions[i] === '3.5.16') expect(recorded).toContain(`member-starting[${m.name}]`);
    });

    const resumed = await runKvupgrade(infra, ['resume', '--cluster', cluster.file], {
      brokers: kafka.brokers,
    });
    const resumeMs = performance.now() - backAt - answeredAfterMs;
    expect(resumed.code, `${resumed.stdout}\n${resumed.stderr}`).toBe(0);
    expect(resumed.stdout).toMatch(/cluster etcd-\w+: completed\n$/);
    for (const member of cluster.members) expect(await versionOf(member.clientUrl)).toBe('3.5.16');

    const all = await events(cluster);
    // Nothing lost, nothing applied twice: the whole story, with the resume where the run stopped.
    expect(story(all).filter((s) => s !== 'resumed')).toEqual(full);
    expect(story(all).filter((s) => s === 'resumed')).toHaveLength(1);

    process.stdout.write(`${run.stderr.slice(run.stderr.indexOf('kvupgrade: '))}`);
    process.stdout.write(
      `kvupgrade, Kafka lost at the first member's stop (recordWaitSeconds 3): the run noticed after ${noticedAfterMs?.toFixed(0)} ms, ` +
        `stopped (exit 5) ${endedAfterMs.toFixed(0)} ms after the loss; recorded ${recorded.length} transitions (last ${recorded.at(-1)}); ` +
        `Kafka answered ${answeredAfterMs.toFixed(0)} ms after SIGCONT; resume then completed the upgrade in ${resumeMs.toFixed(0)} ms\n`,
    );
  });
});

describe('kvupgrade run while Kafka cannot be reached for less than options.recordWaitSeconds (30 s)', () => {
  let cluster: EtcdTestCluster;
  withEtcdCluster({ infra, basePort: 24350 }, (c) => {
    cluster = c;
  });

  it('waits, then records the same events once Kafka is back and goes on to the end', async () => {
    const HOLD_MS = 5000;
    const { run, noticedAfterMs, endedAfterMs } = await runLosingKafka(
      cluster,
      () =>
        new Promise((resolve) =>
          setTimeout(() => {
            signalAll('SIGCONT');
            resolve();
          }, HOLD_MS),
        ),
    );
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/cluster etcd-\w+: completed\n$/);
    expect(run.stderr).toContain(
      'kvupgrade: kv.upgrade-progress does not record; waiting up to 30 s before the next step (kafka: ',
    );
    const recordedAfter = /kvupgrade: recorded after ([\d.]+) s; going on/.exec(run.stderr);
    expect(recordedAfter).not.toBeNull();

    const all = await events(cluster);
    const order = all.find((e) => e.step === 'checks-passed')!.order;
    expect(story(all)).toEqual(fullStory(order));
    // The publish under way when Kafka was lost may have been written too: a copy with the same id.
    const copies = (await topicEvents(cluster)).length - all.length;
    expect(copies).toBeGreaterThanOrEqual(0);

    process.stdout.write(
      `kvupgrade, Kafka lost for ${HOLD_MS} ms at the first member's stop (recordWaitSeconds 30): the run noticed after ${noticedAfterMs?.toFixed(0)} ms, ` +
        `waited ${recordedAfter![1]} s for the record, and completed ${endedAfterMs.toFixed(0)} ms after the loss; ` +
        `events written twice (same event id, read once): ${copies}\n`,
    );
  });
});
