// Which upgrades etcd supports, as its own guides say (docs/kvupgrade-paths.md has the facts and sources):
// a patch upgrade within a minor, or one minor at a time from a late enough patch of the older minor.
import { parseVersion, type Version } from './versions.ts';

export interface MinorHop {
  readonly from: string;
  readonly to: string;
  /** The oldest patch of `from` the guide lets upgrade to `to`; undefined when the guide names none. */
  readonly minimumFrom: string | undefined;
  /** Why that patch, and where it is said. */
  readonly why: string;
  /** After the point of no return: `online` when etcd's downgrade brings `to` back to `from`, else only the snapshot. */
  readonly goingBack: 'online' | 'snapshot';
}

/** Every minor upgrade the guides describe that kvupgrade performs, in order. */
export const MINOR_HOPS: readonly MinorHop[] = Object.freeze([
  {
    from: '3.4',
    to: '3.5',
    minimumFrom: undefined,
    why: 'the 3.5 guide asks only for a healthy 3.4 cluster (etcd.io docs v3.5 upgrade_3_5)',
    goingBack: 'snapshot',
  },
  {
    from: '3.5',
    to: '3.6',
    minimumFrom: '3.5.32',
    why:
      "etcd's 3.6 upgrade guide requires every 3.5 member on 3.5.32 or later: 3.5.20 fixed members turning back into " +
      'learners ("too many learner member", etcd-io/etcd#19557), 3.5.24 the same through snapshots (#20793), 3.5.26 ' +
      'removed members coming back ("zombie members", #20967), 3.5.32 `etcdutl check v2store` reading the WAL too',
    goingBack: 'online',
  },
  {
    from: '3.6',
    to: '3.7',
    minimumFrom: '3.6.11',
    why: "etcd's 3.7 upgrade guide requires every 3.6 member on 3.6.11 or later (earlier 3.6 patches may not roll to 3.7)",
    goingBack: 'online',
  },
]);

export interface RefusedRelease {
  readonly minor: string;
  readonly firstPatch: number;
  readonly lastPatch: number;
  readonly reason: string;
  readonly takeInstead: string;
}

/** Releases never taken as a target, with the reason and its source. */
export const REFUSED_RELEASES: readonly RefusedRelease[] = Object.freeze([
  {
    minor: '3.5',
    firstPatch: 0,
    lastPatch: 2,
    reason:
      'data inconsistency: a member may apply writes its peers do not after a crash under load (etcd-io/etcd#13766, fixed in 3.5.3 by #13908)',
    takeInstead: '3.5.3 or later (the latest 3.5 patch)',
  },
]);

const text = (v: Version) => `${v.major}.${v.minor}.${v.patch}`;
const minorText = (v: Version) => `${v.major}.${v.minor}`;

/** The hop from one release to the next as the guides see it. */
export type HopKind =
  | { readonly kind: 'patch' }
  | { readonly kind: 'minor'; readonly hop: MinorHop }
  | { readonly kind: 'none' }
  | { readonly kind: 'refused'; readonly why: string };

/** Whether `release` is refused as a target, and why (with what to take instead). */
export function refusedAsTarget(release: string): string | undefined {
  if (/-/.test(release))
    return `${release} is a pre-release: kvupgrade upgrades to releases only (${release.split('-')[0]} or the latest patch)`;
  const v = parseVersion(release);
  if (!v) return `${release} is not a version`;
  const bad = REFUSED_RELEASES.find(
    (r) => r.minor === minorText(v) && v.patch >= r.firstPatch && v.patch <= r.lastPatch,
  );
  return bad ? `${text(v)} is refused as a target: ${bad.reason}; take ${bad.takeInstead}` : undefined;
}

/** The minor hop into `minor`, if kvupgrade knows it. */
export const hopInto = (minor: string): MinorHop | undefined => MINOR_HOPS.find((h) => h.to === minor);

/** Whether a patch of `minor` may upgrade to the next minor; the patch to take first when not. */
export function patchTooOld(from: string, hop: MinorHop): string | undefined {
  const v = parseVersion(from);
  const min = hop.minimumFrom ? parseVersion(hop.minimumFrom) : undefined;
  if (!v || !min || v.patch >= min.patch) return undefined;
  return hop.minimumFrom;
}

/** Pure: what the guides say of going from release `from` to release `to` in one rolling upgrade. */
export function hopKind(from: string, to: string): HopKind {
  // `3.5.x`: a target whose patch is not known here (a remote binary): judged by its minor.
  const unknownPatch = /\.x$/.test(to);
  const a = parseVersion(from);
  const b = parseVersion(unknownPatch ? to.replace(/\.x$/, '') : to);
  if (!a || !b) return { kind: 'refused', why: `cannot read ${!a ? from : to} as a version` };
  const refused = unknownPatch ? undefined : refusedAsTarget(to);
  if (refused) return { kind: 'refused', why: refused };
  if (unknownPatch && b.major === a.major && b.minor === a.minor) return { kind: 'patch' };
  if (a.major !== b.major || b.minor < a.minor || (b.minor === a.minor && b.patch < a.patch))
    return {
      kind: 'refused',
      why: `${from} -> ${to} goes back: a run only upgrades (going back is rollback's, after a run)`,
    };
  if (b.minor === a.minor) return b.patch === a.patch ? { kind: 'none' } : { kind: 'patch' };
  if (b.minor > a.minor + 1)
    return {
      kind: 'refused',
      why: `${from} -> ${to} skips ${a.major}.${a.minor + 1}: etcd upgrades one minor at a time (etcd.io docs "Upgrade policy"); name a ${a.major}.${a.minor + 1} release in binaries.via`,
    };
  const hop = hopInto(minorText(b));
  if (!hop || hop.from !== minorText(a))
    return { kind: 'refused', why: `${minorText(a)} -> ${minorText(b)} is not an upgrade kvupgrade knows` };
  const first = patchTooOld(from, hop);
  if (first)
    return {
      kind: 'refused',
      why: `${from} is older than ${first}, the oldest ${hop.from} patch that may upgrade to ${hop.to} (${hop.why}); upgrade to ${first} or a later ${hop.from} patch first: name one in binaries.via`,
    };
  return { kind: 'minor', hop };
}

/** Whether a cluster on minor `to`, reached from `from`, can be brought back online (etcd's downgrade). */
export function onlineDowngrade(from: string, to: string): boolean {
  const hop = hopInto(to);
  return hop !== undefined && hop.from === from && hop.goingBack === 'online';
}
