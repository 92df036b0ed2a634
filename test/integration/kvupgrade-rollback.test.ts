import { describe, expect, inject, it } from 'vitest';
import type { EtcdTestCluster } from '../helpers/etcd-cluster.ts';
import { withEtcdCluster } from '../helpers/etcd-cluster-hooks.ts';
import {
  etcdFailingOnSecondMember,
  progressEvents,
  rolledBackAtSecondStart,
  runKvupgrade,
  story,
} from '../helpers/etcd-kvupgrade.ts';
import { putKey, readPrefix } from '../helpers/etcd-writer.ts';

const infra = inject('infra');
let cluster: EtcdTestCluster;

/**
 * The real etcd 3.5.16, except that the second member it is asked to start gets a flag 3.5 does
 * not know, so that start fails as a broken binary or configuration would (exit 2).
 */
withEtcdCluster({ infra, basePort: 23610 }, async (c) => {
  const failing = await etcdFailingOnSecondMember(c.dir, c.bin.etcd35);
  cluster = await c.rewrite((raw) => {
    (raw.binaries as Record<string, string>).target = failing;
  });
});

describe('kvupgrade run when the 3.5 binary fails on the second member', () => {
  it('rolls back by itself: the cluster ends healthy on 3.4 and the events tell the whole story', async () => {
    await putKey(cluster.members[0]!.clientUrl, 'before/upgrade', 'kept');
    const run = await runKvupgrade(infra, ['run', '--cluster', cluster.file]);
    expect(run.code, run.stdout).toBe(1);
    expect(run.stdout).toMatch(/cluster etcd-\w+: rolled-back\n$/);

    for (const member of cluster.members) {
      const response = await fetch(`${member.clientUrl}/version`);
      expect(await response.json()).toEqual({ etcdserver: '3.4.23', etcdcluster: '3.4.0' });
      expect(await cluster.etcd.health(member.clientUrl)).toBe(true);
      expect(Object.fromEntries(await readPrefix(member.clientUrl, 'before/'))).toEqual({
        'before/upgrade': 'kept',
      });
    }

    const events = await progressEvents(infra, cluster.name);
    const leader = events.find((e) => e.step === 'checks-passed')!.leader!;
    const [first, second] = events.find((e) => e.step === 'checks-passed')!.order;
    expect(leader).not.toBe(first);
    expect(story(events)).toEqual(rolledBackAtSecondStart(first!, second!));
    const failure = events.find((e) => e.step === 'step-failed')!;
    expect(failure.error).toMatch(
      new RegExp(`^${second} is not running \\(exit code 2\\); last log lines: .*`),
    );
    expect(failure.phase).toBe('rolling-back');
    // The member's own words: etcd 3.5 refused the flag.
    expect(
      events.some((e) => e.kind === 'member_log' && e.member === second && e.step === 'flags-rejected'),
    ).toBe(true);
    expect(events.filter((e) => e.step === 'member-rolled-back').map((e) => e.observed_version)).toEqual([
      '3.4.23',
      '3.4.23',
    ]);
    expect(events.at(-1)).toMatchObject({ phase: 'rolled-back', upgraded: [] });

    const status = await runKvupgrade(infra, ['status', '--cluster', cluster.file]);
    expect(status.stdout).toMatch(new RegExp(`^cluster ${cluster.name}: rolled-back\\n`));
    expect(status.stdout).toContain(`error: ${failure.error}`);
  });
});
