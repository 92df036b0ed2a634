import { describe, expect, it } from 'vitest';
import { transition } from '../../../services/kvupgrade/domain/machine.ts';
import { transitionEvent, triggerOf } from '../../../services/kvupgrade/domain/progress.ts';
import { planRoute } from '../../../services/kvupgrade/domain/route.ts';
import { initialState, type UpgradeState } from '../../../services/kvupgrade/domain/run-state.ts';
import type { Trigger } from '../../../services/kvupgrade/domain/triggers.ts';
import { hopKind, refusedAsTarget } from '../../../services/kvupgrade/domain/upgrade-paths.ts';

describe('hopKind: what etcd guides say of one rolling upgrade', () => {
  it.each([
    ['3.5.16', '3.5.35', 'patch'],
    ['3.4.23', '3.5.35', 'minor'],
    ['3.5.32', '3.6.16', 'minor'],
    ['3.6.11', '3.7.3', 'minor'],
    ['3.5.35', '3.5.35', 'none'],
    ['3.4.23', '3.5.x', 'minor'],
  ])('%s -> %s is %s', (from, to, kind) => {
    expect(hopKind(from, to).kind).toBe(kind);
  });

  it.each([
    [
      '3.5.16',
      '3.6.16',
      /^3\.5\.16 is older than 3\.5\.32, the oldest 3\.5 patch that may upgrade to 3\.6 .*upgrade to 3\.5\.32 or a later 3\.5 patch first/,
    ],
    ['3.6.10', '3.7.3', /^3\.6\.10 is older than 3\.6\.11/],
    ['3.4.23', '3.6.16', /skips 3\.5: etcd upgrades one minor at a time/],
    ['3.6.16', '3.5.35', /goes back/],
    [
      '3.4.23',
      '3.5.2',
      /^3\.5\.2 is refused as a target: data inconsistency: .*#13766.*take 3\.5\.3 or later/,
    ],
    ['3.6.16', '3.7.0-rc.0', /is a pre-release/],
    ['3.7.3', '3.8.0', /3\.7 -> 3\.8 is not an upgrade kvupgrade knows/],
  ])('refuses %s -> %s, saying why', (from, to, why) => {
    const kind = hopKind(from, to);
    expect(kind.kind).toBe('refused');
    expect(kind.kind === 'refused' && kind.why).toMatch(why);
  });

  it('refuses 3.5.0 to 3.5.2 only', () => {
    expect(['3.5.0', '3.5.1', '3.5.2', '3.5.3'].map((v) => refusedAsTarget(v) !== undefined)).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });
});

describe('planRoute', () => {
  const via = ['3.5.35', '3.6.16'];
  it('goes from what the members run through binaries.via to the target', () => {
    const route = planRoute({ running: '3.4.23', current: '3.4.23', via, target: '3.7.3' });
    expect(route.releases).toEqual(['3.4.23', '3.5.35', '3.6.16', '3.7.3']);
    expect(route.hops.map((h) => h.kind.kind)).toEqual(['minor', 'minor', 'minor']);
  });
  it('continues from a release of the route the cluster already runs', () => {
    expect(planRoute({ running: '3.6.16', current: '3.4.23', via, target: '3.7.3' }).releases).toEqual([
      '3.6.16',
      '3.7.3',
    ]);
  });
  it('starts from the members own patch of the first minor', () => {
    expect(planRoute({ running: '3.4.20', current: '3.4.23', via: [], target: '3.5.16' }).releases).toEqual([
      '3.4.20',
      '3.5.16',
    ]);
  });
  it('says so when the members run none of the file releases', () => {
    expect(planRoute({ running: '3.5.16', current: '3.4.23', via: [], target: '3.5.35' }).problem).toBe(
      'members run 3.5.16, but binaries.current is 3.4.23 and no release of binaries.via is 3.5.16',
    );
  });
});

const at = (n: number) => 1000 * n;
const walk = (state: UpgradeState, triggers: readonly Trigger[]) =>
  triggers.reduce((s, t, i) => transition(s, t, at(i + 1)), state);
const memberUp = (m: string, version: string): Trigger[] => [
  { type: 'member-stopping', member: m, leader: 'm3' },
  { type: 'member-stopped', member: m, elapsedMs: 100 },
  { type: 'member-starting', member: m },
  { type: 'member-upgraded', member: m, version, elapsedMs: 300 },
];
const hop = (version: string): Trigger[] => [
  {
    type: 'snapshot-saved',
    snapshot: { path: '/b', revision: 5, hash: 1, totalKeys: 3, totalBytes: 9, takenAt: 1, member: 'm3' },
    elapsedMs: 5,
  },
  ...['m1', 'm2', 'm3'].flatMap((m) => memberUp(m, version)),
  { type: 'all-members-upgraded' },
];
const checks: Trigger = {
  type: 'checks-passed',
  runId: 'r1',
  order: ['m1', 'm2', 'm3'],
  leader: 'm3',
  fromVersion: '3.5.35',
  toVersion: '3.6.16',
  pacingMs: 0,
  route: ['3.5.35', '3.6.16', '3.7.3'],
};

describe('a route and a downgrade in the state machine', () => {
  it('ends a hop between hops, starts the next with its own checks, ends the run at the last', () => {
    let state = walk(initialState('c1'), [checks, ...hop('3.6.16')]);
    expect(() =>
      transition(state, { type: 'cluster-version-updated', clusterVersion: '3.6.0', elapsedMs: 1 }, 9),
    ).toThrow(/is not the route's last/);
    state = walk(state, [{ type: 'hop-completed', clusterVersion: '3.6.0', elapsedMs: 4000, raftIndex: 77 }]);
    expect(state).toMatchObject({ phase: 'between-hops', hop: 0, hopRaftIndex: 77 });
    state = walk(state, [
      { type: 'hop-checks-passed', order: ['m2', 'm1', 'm3'], leader: 'm3', pacingMs: 0 },
    ]);
    expect(state).toMatchObject({
      phase: 'checked',
      hop: 1,
      fromVersion: '3.6.16',
      toVersion: '3.7.3',
      upgraded: [],
    });
    state = walk(state, [
      ...hop('3.7.3'),
      { type: 'cluster-version-updated', clusterVersion: '3.7.0', elapsedMs: 4000 },
    ]);
    expect(state.phase).toBe('completed');
  });

  it('downgrades a finished 3.5 -> 3.6 hop member by member, and rebuilds from its events through their fields', () => {
    const oneHop = { ...checks, toVersion: '3.6.16', route: undefined } as Trigger;
    const done = walk(initialState('c1'), [
      oneHop,
      ...hop('3.6.16'),
      { type: 'cluster-version-updated', clusterVersion: '3.6.0', elapsedMs: 4000 },
    ]);
    const steps: Trigger[] = [
      { type: 'downgrade-requested', order: ['m1', 'm2', 'm3'], leader: 'm3' },
      { type: 'downgrade-enabled', clusterVersion: '3.5.0', elapsedMs: 4000 },
      ...['m1', 'm2', 'm3'].map(
        (m): Trigger => ({ type: 'member-downgraded', member: m, version: '3.5.35', elapsedMs: 900 }),
      ),
      { type: 'downgrade-finished', elapsedMs: 9000 },
    ];
    expect(() => transition(done, steps[2]!, 1)).toThrow(/not allowed in phase completed/);
    let state = done;
    const ctx = { session: 's', command: 'rollback', newId: () => 'e' };
    for (const [i, t] of steps.entries()) {
      state = transition(state, t, at(i));
      // Every trigger survives its event: resume rebuilds the downgrade from them.
      expect(triggerOf(transitionEvent(state, t, ctx, at(i)))).toEqual(t);
    }
    expect(state).toMatchObject({
      phase: 'downgraded',
      rolledBack: ['m1', 'm2', 'm3'],
      downgradeEnabled: true,
    });
  });
});
