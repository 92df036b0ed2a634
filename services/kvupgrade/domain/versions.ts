/** etcd versions as the servers report them: `3.4.23` (server) or `3.4.0` (cluster, minor level only). */
export interface Version {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

// `3.5.x`: a release whose patch is not known (read as patch 0).
const VERSION = /^v?(\d+)\.(\d+)(?:\.(\d+|x))?(?:[-+].*)?$/;

export function parseVersion(text: string): Version | undefined {
  const match = VERSION.exec(text.trim());
  if (!match) return undefined;
  return {
    major: Number(match[1]),
    minor: Number(match[2]),
    patch: Number(match[3] === 'x' ? 0 : (match[3] ?? 0)),
  };
}

/** Negative, zero or positive as `a` is older, the same or newer than `b` (major.minor only). */
export function compareMinor(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor;
}

/** `3.5.16` → `3.5`; what the upgrade is about (patch levels do not matter to the cluster version). */
export function minorOf(text: string): string | undefined {
  const v = parseVersion(text);
  return v ? `${v.major}.${v.minor}` : undefined;
}

/** Whether a reported version (`3.5.16`, `3.5.0`) is on the given minor line (`3.5`). */
export function isOnMinor(text: string | undefined, minor: string): boolean {
  return text !== undefined && minorOf(text) === minor;
}

/** The oldest minor kvupgrade upgrades from, and the minor a one-hop target is taken to be when it cannot be run here. */
export const OLDEST_MINOR = '3.4';
export const DEFAULT_TARGET = '3.5.x';

/** Whether a member's reported version is the release `target` (`3.5.x`: any patch of 3.5). */
export function isRelease(reported: string | undefined, target: string): boolean {
  if (reported === undefined) return false;
  return target.endsWith('.x') ? isOnMinor(reported, minorOf(target)!) : reported === target;
}
