import { describe, expect, it } from 'vitest';
import {
  alreadyUpgraded,
  noCurrentRunLines,
  nothingToResume,
  previousRunNote,
  recordedRuns,
  rollbackRefusal,
  runOutcome,
  standing,
} from '../../../services/kvupgrade/domain/history.ts';
import type { ObservedCluster } from '../../../services/kvupgrade/domain/incarnation.ts';
import { type Trigger, transition } from '../../../services/kvupgrade/domain/machine.ts';
import {
  checkEvent,
  transitionEvent,
  type UpgradeProgress,
} from '../../../services/kvupgrade/domain/progress.ts';
import { initialState, type UpgradeState } from '../../../services/kvupgrade/domain/run-state.ts';

let ids = 0;
// Every event has an id of its own, as randomUUID gives them: a repeated id is one event written twice.
const ctx = { session: 's1', command: 'run', newId: () => `e${++ids}` };
const T0 = Date.parse('2026-11-25T10:00:00Z');
const incarnation = (revision: number, folder = 'first') => ({
  clusterId: '42',
  revision,
  members: [{ name: 'm1', memberId: '1', dataDir: '/d/m1', dataDirId: folder }],
});
const checks = (runId: string, revision: number): Trigger => ({
  type: 'checks-passed',
  runId,
  order: ['m1'],
  leader: 'm1',
  fromVersion: '3.4.23',
  toVersion: '3.5.16',
  pacingMs: 0,
  incarnation: incarnation(revision),
});
const snapshot = {
  path: '/b/c1-r1.db',
  revision: 40,
  hash: 1,
  totalKeys: 3,
  totalBytes: 9,
  takenAt: T0,
  member: 'm1',
};
const upgrade = (runId: string, revision: number): Trigger[] => [
  checks(runId, revision),
  { type: 'snapshot-saved', snapshot: { ...snapshot, path: `/b/c1-${runId}.db` }, elapsedMs: 1 },
  { type: 'member-stopping', member: 'm1', leader: 'm1' },
  { type: 'member-stopped', member: 'm1', elapsedMs: 1 },
  { type: 'member-starting', member: 'm1' },
  { type: 'member-upgraded', member: 'm1', version: '3.5.16', elapsedMs: 1 },
  { type: 'all-members-upgraded' },
  { type: 'cluster-version-updated', clusterVersion: '3.5.0', elapsedMs: 1 },
];

/** The events a sequence of triggers records, a second apart, starting from `state`. */
function record(triggers: readonly Trigger[], start = T0, state: UpgradeState = initialState('c1')) {
  const events: UpgradeProgress[] = [];
  triggers.forEach((trigger, i) => {
    state = transition(state, trigger, start + 1000 * i);
    events.push(transitionEvent(state, trigger, ctx, start + 1000 * i));
  });
  return events;
}

/** The cluster now: the same folders when on 3.5, built again (new folders) when on 3.4. */
const now = (revision: number, cluster = '3.4.0'): ObservedCluster => ({
  incarnation: incarnation(revision, cluster === '3.4.0' ? 'second' : 'first'),
  versions: [{ name: 'm1', server: cluster === '3.4.0' ? '3.4.23' : '3.5.16', cluster }],
});

describe('recordedRuns', () => {
  it('rebuilds each run from its own events: two upgrades of one name are two completed runs', () => {
    const refused = checkEvent(
      { ...initialState('c1'), runId: 'r0' },
      { check: 'x', status: 'refuse', message: 'no' },
      ctx,
      T0,
    );
    const events = [refused, ...record(upgrade('r1', 50)), ...record(upgrade('r2', 1), T0 + 60_000)];
    const runs = recordedRuns('c1', events);
    expect(runs.map((r) => [r.runId, r.state.phase, r.state.incarnation?.revision])).toEqual([
      ['r1', 'completed', 50],
      ['r2', 'completed', 1],
    ]);
  });

  it('leaves out the events of a run that do not follow from the ones before, and says from where', () => {
    const events = record(upgrade('r1', 50).slice(0, 4));
    const stray = {
      ...events[2]!,
      event_id: 'another-writer',
      step: 'member-upgraded',
      observed_version: '3.5.16',
      occurred_at: T0 + 2500,
    };
    const [run] = recordedRuns('c1', [...events.slice(0, 3), stray, events[3]!]);
    expect(run!.state.phase).toBe('stopping');
    expect(run!.inconsistent).toBe('member-upgraded at 2026-11-25T10:00:02.500Z');
  });

  it('reads an event written twice (sent again after an attempt that seemed to fail) once', () => {
    const events = record(upgrade('r1', 50));
    const twice = [...events.slice(0, 4), events[3]!, ...events.slice(4), events[7]!];
    expect(recordedRuns('c1', twice)).toEqual(recordedRuns('c1', events));
    expect(recordedRuns('c1', twice)[0]).toMatchObject({ state: { phase: 'completed' } });
    expect(recordedRuns('c1', twice)[0]!.inconsistent).toBeUndefined();
  });
});

describe('what is said of the runs of a name', () => {
  const [first, second] = recordedRuns('c1', [
    ...record(upgrade('r1', 50)),
    ...record(upgrade('r2', 60), T0 + 60_000),
  ]);

  it('the latest run speaks for the cluster only when it is about the cluster as it is now', () => {
    expect(standing([first!], now(70, '3.5.0')).current?.runId).toBe('r1');
    const rebuilt = standing([first!], now(3));
    expect(rebuilt.current).toBeUndefined();
    expect(rebuilt.earlier?.reasons).toEqual([
      'data folders made anew: m1',
      'revision 3 is below 50, where that run began',
      'cluster version 3.4.0 now, 3.5 when that run completed',
    ]);
    expect(standing([], now(3))).toEqual({ current: undefined, earlier: undefined });
  });

  it('how a run ended', () => {
    expect(runOutcome(first!.state)).toBe('completed at 2026-11-25T10:00:07.000Z');
    expect(runOutcome({ ...first!.state, phase: 'rolled-back' })).toBe(
      'was rolled back at 2026-11-25T10:00:07.000Z',
    );
    expect(runOutcome({ ...first!.state, phase: 'member-down' })).toBe(
      'was left in phase member-down at 2026-11-25T10:00:07.000Z',
    );
  });

  it('a new run names the one before it', () => {
    expect(previousRunNote('c1', standing([first!, second!], now(99, '3.5.0')), 'r3')).toBe(
      'previous run r2 of cluster c1 completed at 2026-11-25T10:01:07.000Z; starting run r3',
    );
    expect(previousRunNote('c1', standing([first!], now(3)), 'r2')).toBe(
      'previous run r1 of cluster c1 completed at 2026-11-25T10:00:07.000Z, on an earlier incarnation of the cluster ' +
        '(data folders made anew: m1; revision 3 is below 50, where that run began; cluster version 3.4.0 now, 3.5 when that run completed); ' +
        'starting run r2',
    );
    expect(previousRunNote('c1', standing([], now(3)), 'r1')).toBeUndefined();
  });

  it('status, rollback and resume on a cluster built again say what they found and what to do', () => {
    const { earlier } = standing([first!], now(3));
    const why =
      'on an earlier incarnation of the cluster (data folders made anew: m1; revision 3 is below 50, where that run began; cluster version 3.4.0 now, 3.5 when that run completed)';
    expect(noCurrentRunLines('c1', earlier!)).toEqual([
      'cluster c1: no run recorded for the cluster as it is now',
      `  last run r1 completed at 2026-11-25T10:00:07.000Z, ${why}`,
      '  next: kvupgrade plan, then run',
    ]);
    expect(rollbackRefusal('c1', earlier!)).toBe(
      `rollback refused: the last run of cluster c1, r1, completed at 2026-11-25T10:00:07.000Z ${why}. ` +
        "Its snapshot /b/c1-r1.db holds that cluster's data, not this one's, and is not restored. " +
        'Nothing was changed: no run of the cluster as it is now is recorded, so there is nothing to roll back; ' +
        'to bring that data back anyway, restore the snapshot by hand (etcdutl snapshot restore).',
    );
    expect(nothingToResume('c1', { current: undefined, earlier })).toBe(
      `nothing to resume: the last run of cluster c1, r1, completed at 2026-11-25T10:00:07.000Z ${why}; start a new one with plan, then run`,
    );
    expect(nothingToResume('c1', standing([first!], now(70, '3.5.0')))).toBe(
      'nothing to resume: cluster c1 is completed',
    );
  });

  it('run on a cluster already on 3.5 answers already upgraded', () => {
    const versions = [
      { name: 'm1', server: '3.5.16', cluster: '3.5.0' },
      { name: 'm2', server: '3.5.16', cluster: '3.5.0' },
    ];
    expect(alreadyUpgraded('c1', versions, first)).toBe(
      'cluster c1 is already upgraded: every member runs 3.5.16, cluster version 3.5.0; nothing to do\n' +
        '  upgraded by run r1, which completed at 2026-11-25T10:00:07.000Z',
    );
    expect(
      alreadyUpgraded('c1', [versions[0]!, { name: 'm2', server: '3.5.17', cluster: '3.5.0' }], undefined),
    ).toBe(
      'cluster c1 is already upgraded: m1 3.5.16 (cluster 3.5.0), m2 3.5.17 (cluster 3.5.0); nothing to do',
    );
  });
});
