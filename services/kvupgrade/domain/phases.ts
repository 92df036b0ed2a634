/** Phases in which some member may still run 3.4: the 3.4 binary can still be put back. */
const REVERSIBLE = [
  'checked',
  'snapshot-saved',
  'stopping',
  'member-down',
  'starting',
  'member-upgraded',
] as const;

/**
 * The upgrade of one cluster as an explicit state machine. Phases map onto the spec's states:
 *   idle, checked, snapshot-saved       all members 3.4, cluster version 3.4
 *   stopping, member-down               a member is down (the others keep the quorum)
 *   starting, member-upgraded           mixed cluster, cluster version stays 3.4
 *   awaiting-cluster-version            all members 3.5; the leader flips the cluster version within ~4 s
 *   completed                           cluster version 3.5: the point of no return
 *   rolling-back, rolled-back           3.4 binary restored on every upgraded member (downgrade works)
 *   restoring, restored                 after the point of no return: snapshot restored into new data folders
 *   between-hops                        a route's hop done (its cluster version raised): the next hop is next
 *   downgrading, downgraded             from 3.6 on, etcd's online downgrade of the last hop (writes kept)
 *   failed                              stopped; an operator decides (the event says why)
 */
export const PHASES = [
  'idle',
  ...REVERSIBLE,
  'awaiting-cluster-version',
  'between-hops',
  'completed',
  'rolling-back',
  'rolled-back',
  'restoring',
  'restored',
  'downgrading',
  'downgraded',
  'failed',
] as const;
export type Phase = (typeof PHASES)[number];

export const BEFORE_POINT_OF_NO_RETURN: readonly Phase[] = Object.freeze([...REVERSIBLE]);

/** Phases a run is in the middle of: `resume` continues from them, `run` refuses to start over them. */
export const ACTIVE_PHASES: readonly Phase[] = Object.freeze([
  ...BEFORE_POINT_OF_NO_RETURN,
  'awaiting-cluster-version',
  'between-hops',
  'rolling-back',
  'restoring',
  'downgrading',
]);
