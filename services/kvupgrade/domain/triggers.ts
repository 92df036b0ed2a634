// What makes a run's state change: each trigger with what it carries (machine.ts takes them).
import type { Incarnation } from './incarnation.ts';
import type { SnapshotInfo } from './run-state.ts';

export type Trigger =
  | {
      readonly type: 'checks-passed';
      readonly runId: string;
      readonly order: readonly string[];
      readonly leader: string;
      readonly fromVersion: string;
      readonly toVersion: string;
      readonly pacingMs: number;
      /** The cluster the checks were made on. */
      readonly incarnation?: Incarnation;
      /** Every release of a route of several hops; absent: [fromVersion, toVersion]. */
      readonly route?: readonly string[];
    }
  | {
      readonly type: 'hop-completed';
      readonly clusterVersion: string;
      readonly elapsedMs: number;
      /** The leader's raft index once the cluster version was raised (undefined when it did not answer). */
      readonly raftIndex?: number;
    }
  | {
      readonly type: 'hop-checks-passed';
      readonly order: readonly string[];
      readonly leader: string;
      readonly pacingMs: number;
    }
  | {
      readonly type: 'downgrade-requested';
      /** Followers first, the leader last. */
      readonly order: readonly string[];
      readonly leader: string;
    }
  | { readonly type: 'downgrade-enabled'; readonly clusterVersion: string; readonly elapsedMs: number }
  | {
      readonly type: 'member-downgraded';
      readonly member: string;
      readonly version: string;
      readonly elapsedMs: number;
    }
  | { readonly type: 'downgrade-finished'; readonly elapsedMs: number }
  | { readonly type: 'downgrade-failed'; readonly member: string | undefined; readonly error: string }
  | { readonly type: 'snapshot-saved'; readonly snapshot: SnapshotInfo; readonly elapsedMs: number }
  | { readonly type: 'member-stopping'; readonly member: string; readonly leader: string | undefined }
  | { readonly type: 'member-stopped'; readonly member: string; readonly elapsedMs: number }
  | { readonly type: 'member-starting'; readonly member: string }
  | {
      readonly type: 'member-upgraded';
      readonly member: string;
      readonly version: string;
      readonly elapsedMs: number;
    }
  | { readonly type: 'all-members-upgraded' }
  | { readonly type: 'cluster-version-updated'; readonly clusterVersion: string; readonly elapsedMs: number }
  | { readonly type: 'step-failed'; readonly member: string | undefined; readonly error: string }
  | { readonly type: 'rollback-requested' }
  | {
      readonly type: 'member-rolled-back';
      readonly member: string;
      readonly version: string;
      readonly elapsedMs: number;
    }
  | { readonly type: 'rollback-finished' }
  | { readonly type: 'rollback-failed'; readonly member: string | undefined; readonly error: string }
  | { readonly type: 'restore-started'; readonly lostRevisions: number | undefined }
  | { readonly type: 'member-restored'; readonly member: string }
  | {
      readonly type: 'restore-finished';
      readonly elapsedMs: number;
      /** The restored cluster: a new cluster ID, new member IDs, new data folders. */
      readonly incarnation?: Incarnation;
    }
  | { readonly type: 'restore-failed'; readonly member: string | undefined; readonly error: string }
  | { readonly type: 'resumed' };
export type TriggerType = Trigger['type'];
