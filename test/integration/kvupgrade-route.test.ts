import { describe, expect, inject, it } from 'vitest';
import type { EtcdTestCluster } from '../helpers/etcd-cluster.ts';
import { withEtcdCluster } from '../helpers/etcd-cluster-hooks.ts';
import { progressEvents, runKvupgrade, spawnKvupgrade, story } from '../helpers/etcd-kvupgrade.ts';
import { readPrefix, startWriter } from '../helpers/etcd-writer.ts';

// The whole route a 3.4 cluster takes today, on client and peer TLS with client certificates:
// 3.4.23 -> 3.5.35 -> 3.6.16 -> 3.7.3, the orchestrator SIGKILLed in the middle of the 3.5 -> 3.6
// hop and resumed, while a writer goes through every endpoint.
const infra = inject('infra');
let cluster: EtcdTestCluster;
withEtcdCluster(
  {
    infra,
    basePort: 24510,
    tls: true,
    release: '3.4.23',
    target: '3.7.3',
    via: ['3.5.35', '3.6.16'],
    tools: '3.5.35',
    // A 3.6 member snapshots soon after 3.6 takes over, which 3.7 needs (hop-steps.ts).
    extraFlags: () => ['--logger=zap', '--log-outputs=stderr', '--snapshot-count=100'],
    // TLS handshakes while a writer runs, on a busy 2-core machine.
    options: { requestTimeoutMs: 5000 },
  },
  (c) => {
    cluster = c;
  },
);

describe('kvupgrade route 3.4.23 -> 3.7.3 over TLS', () => {
  it('plans the route hop by hop', async () => {
    const plan = await runKvupgrade(infra, ['plan', '--cluster', cluster.file]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain(
      '[ok] route: 3.4.23 -> 3.5.35 -> 3.6.16 -> 3.7.3: 3 hops (minor 3.4 -> 3.5; minor 3.5 -> 3.6; minor 3.6 -> 3.7)',
    );
    expect(plan.stdout).toContain('route: 3.4.23 -> 3.5.35 -> 3.6.16 -> 3.7.3, 3 hops');
    expect(plan.stdout).toContain('point of no return (3.5 -> 3.6): the cluster version becomes 3.6');
  });

  it('goes through every hop, SIGKILLed in the 3.5 -> 3.6 hop and resumed, losing no write', async () => {
    const endpoints = cluster.members.map((m) => m.clientUrl);
    const writer = startWriter(endpoints, { tls: cluster.tls });
    const { child, result } = spawnKvupgrade(infra, ['run', '--cluster', cluster.file]);
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      // The second member of hop 2 stopping: one member on 3.6, one down, one on 3.5.
      const hop2 = seen.split(' hop-checks-passed: ')[1] ?? '';
      if ((hop2.match(/ member-stopping \[/g) ?? []).length >= 2) child.kill('SIGKILL');
    });
    const killed = await result;
    expect(killed.signal, killed.stdout + killed.stderr).toBe('SIGKILL');

    const status = await runKvupgrade(infra, ['status', '--cluster', cluster.file]);
    expect(status.stdout).toMatch(new RegExp(`^cluster ${cluster.name}: stopping\\n`));
    expect(status.stdout).toContain('3.5.35 -> 3.6.16');

    const resumed = await runKvupgrade(infra, ['resume', '--cluster', cluster.file]);
    const report = await writer.stop();
    expect(resumed.code, `${resumed.stdout}\n${resumed.stderr}`).toBe(0);
    expect(resumed.stdout).toMatch(/cluster etcd-\w+: completed\n$/);
    const versions = await Promise.all(cluster.members.map((m) => cluster.etcd.version(m.clientUrl)));
    expect(versions).toEqual(Array(3).fill({ server: '3.7.3', cluster: '3.7.0', storage: '3.7.0' }));

    expect(report.acknowledged.length).toBeGreaterThan(50);
    expect(report.failed).toEqual([]);
    for (const endpoint of endpoints) {
      const stored = await readPrefix(endpoint, 'w/', cluster.tls);
      expect(report.acknowledged.filter((key) => stored.get(key) !== `v${Number(key.slice(2))}`)).toEqual([]);
    }

    const events = await progressEvents(infra, cluster.name);
    const steps = story(events);
    expect(steps.filter((s) => s === 'snapshot-saved')).toHaveLength(3);
    expect(steps.filter((s) => s === 'hop-completed')).toHaveLength(2);
    expect(steps.filter((s) => s === 'hop-checks-passed')).toHaveLength(2);
    expect(steps).toContain('resumed');
    expect(steps.slice(-2)).toEqual(['all-members-upgraded', 'cluster-version-updated']);
    const hopsDone = events.filter((e) => e.step === 'hop-completed' || e.step === 'cluster-version-updated');
    expect(hopsDone.map((e) => [e.hop, e.observed_version])).toEqual([
      [0, '3.5.0'],
      [1, '3.6.0'],
      [2, '3.7.0'],
    ]);
    expect(new Set(events.map((e) => e.session_id)).size).toBe(2);
  });
});
