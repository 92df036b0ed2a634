import type { ClusterFacts } from './cluster-facts.ts';
import { answeredVersions } from './cluster-facts.ts';
import type { ClusterSpec } from './cluster-spec.ts';
import type { Route } from './route.ts';
import { isOnMinor, isRelease, minorOf } from './versions.ts';

export type VerdictStatus = 'pass' | 'warn' | 'refuse' | 'done';

export interface Verdict {
  readonly check: string;
  readonly status: VerdictStatus;
  readonly message: string;
}

export interface CheckInput {
  readonly spec: ClusterSpec;
  readonly facts: ClusterFacts;
  readonly allowAuth: boolean;
  /** From what the members run to the target, as planned from the facts. */
  readonly route: Route;
  /** Where the route ends (`3.5.x` when the target cannot be run here). */
  readonly target: string;
}

/**
 * One pre-flight check: pure, judged from the facts alone. Most give one verdict under their own
 * name; some give none (nothing to judge) or several (one per member or per problem).
 */
export interface PlanCheck {
  readonly name: string;
  judge(input: CheckInput): readonly Verdict[];
}

export const verdict = (check: string, status: VerdictStatus, message: string): Verdict => ({
  check,
  status,
  message,
});

/** Every member that answered runs the target with the target's cluster version: nothing left to upgrade. */
export function alreadyUpgraded(facts: ClusterFacts, target: string): boolean {
  const versions = answeredVersions(facts);
  const minor = minorOf(target) ?? target;
  return (
    versions.length > 0 && versions.every((v) => isOnMinor(v.cluster, minor) && isRelease(v.server, target))
  );
}

/** The member that reports `etcd_server_is_leader 1`, when exactly one does. */
export function leaderOf(facts: ClusterFacts): string | undefined {
  const leaders = facts.members.filter((m) => m.isLeader === true);
  return leaders.length === 1 ? leaders[0]!.name : undefined;
}

/** The server version every answering member runs, when they agree. */
export function commonServerVersion(facts: ClusterFacts): string | undefined {
  const servers = new Set(answeredVersions(facts).map((v) => v.server));
  return servers.size === 1 ? [...servers][0] : undefined;
}
