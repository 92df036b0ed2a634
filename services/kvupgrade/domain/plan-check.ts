import type { ClusterFacts } from './cluster-facts.ts';
import { answeredVersions } from './cluster-facts.ts';
import type { ClusterSpec } from './cluster-spec.ts';
import { isOnMinor, TO_MINOR } from './versions.ts';

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

/** Every member that answered runs 3.5 with cluster version 3.5: nothing left to upgrade. */
export function alreadyUpgraded(facts: ClusterFacts): boolean {
  const versions = answeredVersions(facts);
  return (
    versions.length > 0 &&
    versions.every((v) => isOnMinor(v.cluster, TO_MINOR) && isOnMinor(v.server, TO_MINOR))
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
