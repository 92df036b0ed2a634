/** etcd versions as the servers report them: `3.4.23` (server) or `3.4.0` (cluster, minor level only). */
export interface Version {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

const VERSION = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?$/;

export function parseVersion(text: string): Version | undefined {
  const match = VERSION.exec(text.trim());
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3] ?? 0) };
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

/** The upgrade this tool performs: every member from 3.4 to 3.5. */
export const FROM_MINOR = '3.4';
export const TO_MINOR = '3.5';
