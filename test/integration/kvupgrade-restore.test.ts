import { readdir } from 'node:fs/promises';
import { describe, expect, inject, it } from 'vitest';
import type { EtcdTestCluster } from '../helpers/etcd-cluster.ts';
import { withEtcdCluster } from '../helpers/etcd-cluster-hooks.ts';
import { progressEvents, runKvupgrade, story } from '../helpers/etcd-kvupgrade.ts';
import { putKey, readPrefix } from '../helpers/etcd-writer.ts';

const infra = inject('infra');
let cluster: EtcdTestCluster;
withEtcdCluster({ infra, basePort: 23810 }, (c) => {
  cluster = c;
});

describe('kvupgrade rollback after the point of no return', () => {
  it('says what will be lost, then restores the snapshot into a healthy 3.4 cluster holding its keys', async () => {
    const [m1, m2, m3] = cluster.members.map((m) => m.clientUrl) as [string, string, string];
    for (let i = 0; i < 20; i++) await putKey([m1, m2, m3][i % 3]!, `app/${i}`, `value-${i}`);
    const run = await runKvupgrade(infra, ['run', '--cluster', cluster.file]);
    expect(run.code, run.stdout).toBe(0);
    await putKey(m2, 'after/upgrade', 'lost by the restore');

    const asked = await runKvupgrade(infra, ['rollback', '--cluster', cluster.file]);
    expect(asked.code).toBe(4);
    expect(asked.stdout).toMatch(/^rollback of cluster etcd-\w+ restores the snapshot .*\.db\n/);
    expect(asked.stdout).toMatch(
      /the cluster is at revision \d+: the 1 revisions written since the snapshot are LOST/,
    );
    expect(asked.stdout).toContain('new cluster ID and member IDs');
    expect(asked.stdout).toMatch(/run again with --yes to do it\n$/);
    expect(await cluster.etcd.version(m1)).toEqual({ server: '3.5.16', cluster: '3.5.0' });

    const restored = await runKvupgrade(infra, ['rollback', '--yes', '--cluster', cluster.file]);
    expect(restored.code, `${restored.stdout}\n${restored.stderr}`).toBe(0);
    expect(restored.stdout).toMatch(/cluster etcd-\w+: restored\n$/);

    const expected = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`app/${i}`, `value-${i}`]));
    for (const url of [m1, m2, m3]) {
      expect(await cluster.etcd.version(url)).toEqual({ server: '3.4.23', cluster: '3.4.0' });
      expect(await cluster.etcd.health(url)).toBe(true);
      expect(Object.fromEntries(await readPrefix(url, 'app/'))).toEqual(expected);
      expect((await readPrefix(url, 'after/')).size).toBe(0);
    }
    // Writes work again, and the previous data folders are kept beside the new ones.
    await putKey(m3, 'after/restore', 'ok');
    const kept = (await readdir(cluster.dir)).filter((f) => f.includes('.before-restore-'));
    expect(kept).toHaveLength(3);

    const events = await progressEvents(infra, cluster.name);
    expect(story(events).slice(-6)).toEqual([
      'cluster-version-updated',
      'restore-started',
      'member-restored[m1]',
      'member-restored[m2]',
      'member-restored[m3]',
      'restore-finished',
    ]);
    expect(events.find((e) => e.step === 'restore-started')!.lost_revisions).toBe(1);
    // The restored cluster has new IDs and data folders: the run recorded them, so it still speaks for it.
    const restoredAs = events.find((e) => e.step === 'restore-finished')!.incarnation!;
    const checkedAs = events.find((e) => e.step === 'checks-passed')!.incarnation!;
    expect(restoredAs.cluster_id).not.toBe(checkedAs.cluster_id);
    const status = await runKvupgrade(infra, ['status', '--cluster', cluster.file]);
    expect(status.stdout).toMatch(new RegExp(`^cluster ${cluster.name}: restored\\n`));
  });
});
