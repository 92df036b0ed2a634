import { describe, expect, inject, it } from 'vitest';
import type { EtcdTestCluster } from '../helpers/etcd-cluster.ts';
import { withEtcdCluster } from '../helpers/etcd-cluster-hooks.ts';
import { memberUpgrade, progressEvents, runKvupgrade, story } from '../helpers/etcd-kvupgrade.ts';
import { readPrefix, startWriter } from '../helpers/etcd-writer.ts';

const infra = inject('infra');
let cluster: EtcdTestCluster;
withEtcdCluster({ infra, basePort: 23410 }, (c) => {
  cluster = c;
});

describe('kvupgrade run on a real 3-member 3.4.23 cluster', () => {
  it('upgrades every member to 3.5.16 while a client writes through all three endpoints without losing a write', async () => {
    const endpoints = cluster.members.map((m) => m.clientUrl);
    const writer = startWriter(endpoints);
    const run = await runKvupgrade(infra, ['run', '--cluster', cluster.file]);
    const report = await writer.stop();
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/cluster etcd-\w+: completed\n$/);

    for (const member of cluster.members) {
      const response = await fetch(`${member.clientUrl}/version`);
      expect(await response.json()).toEqual({ etcdserver: '3.5.16', etcdcluster: '3.5.0' });
    }

    // Every acknowledged write is there with its value, read through each member; none had to fail.
    expect(report.acknowledged.length).toBeGreaterThan(50);
    expect(report.failed).toEqual([]);
    for (const endpoint of endpoints) {
      const stored = await readPrefix(endpoint, 'w/');
      const missing = report.acknowledged.filter((key) => stored.get(key) !== `v${Number(key.slice(2))}`);
      expect(missing).toEqual([]);
    }

    const events = await progressEvents(infra, cluster.name);
    const [leader] = events.filter((e) => e.step === 'checks-passed').map((e) => e.leader);
    const followers = cluster.members.map((m) => m.name).filter((n) => n !== leader);
    expect(story(events)).toEqual([
      'checks-passed',
      'snapshot-saved',
      ...followers.flatMap(memberUpgrade),
      ...memberUpgrade(leader!),
      'all-members-upgraded',
      'cluster-version-updated',
    ]);
    const steps = new Set(events.map((e) => e.step));
    for (const step of [
      'member-published',
      'leadership-moved',
      'updated-cluster-version',
      'capabilities-enabled',
    ])
      expect(steps).toContain(step);
    const done = events.at(-1)!;
    expect(done).toMatchObject({
      phase: 'completed',
      observed_version: '3.5.0',
      upgraded: [...followers, leader],
    });
    expect(
      events
        .filter((e) => e.step === 'member-upgraded')
        .every((e) => e.observed_version === '3.5.16' && (e.elapsed_ms ?? 0) > 0),
    ).toBe(true);
  });

  it('status tells where the cluster stands, and plan says there is nothing left to do', async () => {
    const status = await runKvupgrade(infra, ['status', '--cluster', cluster.file]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`^cluster ${cluster.name}: completed\\n`));
    expect(status.stdout).toMatch(/snapshot: .*backups\/etcd-\w+-\w+\.db \(revision \d+/);
    const plan = await runKvupgrade(infra, ['plan', '--cluster', cluster.file]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('verdict: nothing to do, the cluster already runs 3.5.16');

    const asJson = await runKvupgrade(infra, ['status', '--cluster', cluster.file, '--output', 'json']);
    const [doc, result] = asJson.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(doc).toMatchObject({
      type: 'status',
      cluster: cluster.name,
      phase: 'completed',
      from_version: '3.4.23',
      to_version: '3.5.16',
      upgraded: expect.arrayContaining(['m1', 'm2', 'm3']),
      snapshot: { path: expect.stringMatching(/\.db$/), member: expect.any(String) },
      error: null,
    });
    expect(result).toMatchObject({ type: 'result', command: 'status', outcome: 'completed', exit_code: 0 });
    const bad = await runKvupgrade(infra, ['status', '--cluster', '/nonexistent.yaml', '--output', 'json']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toEqual({
      type: 'result',
      command: 'status',
      cluster: null,
      cluster_file: '/nonexistent.yaml',
      outcome: 'error',
      phase: null,
      exit_code: 2,
      message: 'cluster file /nonexistent.yaml: no such file',
    });
  });

  it('refuses to resume or start over a finished run', async () => {
    const resume = await runKvupgrade(infra, ['resume', '--cluster', cluster.file]);
    expect(resume.code).toBe(0);
    expect(resume.stdout).toBe(`nothing to resume: cluster ${cluster.name} is completed\n`);
  });
});
