import type { UpgradeProgressV3 } from '../../../schemas/gen/events.ts';
import type { Incarnation } from './incarnation.ts';
import type { Trigger } from './machine.ts';
import type { Verdict } from './plan.ts';
import type { SnapshotInfo, UpgradeState } from './run-state.ts';

export const PROGRESS_EVENT_TYPE = 'UpgradeProgress' as const;
export type EventKind = 'transition' | 'check' | 'member_log' | 'note';

/** The UpgradeProgress payload (schemas/upgrade-progress.v3.avsc): timestamps as read (Date) or written. */
export type UpgradeProgress = UpgradeProgressV3<number | Date>;

/** Who is writing: the same for every event of one CLI invocation. */
export interface EventContext {
  readonly session: string;
  readonly command: string;
  readonly newId: () => string;
}

const base = (state: UpgradeState, ctx: EventContext, at: number) => ({
  event_id: ctx.newId(),
  occurred_at: at,
  cluster: state.cluster,
  run_id: state.runId ?? null,
  session_id: ctx.session,
  command: ctx.command,
  phase: state.phase,
  member: null,
  from_version: state.fromVersion ?? null,
  to_version: state.toVersion ?? null,
  route: state.route,
  hop: state.route.length > 0 ? state.hop : null,
  raft_index: null,
  observed_version: null,
  elapsed_ms: null,
  leader: state.leader ?? null,
  order: state.order,
  upgraded: state.upgraded,
  pacing_ms: null,
  snapshot: null,
  lost_revisions: null,
  error: null,
  incarnation: null,
});

/** The event of a transition: `after` is the state it led to. Everything the trigger carried is in it. */
export function transitionEvent(
  after: UpgradeState,
  trigger: Trigger,
  ctx: EventContext,
  at: number,
): UpgradeProgress {
  const t = trigger as Partial<Record<string, unknown>>;
  const snapshot = trigger.type === 'snapshot-saved' ? toAvroSnapshot(trigger.snapshot) : null;
  return {
    ...base(after, ctx, at),
    kind: 'transition',
    step: trigger.type,
    member: typeof t.member === 'string' ? t.member : null,
    observed_version:
      trigger.type === 'member-upgraded' ||
      trigger.type === 'member-rolled-back' ||
      trigger.type === 'member-downgraded'
        ? trigger.version
        : trigger.type === 'cluster-version-updated' ||
            trigger.type === 'hop-completed' ||
            trigger.type === 'downgrade-enabled'
          ? trigger.clusterVersion
          : null,
    elapsed_ms: typeof t.elapsedMs === 'number' ? Math.round(t.elapsedMs) : null,
    pacing_ms:
      trigger.type === 'checks-passed' || trigger.type === 'hop-checks-passed' ? trigger.pacingMs : null,
    snapshot,
    lost_revisions: trigger.type === 'restore-started' ? (trigger.lostRevisions ?? null) : null,
    message: describe(trigger, after),
    error: typeof t.error === 'string' ? t.error : null,
    raft_index: trigger.type === 'hop-completed' ? (trigger.raftIndex ?? null) : null,
    incarnation:
      (trigger.type === 'checks-passed' || trigger.type === 'restore-finished') && trigger.incarnation
        ? toAvroIncarnation(trigger.incarnation)
        : null,
  };
}

export function checkEvent(
  state: UpgradeState,
  verdict: Verdict,
  ctx: EventContext,
  at: number,
): UpgradeProgress {
  return {
    ...base(state, ctx, at),
    kind: 'check',
    step: verdict.check,
    message: `${verdict.status}: ${verdict.message}`,
    error: verdict.status === 'refuse' ? verdict.message : null,
  };
}

export function noteEvent(
  state: UpgradeState,
  note: {
    step: string;
    message: string;
    member?: string;
    elapsedMs?: number;
    observedVersion?: string;
    error?: string;
  },
  ctx: EventContext,
  at: number,
  kind: 'note' | 'member_log' = 'note',
): UpgradeProgress {
  return {
    ...base(state, ctx, at),
    kind,
    step: note.step,
    member: note.member ?? null,
    observed_version: note.observedVersion ?? null,
    elapsed_ms: note.elapsedMs === undefined ? null : Math.round(note.elapsedMs),
    message: note.message,
    error: note.error ?? null,
  };
}

/** Each event once: an event sent again after an attempt that seemed to fail may be on the topic twice. */
export function distinctEvents(events: readonly UpgradeProgress[]): UpgradeProgress[] {
  const seen = new Set<string>();
  return events.filter((e) => !seen.has(e.event_id) && seen.add(e.event_id));
}

/** The trigger a transition event records, for rebuilding the state; undefined for other kinds. */
export function triggerOf(event: UpgradeProgress): Trigger | undefined {
  if (event.kind !== 'transition') return undefined;
  const member = event.member ?? '';
  const elapsedMs = event.elapsed_ms ?? 0;
  const error = event.error ?? '';
  switch (event.step) {
    case 'checks-passed':
      return {
        type: 'checks-passed',
        runId: event.run_id ?? '',
        order: event.order,
        leader: event.leader ?? '',
        fromVersion: event.from_version ?? '',
        toVersion: event.to_version ?? '',
        pacingMs: event.pacing_ms ?? 0,
        ...incarnationOf(event),
        // One hop is [from, to], what a run without a route (events before schema v3) takes.
        ...(event.route.length > 2 ? { route: event.route } : {}),
      };
    case 'hop-completed':
      return {
        type: 'hop-completed',
        clusterVersion: event.observed_version ?? '',
        elapsedMs,
        ...(event.raft_index !== null ? { raftIndex: event.raft_index } : {}),
      };
    case 'hop-checks-passed':
      return {
        type: 'hop-checks-passed',
        order: event.order,
        leader: event.leader ?? '',
        pacingMs: event.pacing_ms ?? 0,
      };
    case 'downgrade-requested':
      return { type: 'downgrade-requested', order: event.order, leader: event.leader ?? '' };
    case 'downgrade-enabled':
      return { type: 'downgrade-enabled', clusterVersion: event.observed_version ?? '', elapsedMs };
    case 'member-downgraded':
      return { type: 'member-downgraded', member, version: event.observed_version ?? '', elapsedMs };
    case 'downgrade-finished':
      return { type: 'downgrade-finished', elapsedMs };
    case 'downgrade-failed':
      return { type: 'downgrade-failed', member: event.member ?? undefined, error };
    case 'snapshot-saved':
      if (!event.snapshot) return undefined;
      return { type: 'snapshot-saved', snapshot: fromAvroSnapshot(event.snapshot), elapsedMs };
    case 'member-stopping':
      return { type: 'member-stopping', member, leader: event.leader ?? undefined };
    case 'member-stopped':
      return { type: 'member-stopped', member, elapsedMs };
    case 'member-starting':
      return { type: 'member-starting', member };
    case 'member-upgraded':
      return { type: 'member-upgraded', member, version: event.observed_version ?? '', elapsedMs };
    case 'cluster-version-updated':
      return { type: 'cluster-version-updated', clusterVersion: event.observed_version ?? '', elapsedMs };
    case 'step-failed':
      return { type: 'step-failed', member: event.member ?? undefined, error };
    case 'member-rolled-back':
      return { type: 'member-rolled-back', member, version: event.observed_version ?? '', elapsedMs };
    case 'rollback-failed':
    case 'restore-failed':
      return { type: event.step, member: event.member ?? undefined, error };
    case 'restore-started':
      return { type: 'restore-started', lostRevisions: event.lost_revisions ?? undefined };
    case 'member-restored':
      return { type: 'member-restored', member };
    case 'restore-finished':
      return { type: 'restore-finished', elapsedMs, ...incarnationOf(event) };
    case 'all-members-upgraded':
    case 'rollback-requested':
    case 'rollback-finished':
    case 'resumed':
      return { type: event.step };
    default:
      return undefined;
  }
}

/** The incarnation an event carries, as a trigger's optional field (absent in events of schema v1). */
const incarnationOf = (event: UpgradeProgress): { incarnation?: Incarnation } =>
  event.incarnation
    ? {
        incarnation: {
          clusterId: event.incarnation.cluster_id ?? undefined,
          revision: event.incarnation.revision ?? undefined,
          members: event.incarnation.members.map((m) => ({
            name: m.name,
            memberId: m.member_id ?? undefined,
            dataDir: m.data_dir,
            dataDirId: m.data_dir_id ?? undefined,
          })),
        },
      }
    : {};

const toAvroIncarnation = (i: Incarnation): NonNullable<UpgradeProgress['incarnation']> => ({
  cluster_id: i.clusterId ?? null,
  revision: i.revision ?? null,
  members: i.members.map((m) => ({
    name: m.name,
    member_id: m.memberId ?? null,
    data_dir: m.dataDir,
    data_dir_id: m.dataDirId ?? null,
  })),
});

const toAvroSnapshot = (s: SnapshotInfo): NonNullable<UpgradeProgress['snapshot']> => ({
  path: s.path,
  revision: s.revision,
  hash: s.hash,
  total_keys: s.totalKeys,
  total_bytes: s.totalBytes,
  taken_at: s.takenAt,
  member: s.member,
});

const fromAvroSnapshot = (s: NonNullable<UpgradeProgress['snapshot']>): SnapshotInfo => ({
  path: s.path,
  revision: s.revision,
  hash: s.hash,
  totalKeys: s.total_keys,
  totalBytes: s.total_bytes,
  takenAt: s.taken_at instanceof Date ? s.taken_at.getTime() : s.taken_at,
  member: s.member,
});

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** One line a person reads in `status` and in replay. */
export function describe(trigger: Trigger, after: UpgradeState): string {
  switch (trigger.type) {
    case 'checks-passed':
      return `checks passed; upgrading ${trigger.fromVersion} -> ${trigger.toVersion} in the order ${trigger.order.join(', ')} (leader ${trigger.leader} last)${trigger.route && trigger.route.length > 2 ? `; route ${trigger.route.join(' -> ')}, hop 1 of ${trigger.route.length - 1}` : ''}`;
    case 'hop-completed':
      return `hop ${after.hop + 1} of ${after.route.length - 1} done: cluster version ${trigger.clusterVersion} after ${seconds(trigger.elapsedMs)}; next ${after.route[after.hop + 1]} -> ${after.route[after.hop + 2]}`;
    case 'hop-checks-passed':
      return `hop ${after.hop + 1} of ${after.route.length - 1}: checks passed; upgrading ${after.fromVersion} -> ${after.toVersion} in the order ${trigger.order.join(', ')} (leader ${trigger.leader} last)`;
    case 'downgrade-requested':
      return `online downgrade ${after.toVersion} -> ${after.fromVersion} requested: etcd's downgrade, then the ${after.fromVersion} binary on ${trigger.order.join(', ')} (leader ${trigger.leader} last); every write is kept`;
    case 'downgrade-enabled':
      return `downgrade enabled: cluster version ${trigger.clusterVersion} on every member (${seconds(trigger.elapsedMs)})`;
    case 'member-downgraded':
      return `${trigger.member} runs ${trigger.version}, healthy (${seconds(trigger.elapsedMs)} from stop to healthy)`;
    case 'downgrade-finished':
      return `downgraded: every member runs ${after.fromVersion}, cluster healthy (${seconds(trigger.elapsedMs)})`;
    case 'downgrade-failed':
      return `downgrade failed${trigger.member ? ` on ${trigger.member}` : ''}: ${trigger.error}`;
    case 'snapshot-saved':
      return `snapshot saved from ${trigger.snapshot.member} and verified: ${trigger.snapshot.path}, revision ${trigger.snapshot.revision}, ${trigger.snapshot.totalKeys} keys, hash ${trigger.snapshot.hash}`;
    case 'member-stopping':
      return `stopping ${trigger.member} (SIGINT)${trigger.member === trigger.leader ? ', the leader' : ''}`;
    case 'member-stopped':
      return `${trigger.member} stopped in ${seconds(trigger.elapsedMs)}`;
    case 'member-starting':
      return `starting ${trigger.member} with the ${after.toVersion} binary and the same flags`;
    case 'member-upgraded':
      return `${trigger.member} runs ${trigger.version}, healthy, quorum read and revision caught up: ${seconds(trigger.elapsedMs)} from stop to healthy`;
    case 'all-members-upgraded':
      return 'every member runs the new binary; waiting for the leader to raise the cluster version';
    case 'cluster-version-updated':
      return `cluster version ${trigger.clusterVersion} on every member after ${seconds(trigger.elapsedMs)}: the point of no return is passed`;
    case 'step-failed':
      return `failed${trigger.member ? ` on ${trigger.member}` : ''}: ${trigger.error}`;
    case 'rollback-requested':
      return 'rollback requested: the old binary goes back on every upgraded member';
    case 'member-rolled-back':
      return `${trigger.member} is back on ${trigger.version}, healthy (${seconds(trigger.elapsedMs)})`;
    case 'rollback-finished':
      return `rolled back: every member runs ${after.fromVersion ?? 'the old version'}, cluster healthy`;
    case 'rollback-failed':
      return `rollback failed${trigger.member ? ` on ${trigger.member}` : ''}: ${trigger.error}`;
    case 'restore-started':
      return `restoring the snapshot${after.snapshot ? ` of revision ${after.snapshot.revision}` : ''} into new data folders${trigger.lostRevisions !== undefined ? `; ${trigger.lostRevisions} revisions written after it are lost` : ''}`;
    case 'member-restored':
      return `${trigger.member} restored from the snapshot`;
    case 'restore-finished':
      return `restored: the cluster runs ${after.fromVersion ?? 'the old version'} on the snapshot's data (${seconds(trigger.elapsedMs)})`;
    case 'restore-failed':
      return `restore failed${trigger.member ? ` on ${trigger.member}` : ''}: ${trigger.error}`;
    case 'resumed':
      return `resumed in phase ${after.phase}`;
  }
}
