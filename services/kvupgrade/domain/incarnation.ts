// A cluster built again under the same name is another cluster: what tells two incarnations apart.
import { compareMinor, minorOf, parseVersion } from './versions.ts';

export interface MemberIncarnation {
  readonly name: string;
  /** etcd's member ID as decimal text; undefined when the member did not answer. */
  readonly memberId: string | undefined;
  readonly dataDir: string;
  /** Changes when the data folder is made anew; undefined when the driver cannot tell. */
  readonly dataDirId: string | undefined;
}

/**
 * Which cluster of a name a run is about. etcd derives member and cluster IDs from the peer URLs
 * and the cluster token, so a cluster rebuilt with the same flags gets the same IDs again: the data
 * folders and the revision (which never goes back, except by a restore) tell it apart.
 */
export interface Incarnation {
  readonly clusterId: string | undefined;
  /** The highest revision a member reported. */
  readonly revision: number | undefined;
  readonly members: readonly MemberIncarnation[];
}

/** The cluster as it is now: its incarnation, and the versions each answering member reports. */
export interface ObservedCluster {
  readonly incarnation: Incarnation;
  readonly versions: readonly { readonly name: string; readonly server: string; readonly cluster: string }[];
}

/** What a run recorded of its cluster, and how far it got. */
export interface RunOfIncarnation {
  readonly phase: string;
  readonly incarnation: Incarnation | undefined;
  /** The release the run's last hop went to. */
  readonly toVersion?: string | undefined;
}

const listed = (items: readonly string[]) => items.join(', ');

/**
 * Why the cluster now is not the one `run` was about; empty when nothing says so (what cannot be
 * read on either side, such as a member that does not answer, is no evidence).
 */
export function incarnationDifferences(run: RunOfIncarnation, now: ObservedCluster): string[] {
  const reasons: string[] = [];
  const recorded = run.incarnation;
  if (recorded) {
    const known = (a: string | undefined, b: string | undefined) => a !== undefined && b !== undefined;
    if (
      known(recorded.clusterId, now.incarnation.clusterId) &&
      recorded.clusterId !== now.incarnation.clusterId
    )
      reasons.push(`cluster ID ${now.incarnation.clusterId} (that run's: ${recorded.clusterId})`);
    const names = (i: Incarnation) => i.members.map((m) => m.name).sort();
    if (listed(names(recorded)) !== listed(names(now.incarnation)))
      reasons.push(`members ${listed(names(now.incarnation))} (that run's: ${listed(names(recorded))})`);
    const pairs = now.incarnation.members.flatMap((m) => {
      const old = recorded.members.find((o) => o.name === m.name);
      return old ? [{ now: m, was: old }] : [];
    });
    const newIds = pairs.filter(
      (p) => known(p.now.memberId, p.was.memberId) && p.now.memberId !== p.was.memberId,
    );
    if (newIds.length > 0) reasons.push(`new member IDs for ${listed(newIds.map((p) => p.now.name))}`);
    const moved = pairs.filter((p) => p.now.dataDir !== p.was.dataDir);
    if (moved.length > 0)
      reasons.push(
        `data folders moved: ${listed(moved.map((p) => `${p.now.name} ${p.now.dataDir} (was ${p.was.dataDir})`))}`,
      );
    const anew = pairs.filter(
      (p) =>
        p.now.dataDir === p.was.dataDir &&
        known(p.now.dataDirId, p.was.dataDirId) &&
        p.now.dataDirId !== p.was.dataDirId,
    );
    if (anew.length > 0) reasons.push(`data folders made anew: ${listed(anew.map((p) => p.now.name))}`);
    const [was, is] = [recorded.revision, now.incarnation.revision];
    if (was !== undefined && is !== undefined && is < was)
      reasons.push(`revision ${is} is below ${was}, where that run began`);
  }
  // A completed run raised the cluster version, and only a downgrade (a run of its own) lowers it.
  // Runs recorded before routes were all 3.4 -> 3.5.
  const reached = parseVersion(run.toVersion ?? '3.5');
  const older = now.versions.find((v) => {
    const cv = parseVersion(v.cluster);
    return reached !== undefined && cv !== undefined && compareMinor(cv, reached) < 0;
  });
  if (run.phase === 'completed' && older)
    reasons.push(
      `cluster version ${older.cluster} now, ${minorOf(run.toVersion ?? '3.5')} when that run completed`,
    );
  return reasons;
}
