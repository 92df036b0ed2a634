// The checks of the route as etcd's guides describe it: each hop allowed, learners, a downgrade left
// enabled, the storage version.
import { alreadyUpgraded, type PlanCheck, type Verdict, verdict } from './plan-check.ts';
import { routeText } from './route.ts';
import { minorOf } from './versions.ts';

const hopName = (kind: string, from: string, to: string) =>
  kind === 'patch' ? `patch ${from} -> ${to}` : `minor ${minorOf(from)} -> ${minorOf(to)}`;

const route: PlanCheck = {
  name: 'route',
  judge({ route, facts, target }) {
    if (alreadyUpgraded(facts, target)) return [];
    if (route.problem) return [verdict('route', 'refuse', route.problem)];
    if (route.hops.length === 0) return [];
    const refused: Verdict[] = route.hops.flatMap((h) =>
      h.kind.kind === 'refused' ? [verdict('route', 'refuse', h.kind.why)] : [],
    );
    if (refused.length > 0) return refused;
    const hops = route.hops.map((h) => hopName(h.kind.kind, h.from, h.to));
    return [
      verdict(
        'route',
        'pass',
        `${routeText(route.releases)}: ${hops.length} hop${hops.length === 1 ? '' : 's'} (${hops.join('; ')}), each a rolling upgrade with a verified snapshot first`,
      ),
    ];
  },
};

/** A learner is no voter: a rolling upgrade restarts voting members, and 3.6 allows at most one learner. */
const learners: PlanCheck = {
  name: 'learners',
  judge({ facts, route }) {
    const list = facts.memberList;
    if (!list || route.hops.length === 0) return [];
    const found = list.filter((m) => m.isLearner === true);
    if (found.length === 0) return [verdict('learners', 'pass', 'no learner in the member list')];
    return [
      verdict(
        'learners',
        'refuse',
        `${found.map((m) => m.name || m.id).join(', ')} ${found.length === 1 ? 'is a learner' : 'are learners'}: promote (etcdctl member promote) or remove each before upgrading; a learner is not a voting member, and 3.6 refuses to start with more than one ("too many learner member", etcd-io/etcd#19557)`,
      ),
    ];
  },
};

/** 3.6 on: a downgrade left enabled or a storage version behind the cluster version is an unfinished downgrade. */
const storageVersion: PlanCheck = {
  name: 'storage-version',
  judge({ facts, route }) {
    if (route.hops.length === 0) return [];
    const downgrading = facts.members.filter((m) => m.downgradeTarget !== undefined);
    if (downgrading.length > 0)
      return [
        verdict(
          'storage-version',
          'refuse',
          `a downgrade to ${downgrading[0]!.downgradeTarget} is enabled on the cluster: finish it (kvupgrade resume or rollback) or cancel it (etcdctl downgrade cancel) before upgrading`,
        ),
      ];
    const reported = facts.members.filter((m) => m.storageVersion !== undefined);
    if (reported.length === 0) return [];
    const behind = reported.filter(
      (m) => m.version.ok && minorOf(m.storageVersion!) !== minorOf(m.version.cluster),
    );
    if (behind.length > 0)
      return [
        verdict(
          'storage-version',
          'refuse',
          `storage version differs from the cluster version on ${behind.map((m) => `${m.name} (storage ${m.storageVersion}, cluster ${m.version.ok ? m.version.cluster : '?'})`).join(', ')}: a downgrade's migration was left half done`,
        ),
      ];
    return [
      verdict(
        'storage-version',
        'pass',
        `storage version ${[...new Set(reported.map((m) => m.storageVersion))].join(', ')} on every member that reports one, no downgrade enabled`,
      ),
    ];
  },
};

export const ROUTE_CHECKS: readonly PlanCheck[] = Object.freeze([route, learners, storageVersion]);
