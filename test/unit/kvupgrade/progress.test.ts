import { describe, expect, it } from 'vitest';
import { type Trigger, transition } from '../../../services/kvupgrade/domain/machine.ts';
import {
  checkEvent,
  noteEvent,
  PROGRESS_EVENT_TYPE,
  transitionEvent,
  triggerOf,
  type UpgradeProgress,
} from '../../../services/kvupgrade/domain/progress.ts';
import { initialState, type UpgradeState } from '../../../services/kvupgrade/domain/run-state.ts';
import { loadCatalog } from '../../../shared/avro/catalog.ts';

const catalog = loadCatalog();
let ids = 0;
const ctx = { session: 's1', command: 'run', newId: () => `e${++ids}` };
const snapshot = {
  path: '/b/s.db',
  revision: 40,
  hash: 4_294_967_295,
  totalKeys: 12,
  totalBytes: 24576,
  takenAt: 1_795_323_217_163,
  member: 'm2',
};

const triggers: Trigger[] = [
  {
    type: 'checks-passed',
    runId: 'r1',
    order: ['m1', 'm2'],
    leader: 'm2',
    fromVersion: '3.4.23',
    toVersion: '3.5.16',
    pacingMs: 120_000,
  },
  { type: 'snapshot-saved', snapshot, elapsedMs: 31 },
  { type: 'member-stopping', member: 'm1', leader: 'm2' },
  { type: 'member-stopped', member: 'm1', elapsedMs: 52 },
  { type: 'member-starting', member: 'm1' },
  { type: 'step-failed', member: 'm1', error: 'm1 is not running (exit code 1)' },
  { type: 'member-rolled-back', member: 'm1', version: '3.4.23', elapsedMs: 420 },
  { type: 'rollback-finished' },
];

const incarnation = {
  clusterId: '11352937356082580213',
  revision: 24,
  members: [
    { name: 'm1', memberId: '12990314713138246594', dataDir: '/d/m1', dataDirId: '9978530@1795631693828' },
    { name: 'm2', memberId: undefined, dataDir: '/d/m2', dataDirId: undefined },
  ],
};

/** Encodes with the real Avro schema and decodes back, as the topic would. */
const throughAvro = (event: UpgradeProgress): UpgradeProgress =>
  catalog.decode(catalog.encode(PROGRESS_EVENT_TYPE, event)).payload as unknown as UpgradeProgress;

describe('UpgradeProgress events', () => {
  it('carry every trigger through Avro so that the state rebuilds exactly', () => {
    let state: UpgradeState = initialState('c1');
    let rebuilt: UpgradeState = initialState('c1');
    triggers.forEach((trigger, i) => {
      state = transition(state, trigger, 1000 * (i + 1));
      const decoded = throughAvro(transitionEvent(state, trigger, ctx, 1000 * (i + 1)));
      expect(decoded.phase).toBe(state.phase);
      const recovered = triggerOf(decoded);
      expect(recovered).toEqual(trigger);
      rebuilt = transition(rebuilt, recovered!, new Date(decoded.occurred_at).getTime());
    });
    expect(rebuilt).toEqual(state);
    expect(rebuilt.phase).toBe('rolled-back');
  });

  it('carry the incarnation of a run through Avro, uint64 IDs as text', () => {
    const checks = { ...triggers[0]!, incarnation } as Trigger;
    const state = transition(initialState('c1'), checks, 5);
    const decoded = throughAvro(transitionEvent(state, checks, ctx, 5));
    expect(decoded.incarnation?.cluster_id).toBe('11352937356082580213');
    expect(triggerOf(decoded)).toEqual(checks);
    expect(state.incarnation).toEqual(incarnation);
    expect(
      throughAvro(checkEvent(state, { check: 'auth', status: 'pass', message: 'ok' }, ctx, 6)).incarnation,
    ).toBe(null);
  });

  it('written with schema v1 (before incarnations) still read, as runs without one', () => {
    const v1 = loadCatalog(undefined, { pin: { UpgradeProgress: 1 } });
    const state = transition(initialState('c1'), triggers[0]!, 5);
    const { incarnation: _, ...old } = transitionEvent(state, triggers[0]!, ctx, 5);
    const decoded = catalog.decode(v1.encode(PROGRESS_EVENT_TYPE, old));
    expect(decoded).toMatchObject({ writerVersion: 1, readerVersion: 3 });
    expect((decoded.payload as unknown as UpgradeProgress).incarnation).toBe(null);
    expect(triggerOf(decoded.payload as unknown as UpgradeProgress)).toEqual(triggers[0]);
  });

  it('say what happened in words and columns', () => {
    const state = transition(initialState('c1'), triggers[0]!, 5);
    const event = transitionEvent(state, triggers[0]!, ctx, 5);
    expect(event).toMatchObject({
      cluster: 'c1',
      run_id: 'r1',
      session_id: 's1',
      command: 'run',
      kind: 'transition',
      step: 'checks-passed',
      phase: 'checked',
      from_version: '3.4.23',
      to_version: '3.5.16',
      order: ['m1', 'm2'],
      pacing_ms: 120_000,
      message: 'checks passed; upgrading 3.4.23 -> 3.5.16 in the order m1, m2 (leader m2 last)',
    });
  });

  it('checks, notes and member log lines encode and rebuild nothing', () => {
    const state = initialState('c1');
    const check = throughAvro(
      checkEvent(state, { check: 'auth', status: 'refuse', message: 'auth is enabled' }, ctx, 1),
    );
    expect(check).toMatchObject({
      kind: 'check',
      step: 'auth',
      message: 'refuse: auth is enabled',
      error: 'auth is enabled',
    });
    const log = throughAvro(
      noteEvent(
        state,
        { step: 'member-published', member: 'm1', message: 'published' },
        ctx,
        2,
        'member_log',
      ),
    );
    expect(log).toMatchObject({ kind: 'member_log', member: 'm1' });
    expect(triggerOf(check)).toBeUndefined();
    expect(triggerOf(log)).toBeUndefined();
  });
});
