// A route: the releases a cluster goes through, one rolling upgrade (a hop) per step, from what its
// members run now to the cluster file's target.
import { type HopKind, hopKind } from './upgrade-paths.ts';
import { minorOf } from './versions.ts';

export interface Hop {
  readonly from: string;
  readonly to: string;
  readonly kind: HopKind;
}

export interface Route {
  /** The releases in order: what the members run, then each hop's target (`3.5.x`: a target whose patch is not known). */
  readonly releases: readonly string[];
  readonly hops: readonly Hop[];
  /** Why no route could be made from the cluster file's releases; undefined when one was. */
  readonly problem: string | undefined;
}

export interface RouteInput {
  /** The version every member runs (undefined when they disagree or do not answer). */
  readonly running: string | undefined;
  /** What binaries.current reports; undefined when it could not be run here. */
  readonly current: string | undefined;
  readonly via: readonly string[];
  /** binaries.target's version; `3.5.x` when it is not known (the command driver, no targetVersion). */
  readonly target: string;
}

const hopsOf = (releases: readonly string[]): Hop[] =>
  releases.slice(1).map((to, i) => ({ from: releases[i]!, to, kind: hopKind(releases[i]!, to) }));

/**
 * Pure: the route from what the members run to the target. A cluster already on one of the file's
 * releases starts there (a route continued by a later run); a cluster on another patch of the first
 * release's minor starts from its own version.
 */
export function planRoute(input: RouteInput): Route {
  const { running, current, via, target } = input;
  if (running === undefined) return { releases: [], hops: [], problem: 'the members do not run one version' };
  const listed = [current, ...via, target];
  let start = -1;
  for (let i = 0; i < listed.length; i++) if (listed[i] === running) start = i;
  if (start === listed.length - 1 || running === target)
    return { releases: [running], hops: [], problem: undefined };
  if (start < 0) {
    const firstMinor = minorOf(current ?? via[0] ?? target);
    if (current !== undefined && minorOf(running) !== firstMinor)
      return {
        releases: [],
        hops: [],
        problem: `members run ${running}, but binaries.current is ${current} and no release of binaries.via is ${running}`,
      };
    start = 0;
  }
  const releases = [running, ...listed.slice(start + 1)].filter(
    (v, i, all): v is string => v !== undefined && (i === 0 || v !== all[i - 1]),
  );
  return { releases, hops: hopsOf(releases), problem: undefined };
}

/** `a -> b -> c` for messages. */
export const routeText = (releases: readonly string[]) => releases.join(' -> ');
