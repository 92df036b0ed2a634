import { describe, expect, it } from 'vitest';
import { loadHistory, resumeUpgrade, runUpgrade } from '../../../services/kvupgrade/app/commands.ts';
import { rollback } from '../../../services/kvupgrade/app/rollback.ts';
import { recordedRuns } from '../../../services/kvupgrade/domain/history.ts';
import { createFakeCluster } from '../../helpers/kvupgrade-fake-cluster.ts';

const RUN = { allowAuth: false };

/** A cluster upgraded once (run r1), then built again in the same place under the same name. */
async function upgradedThenRebuilt() {
  const cluster = createFakeCluster();
  const first = await runUpgrade(cluster.deps, { ...RUN, runId: 'r1' });
  expect(first.kind === 'finished' && first.state.phase).toBe('completed');
  cluster.rebuild();
  return cluster;
}

describe('a cluster whose name has a completed run in its history', () => {
  it('on 3.5 already: run answers already upgraded, naming the run, and records nothing', async () => {
    const cluster = createFakeCluster();
    await runUpgrade(cluster.deps, { ...RUN, runId: 'r1' });
    const before = cluster.events.length;
    const again = await runUpgrade(cluster.deps, { ...RUN, runId: 'r2' });
    expect(again.kind).toBe('already-upgraded');
    expect(again.kind === 'already-upgraded' && again.upgradedBy?.runId).toBe('r1');
    expect(cluster.events).toHaveLength(before);
  });

  it('built again on 3.4: run starts a new run, saying which run came before and why it is history', async () => {
    const cluster = await upgradedThenRebuilt();
    const second = await runUpgrade(cluster.deps, { ...RUN, runId: 'r2' });
    expect(second.kind === 'finished' && second.state.phase).toBe('completed');
    const note = cluster.events.find((e) => e.step === 'previous-run')!;
    expect(note).toMatchObject({ kind: 'note', run_id: 'r2', phase: 'idle' });
    expect(note.message).toMatch(
      /^previous run r1 of cluster lab completed at \S+Z, on an earlier incarnation of the cluster \(data folders made anew: m1, m2, m3; revision 1 is below 40, where that run began; cluster version 3\.4\.0 now, 3\.5 when that run completed\); starting run r2$/,
    );
    const runs = recordedRuns('lab', cluster.events);
    expect(runs.map((r) => [r.runId, r.state.phase])).toEqual([
      ['r1', 'completed'],
      ['r2', 'completed'],
    ]);
  });

  it("built again: rollback refuses to restore the earlier cluster's snapshot, and status speaks of no run", async () => {
    const cluster = await upgradedThenRebuilt();
    const before = cluster.events.length;
    const refused = await rollback(cluster.deps, { confirmed: true });
    expect(refused.kind).toBe('refused');
    expect(refused.kind === 'refused' && refused.reason).toMatch(
      /^rollback refused: the last run of cluster lab, r1, completed at \S+Z on an earlier incarnation of the cluster \(data folders made anew: m1, m2, m3; .*\)\. Its snapshot \/backups\/lab-r1\.db holds that cluster's data, not this one's, and is not restored\. Nothing was changed: no run of the cluster as it is now is recorded, so there is nothing to roll back; to bring that data back anyway, restore the snapshot by hand \(etcdutl snapshot restore\)\.$/,
    );
    expect(cluster.events).toHaveLength(before);
    expect(cluster.log.filter((l) => /^(stop|start) /.test(l))).toHaveLength(6); // the first run's only

    const { standing } = await loadHistory(cluster.deps);
    expect(standing.current).toBeUndefined();
    expect(standing.earlier?.run.runId).toBe('r1');
  });

  it('records which cluster a run is about: its IDs, revision and data folders', async () => {
    const cluster = createFakeCluster();
    await runUpgrade(cluster.deps, { ...RUN, runId: 'r1' });
    const { standing } = await loadHistory(cluster.deps);
    expect(standing.current?.runId).toBe('r1');
    expect(standing.current?.state.incarnation).toMatchObject({
      clusterId: '4242',
      revision: 40,
      members: [
        { name: 'm1', memberId: '1000', dataDir: '/var/lib/etcd/m1', dataDirId: 'folder-1' },
        { name: 'm2', memberId: '1001', dataDir: '/var/lib/etcd/m2', dataDirId: 'folder-1' },
        { name: 'm3', memberId: '1002', dataDir: '/var/lib/etcd/m3', dataDirId: 'folder-1' },
      ],
    });
  });

  it('built again in the middle of a run: resume does not continue it; run starts anew', async () => {
    // The events of a run that was killed right after its checks.
    const first = createFakeCluster();
    await runUpgrade(first.deps, { ...RUN, runId: 'r1' });
    const checked = first.events.findIndex((e) => e.step === 'checks-passed');
    const cluster = createFakeCluster({ history: first.events.slice(0, checked + 1) });
    expect((await loadHistory(cluster.deps)).standing.current?.state.phase).toBe('checked');

    cluster.rebuild();
    const resumed = await resumeUpgrade(cluster.deps);
    expect(resumed).toMatchObject({ resumed: false, phase: 'idle' });
    expect(!resumed.resumed && resumed.reason).toMatch(
      /^nothing to resume: the last run of cluster lab, r1, was left in phase checked at \S+Z on an earlier incarnation of the cluster \(data folders made anew: m1, m2, m3; revision 1 is below 40, where that run began\); start a new one with plan, then run$/,
    );
    const fresh = await runUpgrade(cluster.deps, { ...RUN, runId: 'r2' });
    expect(fresh.kind === 'finished' && fresh.state.phase).toBe('completed');
  });
});
