import { describe, expect, it } from 'vitest';
import { runUpgrade } from '../../../services/kvupgrade/app/commands.ts';
import { createFakeCluster } from '../../helpers/kvupgrade-fake-cluster.ts';

/** One member's turn: stopped, started on 3.5, and gated (health, quorum read) before the next. */
const turn = (m: string) => [
  `transition member-stopping [${m}]`,
  `stop ${m}`,
  `transition member-stopped [${m}]`,
  `transition member-starting [${m}]`,
  `start ${m} on 3.5.16`,
  `health ${m}`,
  `read ${m} on 3.5.16`,
  `transition member-upgraded [${m}]`,
];

describe('the orchestrator on a 3-member 3.4 cluster whose leader is m2', () => {
  it('checks, snapshots the leader, upgrades the followers one by one, then the leader, and waits for 3.5', async () => {
    const cluster = createFakeCluster({ leader: 'm2' });
    const outcome = await runUpgrade(cluster.deps, { allowAuth: false, runId: 'r1' });

    expect(outcome.kind).toBe('finished');
    expect(outcome.kind === 'finished' && outcome.state.phase).toBe('completed');
    expect(cluster.log).toEqual([
      // Pre-flight: every member probed, every check recorded, nothing touched yet.
      'health m1',
      'read m1 on 3.4.23',
      'health m2',
      'read m2 on 3.4.23',
      'health m3',
      'read m3 on 3.4.23',
      ...[
        'health',
        'quorum-read',
        'auth',
        'versions',
        'cluster-version',
        'same-server-version',
        'membership',
        'leader',
        'quorum-tolerance',
        'route',
        'learners',
        'v2-data',
        'removed-flags',
        'binaries',
        'binaries',
        'processes',
        'v3-database',
      ].map((check) => `check ${check}`),
      'transition checks-passed',
      'snapshot from m2',
      'transition snapshot-saved',
      ...turn('m1'),
      ...turn('m3'),
      // The leader last, once leadership moved to an upgraded member.
      'transition member-stopping [m2]',
      'move leader m2 -> m3',
      'note leadership-moved [m2]',
      ...turn('m2').slice(1),
      'transition all-members-upgraded',
      'transition cluster-version-updated',
    ]);
    expect(cluster.events.filter((e) => e.kind === 'check').every((e) => e.message.startsWith('pass:'))).toBe(
      true,
    );
    expect(cluster.events.at(-1)).toMatchObject({
      phase: 'completed',
      run_id: 'r1',
      order: ['m1', 'm3', 'm2'],
      upgraded: ['m1', 'm3', 'm2'],
      observed_version: '3.5.0',
    });
  });

  it('takes the snapshot from whichever member leads, and upgrades it last', async () => {
    const cluster = createFakeCluster({ leader: 'm1' });
    await runUpgrade(cluster.deps, { allowAuth: false, runId: 'r2' });
    const acts = cluster.log.filter((l) => /^(snapshot|stop|start|move) /.test(l));
    expect(acts).toEqual([
      'snapshot from m1',
      'stop m2',
      'start m2 on 3.5.16',
      'stop m3',
      'start m3 on 3.5.16',
      'move leader m1 -> m3',
      'stop m1',
      'start m1 on 3.5.16',
    ]);
  });
});
