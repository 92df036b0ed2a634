import { describe, expect, inject, it } from 'vitest';
import type { EtcdTestCluster } from '../helpers/etcd-cluster.ts';
import { withEtcdCluster } from '../helpers/etcd-cluster-hooks.ts';
import {
  memberUpgrade,
  progressEvents,
  runKilledAtSecondStop,
  runKvupgrade,
  runReplay,
  story,
} from '../helpers/etcd-kvupgrade.ts';
import { readPrefix, startWriter } from '../helpers/etcd-writer.ts';

const infra = inject('infra');
let cluster: EtcdTestCluster;
withEtcdCluster({ infra, basePort: 23710 }, (c) => {
  cluster = c;
});

describe('kvupgrade resume after the orchestrator was SIGKILLed in the middle of a run', () => {
  it('finishes the upgrade, and replay of kv.upgrade-progress shows both sessions', async () => {
    const writer = startWriter(cluster.members.map((m) => m.clientUrl));
    const killed = await runKilledAtSecondStop(infra, cluster.file);
    expect(killed.signal, killed.stdout).toBe('SIGKILL');

    const interrupted = await runKvupgrade(infra, ['status', '--cluster', cluster.file]);
    expect(interrupted.stdout).toMatch(new RegExp(`^cluster ${cluster.name}: stopping\\n`));
    expect(interrupted.stdout).toContain('next: resume (or rollback)');
    const again = await runKvupgrade(infra, ['run', '--cluster', cluster.file]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/has a run in progress \(run \w+, phase stopping\): use resume or rollback/);

    const resumed = await runKvupgrade(infra, ['resume', '--cluster', cluster.file]);
    const report = await writer.stop();
    expect(resumed.code, `${resumed.stdout}\n${resumed.stderr}`).toBe(0);
    expect(resumed.stdout).toMatch(/resumed: resumed in phase stopping/);
    expect(resumed.stdout).toMatch(/cluster etcd-\w+: completed\n$/);
    for (const member of cluster.members) {
      const response = await fetch(`${member.clientUrl}/version`);
      expect(await response.json()).toEqual({ etcdserver: '3.5.16', etcdcluster: '3.5.0' });
    }
    expect(report.failed).toEqual([]);
    const stored = await readPrefix(cluster.members[0]!.clientUrl, 'w/');
    expect(report.acknowledged.filter((key) => !stored.has(key))).toEqual([]);

    const events = await progressEvents(infra, cluster.name);
    const [first, second, third] = events.find((e) => e.step === 'checks-passed')!.order;
    expect(story(events)).toEqual([
      'checks-passed',
      'snapshot-saved',
      ...memberUpgrade(first!),
      `member-stopping[${second}]`,
      'resumed',
      ...memberUpgrade(second!).slice(1),
      ...memberUpgrade(third!),
      'all-members-upgraded',
      'cluster-version-updated',
    ]);

    const replay = await runReplay(infra, cluster.name);
    expect(replay.code, replay.stderr).toBe(0);
    const lines = replay.stdout
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            key: string;
            eventType: string;
            event: { session_id: string; command: string; run_id: string; step: string };
          },
      );
    expect(lines.length).toBe(events.length);
    expect(lines.every((l) => l.key === cluster.name && l.eventType === 'UpgradeProgress')).toBe(true);
    const sessions = new Map(lines.map((l) => [l.event.session_id, l.event.command]));
    // Two sessions of one run: the killed `run` and the `resume` that finished it.
    expect([...sessions.values()].sort()).toEqual(['resume', 'run']);
    expect(new Set(lines.map((l) => l.event.run_id)).size).toBe(1);
    expect(lines.at(-1)!.event.step).toBe('cluster-version-updated');
  });
});
