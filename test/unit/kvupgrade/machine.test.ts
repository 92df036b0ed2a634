import { describe, expect, it } from 'vitest';
import {
  edge,
  IllegalTransitionError,
  nextAction,
  rebuild,
  TRANSITIONS,
  type Trigger,
  transition,
} from '../../../services/kvupgrade/domain/machine.ts';
import { ACTIVE_PHASES, PHASES } from '../../../services/kvupgrade/domain/phases.ts';
import {
  initialState,
  nextStopAllowedAt,
  pickNextMember,
  rollbackTargets,
  type UpgradeState,
} from '../../../services/kvupgrade/domain/run-state.ts';

const snapshot = {
  path: '/b/s.db',
  revision: 40,
  hash: 7,
  totalKeys: 12,
  totalBytes: 24576,
  takenAt: 1000,
  member: 'm2',
};
const checks: Trigger = {
  type: 'checks-passed',
  runId: 'r1',
  order: ['m1', 'm3', 'm2'],
  leader: 'm2',
  fromVersion: '3.4.23',
  toVersion: '3.5.16',
  pacingMs: 0,
};

/** Applies triggers one after another at times 1000, 2000, ...: each step of a run. */
function play(triggers: Trigger[], from: UpgradeState = initialState('c1')): UpgradeState {
  return triggers.reduce((state, trigger, i) => transition(state, trigger, 1000 * (i + 1)), from);
}

const upgradeMember = (member: string, elapsedMs = 400): Trigger[] => [
  { type: 'member-stopping', member, leader: 'm2' },
  { type: 'member-stopped', member, elapsedMs: 50 },
  { type: 'member-starting', member },
  { type: 'member-upgraded', member, version: '3.5.16', elapsedMs },
];

const happyPath: Trigger[] = [
  checks,
  { type: 'snapshot-saved', snapshot, elapsedMs: 30 },
  ...upgradeMember('m1', 300),
  ...upgradeMember('m3', 400),
  ...upgradeMember('m2', 500),
  { type: 'all-members-upgraded' },
  { type: 'cluster-version-updated', clusterVersion: '3.5.0', elapsedMs: 3700 },
];

describe('the transition table', () => {
  it('names only known phases, and each (phase, trigger) pair has at most one edge', () => {
    const seen = new Set<string>();
    for (const t of TRANSITIONS) {
      expect(PHASES).toContain(t.to);
      for (const from of t.from) {
        expect(PHASES).toContain(from);
        const key = `${from}/${t.trigger}`;
        expect(seen.has(key), key).toBe(false);
        seen.add(key);
      }
    }
  });

  it('leaves no phase unreachable from idle', () => {
    const reached = new Set(['idle']);
    for (let changed = true; changed; ) {
      changed = false;
      for (const t of TRANSITIONS) {
        if (t.from.some((f) => reached.has(f)) && !reached.has(t.to)) {
          reached.add(t.to);
          changed = true;
        }
      }
    }
    expect([...reached].sort()).toEqual([...PHASES].sort());
  });

  it('lets resume continue every active phase in place, and no other', () => {
    for (const phase of PHASES)
      expect(edge(phase, 'resumed')?.to).toBe(ACTIVE_PHASES.includes(phase) ? phase : undefined);
  });

  it('has no way back to the old binary after the point of no return, only the snapshot', () => {
    expect(edge('completed', 'step-failed')).toBeUndefined();
    // Only after a patch hop (no point of no return): a minor hop's old binary is refused by the guard.
    const completed = play(happyPath);
    expect(() => transition(completed, { type: 'rollback-requested' }, 99)).toThrow(
      /after a minor hop the old binary cannot go back/,
    );
    expect(edge('completed', 'restore-started')?.to).toBe('restoring');
    expect(edge('completed', 'downgrade-requested')?.to).toBe('downgrading');
    expect(edge('awaiting-cluster-version', 'step-failed')?.to).toBe('failed');
    expect(edge('starting', 'step-failed')?.to).toBe('rolling-back');
  });
});

describe('transition', () => {
  it('walks a whole upgrade to completed, adding up the floor', () => {
    const done = play(happyPath);
    expect(done.phase).toBe('completed');
    expect(done.upgraded).toEqual(['m1', 'm3', 'm2']);
    expect(done.current).toBeUndefined();
    expect(done.snapshot).toEqual(snapshot);
    expect(done.floorMs).toBe(300 + 400 + 500 + 3700);
    expect(done.startedAt).toBe(1000);
  });

  it('refuses an edge the table does not have, naming trigger and phase', () => {
    expect(() =>
      transition(initialState('c1'), { type: 'member-stopping', member: 'm1', leader: 'm2' }, 1),
    ).toThrow(new IllegalTransitionError('member-stopping is not allowed in phase idle'));
    const done = play(happyPath);
    expect(() => transition(done, { type: 'step-failed', member: undefined, error: 'x' }, 1)).toThrow(
      /not allowed in phase completed/,
    );
  });

  it('refuses checks whose order does not end with the leader', () => {
    expect(() => play([{ ...checks, order: ['m2', 'm1', 'm3'] } as Trigger])).toThrow(
      /must end with the leader/,
    );
  });

  it('refuses to stop a member that is upgraded or not in the order', () => {
    const afterM1 = play([
      checks,
      { type: 'snapshot-saved', snapshot, elapsedMs: 1 },
      ...upgradeMember('m1'),
    ]);
    expect(() => transition(afterM1, { type: 'member-stopping', member: 'm1', leader: 'm2' }, 1)).toThrow(
      /already upgraded/,
    );
    expect(() => transition(afterM1, { type: 'member-stopping', member: 'm9', leader: 'm2' }, 1)).toThrow(
      /not in the order/,
    );
  });

  it('refuses steps about another member than the one in progress', () => {
    const stopping = play([
      checks,
      { type: 'snapshot-saved', snapshot, elapsedMs: 1 },
      { type: 'member-stopping', member: 'm1', leader: 'm2' },
    ]);
    expect(() => transition(stopping, { type: 'member-stopped', member: 'm3', elapsedMs: 1 }, 1)).toThrow(
      /not the member in progress/,
    );
  });

  it('refuses all-members-upgraded while members remain, naming them', () => {
    const afterM1 = play([
      checks,
      { type: 'snapshot-saved', snapshot, elapsedMs: 1 },
      ...upgradeMember('m1'),
    ]);
    expect(() => transition(afterM1, { type: 'all-members-upgraded' }, 1)).toThrow(
      /not upgraded yet: m3, m2/,
    );
  });

  it('a failure while mixed rolls back the member in progress first, then the upgraded ones newest first', () => {
    const failing = play([
      checks,
      { type: 'snapshot-saved', snapshot, elapsedMs: 1 },
      ...upgradeMember('m1'),
      ...upgradeMember('m3'),
      { type: 'member-stopping', member: 'm2', leader: 'm2' },
      { type: 'member-stopped', member: 'm2', elapsedMs: 1 },
      { type: 'member-starting', member: 'm2' },
      { type: 'step-failed', member: 'm2', error: 'm2 is not running (exit code 1)' },
    ]);
    expect(failing.phase).toBe('rolling-back');
    expect(failing.error).toBe('m2 is not running (exit code 1)');
    expect(rollbackTargets(failing)).toEqual(['m2', 'm3', 'm1']);
    expect(nextAction(failing)).toBe('roll-back');
    const back = play(
      [
        { type: 'member-rolled-back', member: 'm2', version: '3.4.23', elapsedMs: 1 },
        { type: 'member-rolled-back', member: 'm3', version: '3.4.23', elapsedMs: 1 },
      ],
      failing,
    );
    expect(() => transition(back, { type: 'rollback-finished' }, 1)).toThrow(/members remain/);
    expect(() =>
      transition(back, { type: 'member-rolled-back', member: 'm9', version: '3.4.23', elapsedMs: 1 }, 1),
    ).toThrow(/needs no rollback/);
    const finished = play(
      [
        { type: 'member-rolled-back', member: 'm1', version: '3.4.23', elapsedMs: 1 },
        { type: 'rollback-finished' },
      ],
      back,
    );
    expect(finished.phase).toBe('rolled-back');
    expect(finished.upgraded).toEqual([]);
    expect(nextAction(finished)).toBe('none');
  });

  it('a failure before any member stopped has nothing to roll back', () => {
    const failed = play([checks, { type: 'step-failed', member: undefined, error: 'snapshot failed' }]);
    expect(rollbackTargets(failed)).toEqual([]);
    expect(transition(failed, { type: 'rollback-finished' }, 9).phase).toBe('rolled-back');
  });

  it('restores only with a snapshot; a new run after it starts from nothing', () => {
    const done = play(happyPath);
    const restored = play(
      [
        { type: 'restore-started', lostRevisions: 25 },
        { type: 'member-restored', member: 'm1' },
        { type: 'member-restored', member: 'm2' },
        { type: 'member-restored', member: 'm3' },
        { type: 'restore-finished', elapsedMs: 1200 },
      ],
      done,
    );
    expect(restored.phase).toBe('restored');
    expect(restored.rolledBack).toEqual(['m1', 'm2', 'm3']);
    // The runs before are history (domain/history.ts): a run's checks come only in phase idle.
    expect(() => transition(restored, { ...checks, runId: 'r2' }, 99)).toThrow(
      /not allowed in phase restored/,
    );
    expect(transition(initialState('c1'), { ...checks, runId: 'r2' }, 99).runId).toBe('r2');
    const noSnapshot = { ...done, snapshot: undefined };
    expect(() => transition(noSnapshot, { type: 'restore-started', lostRevisions: undefined }, 1)).toThrow(
      /no snapshot/,
    );
  });
});

describe('decisions over the state', () => {
  it('maps every phase to the next action', () => {
    const s = play([checks]);
    expect(nextAction(s)).toBe('save-snapshot');
    const saved = play([{ type: 'snapshot-saved', snapshot, elapsedMs: 1 }], s);
    expect(nextAction(saved)).toBe('upgrade-next-member');
    const stopping = play([{ type: 'member-stopping', member: 'm1', leader: 'm2' }], saved);
    expect(nextAction(stopping)).toBe('stop-member');
    const down = play([{ type: 'member-stopped', member: 'm1', elapsedMs: 1 }], stopping);
    expect(nextAction(down)).toBe('start-member');
    const starting = play([{ type: 'member-starting', member: 'm1' }], down);
    expect(nextAction(starting)).toBe('gate-member');
    const allButLast = play([...upgradeMember('m1'), ...upgradeMember('m3'), ...upgradeMember('m2')], saved);
    expect(nextAction(allButLast)).toBe('finish-members');
    expect(nextAction(play([{ type: 'all-members-upgraded' }], allButLast))).toBe('await-cluster-version');
    expect(nextAction(play(happyPath))).toBe('none');
    expect(nextAction(initialState('c1'))).toBe('none');
  });

  it('picks followers first and the leader last, even when leadership moved', () => {
    const saved = play([checks, { type: 'snapshot-saved', snapshot, elapsedMs: 1 }]);
    expect(pickNextMember(saved, 'm2')).toBe('m1');
    expect(pickNextMember(saved, 'm1')).toBe('m3');
    const two = play([...upgradeMember('m1'), ...upgradeMember('m3')], saved);
    expect(pickNextMember(two, 'm2')).toBe('m2');
    expect(pickNextMember(two, undefined)).toBe('m2');
    expect(pickNextMember(play(happyPath), 'm2')).toBeUndefined();
  });

  it('paces members from the moment the previous one passed its gate', () => {
    const paced = play([
      { ...checks, pacingMs: 120_000 } as Trigger,
      { type: 'snapshot-saved', snapshot, elapsedMs: 1 },
    ]);
    expect(nextStopAllowedAt(paced)).toBe(120_000);
    const afterM1 = play(upgradeMember('m1'), paced);
    expect(afterM1.lastUpgradedAt).toBe(4000);
    expect(nextStopAllowedAt(afterM1)).toBe(124_000);
    expect(nextStopAllowedAt(play([{ type: 'resumed' }], afterM1))).toBe(124_000);
  });

  it('rebuilds the same state from the recorded transitions', () => {
    const steps = happyPath.slice(0, 7).map((trigger, i) => ({ trigger, at: 1000 * (i + 1) }));
    expect(rebuild('c1', steps)).toEqual(play(happyPath.slice(0, 7)));
  });
});
