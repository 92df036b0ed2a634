import type { Incarnation } from './incarnation.ts';
import type { Phase } from './phases.ts';

export interface SnapshotInfo {
  readonly path: string;
  readonly revision: number;
  readonly hash: number;
  readonly totalKeys: number;
  readonly totalBytes: number;
  readonly takenAt: number;
  /** The member it was saved from (the leader at the time). */
  readonly member: string;
}
export interface UpgradeState {
  readonly cluster: string;
  readonly phase: Phase;
  readonly runId: string | undefined;
  readonly order: readonly string[];
  readonly leader: string | undefined;
  /** The hop in progress (or last done): from what, to what. */
  readonly fromVersion: string | undefined;
  readonly toVersion: string | undefined;
  /** Every release of the run, in order: a route of several hops, or [from, to]. */
  readonly route: readonly string[];
  /** Which hop of the route: 0 for the first. */
  readonly hop: number;
  /** The leader's raft index when the last hop raised the cluster version. */
  readonly hopRaftIndex: number | undefined;
  /** A downgrade run only: etcd's downgrade is enabled (the cluster version is back on the older minor). */
  readonly downgradeEnabled: boolean;
  readonly pacingMs: number;
  /** The member being stopped, started or gated. */
  readonly current: string | undefined;
  /** Members that passed the gate on the new binary, in order. */
  readonly upgraded: readonly string[];
  /** Members put back on the old binary, or restored from the snapshot, in this rollback. */
  readonly rolledBack: readonly string[];
  readonly snapshot: SnapshotInfo | undefined;
  /** The cluster this run is about (recorded at its checks, and again after a restore). */
  readonly incarnation: Incarnation | undefined;
  readonly error: string | undefined;
  /** When the current member began to stop: its stop-to-healthy time is measured from here. */
  readonly stopStartedAt: number | undefined;
  /** When the last member passed its gate: pacing counts from here. */
  readonly lastUpgradedAt: number | undefined;
  readonly startedAt: number | undefined;
  readonly updatedAt: number | undefined;
  /** Sum of each member's stop-to-healthy time plus the wait for the cluster version: the floor. */
  readonly floorMs: number;
}

export const initialState = (cluster: string): UpgradeState => ({
  cluster,
  phase: 'idle',
  runId: undefined,
  order: [],
  leader: undefined,
  fromVersion: undefined,
  toVersion: undefined,
  route: [],
  hop: 0,
  downgradeEnabled: false,
  hopRaftIndex: undefined,
  pacingMs: 0,
  current: undefined,
  upgraded: [],
  rolledBack: [],
  snapshot: undefined,
  incarnation: undefined,
  error: undefined,
  stopStartedAt: undefined,
  lastUpgradedAt: undefined,
  startedAt: undefined,
  updatedAt: undefined,
  floorMs: 0,
});
/** Whether the hop in progress is the route's last. */
export const lastHop = (state: UpgradeState): boolean => state.hop >= state.route.length - 2;

export const remaining = (state: UpgradeState): string[] =>
  state.order.filter((m) => !state.upgraded.includes(m));

/**
 * Members that must get the old binary back, in a safe order: first the member in progress (it is
 * down or failing, so the cluster regains a full set soonest), then the upgraded ones, newest first.
 */
export function rollbackTargets(state: UpgradeState): string[] {
  const targets = state.current && !state.upgraded.includes(state.current) ? [state.current] : [];
  return [...targets, ...[...state.upgraded].reverse()];
}

/**
 * The next member to upgrade: followers first, in the planned order; the current leader only when
 * it is the last one left (leadership may have moved since the plan).
 */
export function pickNextMember(state: UpgradeState, currentLeader: string | undefined): string | undefined {
  const left = remaining(state);
  return left.find((m) => m !== currentLeader) ?? left[0];
}

/** When the next member may be stopped: pacing counts from the moment the previous one was upgraded. */
export function nextStopAllowedAt(state: UpgradeState): number {
  return (state.lastUpgradedAt ?? 0) + state.pacingMs;
}
