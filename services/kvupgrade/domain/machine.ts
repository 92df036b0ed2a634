import { AppError } from '../../../shared/errors.ts';
import { ACTIVE_PHASES, BEFORE_POINT_OF_NO_RETURN, type Phase } from './phases.ts';
import { initialState, lastHop, remaining, rollbackTargets, type UpgradeState } from './run-state.ts';
import type { Trigger, TriggerType } from './triggers.ts';
import { minorOf } from './versions.ts';

// The spec's states and transitions as a table: `transition` is the only way a run's state changes.

export type { Trigger, TriggerType } from './triggers.ts';

interface Transition {
  readonly trigger: TriggerType;
  readonly from: readonly Phase[];
  readonly to: Phase;
}

/** Every legal edge. Anything else is refused by `transition`. */
export const TRANSITIONS: readonly Transition[] = Object.freeze([
  // Every run starts from nothing: the runs before it are history (history.ts).
  { trigger: 'checks-passed', from: ['idle'], to: 'checked' },
  { trigger: 'snapshot-saved', from: ['checked'], to: 'snapshot-saved' },
  { trigger: 'member-stopping', from: ['snapshot-saved', 'member-upgraded'], to: 'stopping' },
  { trigger: 'member-stopped', from: ['stopping'], to: 'member-down' },
  { trigger: 'member-starting', from: ['member-down'], to: 'starting' },
  { trigger: 'member-upgraded', from: ['starting'], to: 'member-upgraded' },
  { trigger: 'all-members-upgraded', from: ['member-upgraded'], to: 'awaiting-cluster-version' },
  { trigger: 'cluster-version-updated', from: ['awaiting-cluster-version'], to: 'completed' },
  // A route: each hop but the last ends between hops; the next starts with its own checks and snapshot.
  { trigger: 'hop-completed', from: ['awaiting-cluster-version'], to: 'between-hops' },
  { trigger: 'hop-checks-passed', from: ['between-hops'], to: 'checked' },
  { trigger: 'step-failed', from: BEFORE_POINT_OF_NO_RETURN, to: 'rolling-back' },
  { trigger: 'step-failed', from: ['awaiting-cluster-version'], to: 'failed' },
  // After a patch hop (no point of no return) too: the older patch's binary goes back.
  {
    trigger: 'rollback-requested',
    from: [...BEFORE_POINT_OF_NO_RETURN, 'failed', 'completed', 'between-hops'],
    to: 'rolling-back',
  },
  { trigger: 'member-rolled-back', from: ['rolling-back'], to: 'rolling-back' },
  { trigger: 'rollback-finished', from: ['rolling-back'], to: 'rolled-back' },
  { trigger: 'rollback-failed', from: ['rolling-back'], to: 'failed' },
  {
    trigger: 'restore-started',
    from: ['completed', 'between-hops', 'awaiting-cluster-version', 'failed'],
    to: 'restoring',
  },
  { trigger: 'member-restored', from: ['restoring'], to: 'restoring' },
  { trigger: 'restore-finished', from: ['restoring'], to: 'restored' },
  { trigger: 'restore-failed', from: ['restoring'], to: 'failed' },
  { trigger: 'downgrade-requested', from: ['completed', 'between-hops', 'failed'], to: 'downgrading' },
  { trigger: 'downgrade-enabled', from: ['downgrading'], to: 'downgrading' },
  { trigger: 'member-downgraded', from: ['downgrading'], to: 'downgrading' },
  { trigger: 'downgrade-finished', from: ['downgrading'], to: 'downgraded' },
  { trigger: 'downgrade-failed', from: ['downgrading'], to: 'failed' },
  ...ACTIVE_PHASES.map((phase) => ({ trigger: 'resumed' as const, from: [phase], to: phase })),
]);
export class IllegalTransitionError extends AppError {
  constructor(message: string) {
    super('FAILED_PRECONDITION', message);
    this.name = 'IllegalTransitionError';
  }
}

/** The edge a trigger takes from a phase, or undefined when there is none. */
export function edge(phase: Phase, trigger: TriggerType): Transition | undefined {
  return TRANSITIONS.find((t) => t.trigger === trigger && t.from.includes(phase));
}

/** Pure: the state after `trigger` at time `at` (epoch ms); throws IllegalTransitionError on an illegal edge or guard. */
export function transition(state: UpgradeState, trigger: Trigger, at: number): UpgradeState {
  const found = edge(state.phase, trigger.type);
  if (!found) throw new IllegalTransitionError(`${trigger.type} is not allowed in phase ${state.phase}`);
  const guard = (ok: boolean, why: string) => {
    if (!ok) throw new IllegalTransitionError(`${trigger.type} in phase ${state.phase}: ${why}`);
  };
  const next: UpgradeState = { ...state, phase: found.to, updatedAt: at };
  switch (trigger.type) {
    case 'checks-passed':
      guard(
        trigger.order.length > 0 && trigger.order.at(-1) === trigger.leader,
        'the order must end with the leader',
      );
      guard(
        trigger.route === undefined ||
          (trigger.route.length >= 2 &&
            trigger.route[0] === trigger.fromVersion &&
            trigger.route[1] === trigger.toVersion),
        'the route must start with the first hop',
      );
      return {
        ...initialState(state.cluster),
        phase: found.to,
        runId: trigger.runId,
        order: trigger.order,
        leader: trigger.leader,
        fromVersion: trigger.fromVersion,
        toVersion: trigger.toVersion,
        route: trigger.route ?? [trigger.fromVersion, trigger.toVersion],
        pacingMs: trigger.pacingMs,
        incarnation: trigger.incarnation,
        startedAt: at,
        updatedAt: at,
      };
    case 'snapshot-saved':
      return { ...next, snapshot: trigger.snapshot };
    case 'member-stopping':
      guard(state.order.includes(trigger.member), `${trigger.member} is not in the order`);
      guard(!state.upgraded.includes(trigger.member), `${trigger.member} is already upgraded`);
      return { ...next, current: trigger.member, leader: trigger.leader ?? state.leader, stopStartedAt: at };
    case 'member-stopped':
    case 'member-starting':
      guard(
        trigger.member === state.current,
        `${trigger.member} is not the member in progress (${state.current})`,
      );
      return next;
    case 'member-upgraded':
      guard(
        trigger.member === state.current,
        `${trigger.member} is not the member in progress (${state.current})`,
      );
      return {
        ...next,
        current: undefined,
        upgraded: [...state.upgraded, trigger.member],
        stopStartedAt: undefined,
        lastUpgradedAt: at,
        floorMs: state.floorMs + trigger.elapsedMs,
      };
    case 'all-members-upgraded':
      guard(
        state.order.every((m) => state.upgraded.includes(m)),
        `not upgraded yet: ${remaining(state).join(', ')}`,
      );
      return next;
    case 'cluster-version-updated':
      guard(lastHop(state), `hop ${state.hop + 1} of ${state.route.length - 1} is not the route's last`);
      return { ...next, floorMs: state.floorMs + trigger.elapsedMs };
    case 'hop-completed':
      guard(!lastHop(state), 'the last hop ends the run (cluster-version-updated)');
      return { ...next, floorMs: state.floorMs + trigger.elapsedMs, hopRaftIndex: trigger.raftIndex };
    case 'hop-checks-passed':
      guard(
        trigger.order.length > 0 && trigger.order.at(-1) === trigger.leader,
        'the order must end with the leader',
      );
      return {
        ...next,
        hop: state.hop + 1,
        fromVersion: state.route[state.hop + 1],
        toVersion: state.route[state.hop + 2],
        order: trigger.order,
        leader: trigger.leader,
        pacingMs: trigger.pacingMs,
        upgraded: [],
        current: undefined,
        lastUpgradedAt: undefined,
      };
    case 'downgrade-requested':
      guard(
        state.phase !== 'failed' || state.downgradeEnabled || state.upgraded.length === state.order.length,
        'only a failed downgrade or a finished hop can be downgraded',
      );
      guard(
        trigger.order.length > 0 && trigger.order.at(-1) === trigger.leader,
        'the order must end with the leader',
      );
      return {
        ...next,
        order: trigger.order,
        leader: trigger.leader,
        current: undefined,
        rolledBack: state.phase === 'failed' ? state.rolledBack : [],
        error: undefined,
      };
    case 'downgrade-enabled':
      return { ...next, downgradeEnabled: true };
    case 'member-downgraded':
      guard(state.downgradeEnabled, 'the downgrade is not enabled yet');
      guard(state.order.includes(trigger.member), `${trigger.member} is not in the order`);
      guard(!state.rolledBack.includes(trigger.member), `${trigger.member} is already downgraded`);
      return { ...next, rolledBack: [...state.rolledBack, trigger.member] };
    case 'downgrade-finished':
      guard(
        state.order.every((m) => state.rolledBack.includes(m)),
        'members remain to downgrade',
      );
      return { ...next, upgraded: [], current: undefined };
    case 'downgrade-failed':
      return { ...next, error: trigger.error, current: trigger.member ?? state.current };
    case 'step-failed':
      return { ...next, error: trigger.error, current: trigger.member ?? state.current, rolledBack: [] };
    case 'rollback-requested':
      guard(
        (state.phase !== 'completed' && state.phase !== 'between-hops') ||
          (state.fromVersion !== undefined &&
            state.toVersion !== undefined &&
            minorOf(state.fromVersion) === minorOf(state.toVersion)),
        'after a minor hop the old binary cannot go back (its cluster version is raised)',
      );
      return { ...next, error: 'rollback requested by an operator', rolledBack: [] };
    case 'member-rolled-back':
      guard(rollbackTargets(state).includes(trigger.member), `${trigger.member} needs no rollback`);
      return { ...next, rolledBack: [...state.rolledBack, trigger.member] };
    case 'rollback-finished':
      guard(
        rollbackTargets(state).every((m) => state.rolledBack.includes(m)),
        'members remain to roll back',
      );
      return { ...next, current: undefined, upgraded: [] };
    case 'restore-started':
      guard(state.snapshot !== undefined, 'no snapshot was saved in this run');
      return { ...next, rolledBack: [], error: undefined };
    case 'member-restored':
      return { ...next, rolledBack: [...state.rolledBack, trigger.member] };
    case 'restore-finished':
      return {
        ...next,
        upgraded: [],
        current: undefined,
        incarnation: trigger.incarnation ?? state.incarnation,
      };
    case 'rollback-failed':
    case 'restore-failed':
      return { ...next, error: trigger.error };
    case 'resumed':
      return next;
  }
}
/** What the orchestrator does next in a phase; `none` when the run has ended. */
export type Action =
  | 'save-snapshot'
  | 'upgrade-next-member'
  | 'finish-members'
  | 'stop-member'
  | 'start-member'
  | 'gate-member'
  | 'await-cluster-version'
  | 'roll-back'
  | 'restore'
  | 'next-hop'
  | 'downgrade'
  | 'none';

export function nextAction(state: UpgradeState): Action {
  switch (state.phase) {
    case 'checked':
      return 'save-snapshot';
    case 'snapshot-saved':
    case 'member-upgraded':
      return remaining(state).length === 0 ? 'finish-members' : 'upgrade-next-member';
    case 'stopping':
      return 'stop-member';
    case 'member-down':
      return 'start-member';
    case 'starting':
      return 'gate-member';
    case 'awaiting-cluster-version':
      return 'await-cluster-version';
    case 'rolling-back':
      return 'roll-back';
    case 'restoring':
      return 'restore';
    case 'between-hops':
      return 'next-hop';
    case 'downgrading':
      return 'downgrade';
    default:
      return 'none';
  }
}

/** Rebuilds a cluster's state from its transitions, in order (the events of kv.upgrade-progress). */
export function rebuild(
  cluster: string,
  transitions: readonly { trigger: Trigger; at: number }[],
): UpgradeState {
  return transitions.reduce((state, t) => transition(state, t.trigger, t.at), initialState(cluster));
}
