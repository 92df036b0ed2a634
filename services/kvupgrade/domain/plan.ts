import { CLUSTER_CHECKS } from './cluster-checks.ts';
import type { ClusterFacts } from './cluster-facts.ts';
import type { ClusterSpec } from './cluster-spec.ts';
import { HOST_CHECKS, v2Pacing } from './host-checks.ts';
import {
  alreadyUpgraded,
  commonServerVersion,
  leaderOf,
  type PlanCheck,
  type Verdict,
} from './plan-check.ts';
import { planRoute, type Route } from './route.ts';
import { ROUTE_CHECKS } from './route-checks.ts';
import { DEFAULT_TARGET } from './versions.ts';

export type { CertificateFacts, ClusterFacts, MemberFacts, ToolFacts } from './cluster-facts.ts';
export type { Verdict, VerdictStatus } from './plan-check.ts';

export interface Plan {
  /** go: every check passed (warnings allowed); refuse: at least one refusal; done: already on the target. */
  readonly outcome: 'go' | 'refuse' | 'done';
  readonly verdicts: readonly Verdict[];
  readonly leader: string | undefined;
  /** Followers in file order, the leader last. */
  readonly order: readonly string[];
  readonly pacingMs: number;
  readonly fromVersion: string | undefined;
  /** The first hop's target: where this run's first rolling upgrade goes. */
  readonly toVersion: string;
  /** Every release from what the members run to the target, one hop between two. */
  readonly route: Route;
}

/** Every pre-flight check, in the order plan lists them. */
export const PLAN_CHECKS: readonly PlanCheck[] = Object.freeze([
  ...CLUSTER_CHECKS,
  ...ROUTE_CHECKS,
  ...HOST_CHECKS,
]);

/** Dashboards and alerts that read these names go silent on 3.5 (observed on 3.5.16; the guide lists five). */
export const METRIC_RENAMES: readonly (readonly [string, string])[] = Object.freeze([
  ['etcd_debugging_mvcc_db_total_size_in_bytes', 'etcd_mvcc_db_total_size_in_bytes'],
  ['etcd_debugging_mvcc_put_total', 'etcd_mvcc_put_total'],
  ['etcd_debugging_mvcc_delete_total', 'etcd_mvcc_delete_total'],
  ['etcd_debugging_mvcc_txn_total', 'etcd_mvcc_txn_total'],
  ['etcd_debugging_mvcc_range_total', 'etcd_mvcc_range_total (still served by 3.5.16, deprecated)'],
]);

export const POINT_OF_NO_RETURN =
  'the cluster version becomes 3.5 a few seconds after the last member runs 3.5 (the leader checks every 4 s). ' +
  'Until then a failure puts the 3.4 binary back on every upgraded member; after it a 3.4 member refuses to start ' +
  '("invalid downgrade"), and the only way back is restoring the snapshot into new data folders, losing every write made after it.';

/** The point of no return of one minor hop, as plan tells it. */
export function pointOfNoReturn(from: string, to: string): string {
  if (from === '3.4' && to === '3.5') return POINT_OF_NO_RETURN;
  return (
    `the cluster version becomes ${to} a few seconds after the last member runs ${to}. Until then a failure puts the ` +
    `${from} binary back on every upgraded member; after it a ${from} member refuses to start, and rollback takes ` +
    `etcd's online downgrade (downgrade validate/enable ${from}, then the ${from} binary back one member at a time), keeping every write.`
  );
}

/** What the plan is judged against: the target release, and the route to it. */
export function routeOf(spec: ClusterSpec, facts: ClusterFacts): { target: string; route: Route } {
  const target = facts.tools.target?.version ?? spec.binaries.targetVersion ?? DEFAULT_TARGET;
  const route = planRoute({
    running: commonServerVersion(facts),
    current: facts.tools.current?.version,
    via: spec.binaries.via.map((r) => r.version),
    target,
  });
  return { target, route };
}

/** Pure: every pre-flight check over gathered facts, with a verdict each, and the order of the upgrade. */
export function evaluatePlan(
  spec: ClusterSpec,
  facts: ClusterFacts,
  input: { readonly allowAuth: boolean },
): Plan {
  const { target, route } = routeOf(spec, facts);
  const verdicts = PLAN_CHECKS.flatMap((check) =>
    check.judge({ spec, facts, allowAuth: input.allowAuth, route, target }),
  );
  const refused = verdicts.some((v) => v.status === 'refuse');
  const leader = leaderOf(facts);
  const followers = spec.members.map((m) => m.name).filter((name) => name !== leader);
  return {
    outcome: alreadyUpgraded(facts, target) ? 'done' : refused ? 'refuse' : 'go',
    verdicts,
    leader,
    order: leader ? [...followers, leader] : followers,
    pacingMs: v2Pacing(spec, facts).pacingMs,
    fromVersion: commonServerVersion(facts),
    toVersion: route.releases[1] ?? target,
    route,
  };
}
