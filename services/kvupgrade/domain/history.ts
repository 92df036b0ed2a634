// A cluster's runs as kv.upgrade-progress records them: each run rebuilt from its own events, and
// which of them speaks for the cluster as it is now.
import { incarnationDifferences, type ObservedCluster } from './incarnation.ts';
import { IllegalTransitionError, transition } from './machine.ts';
import { ACTIVE_PHASES } from './phases.ts';
import { distinctEvents, triggerOf, type UpgradeProgress } from './progress.ts';
import { initialState, type UpgradeState } from './run-state.ts';

export interface RecordedRun {
  readonly runId: string;
  readonly state: UpgradeState;
  /** Set when some of the run's events do not follow from the ones before it: they are left out. */
  readonly inconsistent?: string;
}

const time = (at: number | Date) => new Date(at).getTime();
const iso = (ms: number) => new Date(ms).toISOString();

/** Every run in a cluster's events, oldest first, each rebuilt from its own transitions alone. */
export function recordedRuns(cluster: string, events: readonly UpgradeProgress[]): RecordedRun[] {
  const runs = new Map<string, { state: UpgradeState; inconsistent?: string }>();
  for (const event of distinctEvents(events)) {
    const trigger = triggerOf(event);
    if (!trigger || event.run_id === null) continue;
    const run = runs.get(event.run_id) ?? { state: initialState(cluster) };
    runs.set(event.run_id, run);
    if (run.inconsistent) continue;
    try {
      run.state = transition(run.state, trigger, time(event.occurred_at));
    } catch (error) {
      if (!(error instanceof IllegalTransitionError)) throw error;
      run.inconsistent = `${event.step} at ${iso(time(event.occurred_at))}`;
    }
  }
  return [...runs].filter(([, run]) => run.state.phase !== 'idle').map(([runId, run]) => ({ runId, ...run }));
}

/** Where the cluster as it is now stands in its history. */
export interface Standing {
  /** The latest run, when it is about this cluster (or nothing says it is not). */
  readonly current: RecordedRun | undefined;
  /** The latest run, when it was about an earlier incarnation of the cluster, and why that is known. */
  readonly earlier: { readonly run: RecordedRun; readonly reasons: readonly string[] } | undefined;
}

export function standing(runs: readonly RecordedRun[], now: ObservedCluster): Standing {
  const last = runs.at(-1);
  if (!last) return { current: undefined, earlier: undefined };
  const reasons = incarnationDifferences(last.state, now);
  return reasons.length === 0
    ? { current: last, earlier: undefined }
    : { current: undefined, earlier: { run: last, reasons } };
}

/** The run, when it is in the middle of something (`resume` continues it). */
export const activeRun = (run: RecordedRun | undefined): RecordedRun | undefined =>
  run && ACTIVE_PHASES.includes(run.state.phase) ? run : undefined;

/** How a run ended, or where it was left: `completed at <time>`, `was rolled back at <time>`. */
export function runOutcome(state: UpgradeState): string {
  const when = state.updatedAt === undefined ? '' : ` at ${iso(state.updatedAt)}`;
  switch (state.phase) {
    case 'completed':
      return `completed${when}`;
    case 'rolled-back':
      return `was rolled back${when}`;
    case 'restored':
      return `was restored from its snapshot${when}`;
    case 'downgraded':
      return `was downgraded${when}`;
    case 'failed':
      return `failed${when}`;
    default:
      return `was left in phase ${state.phase}${when}`;
  }
}

const earlierIncarnation = (reasons: readonly string[]) =>
  `on an earlier incarnation of the cluster (${reasons.join('; ')})`;

/** The note a new run starts with when the name has a run before it. */
export function previousRunNote(cluster: string, previous: Standing, newRunId: string): string | undefined {
  const run = previous.current ?? previous.earlier?.run;
  if (!run) return undefined;
  const where = previous.earlier ? `, ${earlierIncarnation(previous.earlier.reasons)}` : '';
  return `previous run ${run.runId} of cluster ${cluster} ${runOutcome(run.state)}${where}; starting run ${newRunId}`;
}

/** `status`'s first lines when no run is about the cluster as it is now. */
export function noCurrentRunLines(cluster: string, earlier: NonNullable<Standing['earlier']>): string[] {
  return [
    `cluster ${cluster}: no run recorded for the cluster as it is now`,
    `  last run ${earlier.run.runId} ${runOutcome(earlier.run.state)}, ${earlierIncarnation(earlier.reasons)}`,
    '  next: kvupgrade plan, then run',
  ];
}

/** Why `rollback` does nothing when the last run was about an earlier incarnation. */
export function rollbackRefusal(cluster: string, earlier: NonNullable<Standing['earlier']>): string {
  const { run, reasons } = earlier;
  const snapshot = run.state.snapshot
    ? ` Its snapshot ${run.state.snapshot.path} holds that cluster's data, not this one's, and is not restored.`
    : '';
  return (
    `rollback refused: the last run of cluster ${cluster}, ${run.runId}, ${runOutcome(run.state)} ${earlierIncarnation(reasons)}.` +
    `${snapshot} Nothing was changed: no run of the cluster as it is now is recorded, so there is nothing to roll back;` +
    ' to bring that data back anyway, restore the snapshot by hand (etcdutl snapshot restore).'
  );
}

/** Why `resume` does nothing when no run of the cluster as it is now is in progress. */
export function nothingToResume(cluster: string, now: Standing): string {
  if (now.current) return `nothing to resume: cluster ${cluster} is ${now.current.state.phase}`;
  if (!now.earlier) return `nothing to resume: cluster ${cluster} is idle`;
  const { run, reasons } = now.earlier;
  return `nothing to resume: the last run of cluster ${cluster}, ${run.runId}, ${runOutcome(run.state)} ${earlierIncarnation(reasons)}; start a new one with plan, then run`;
}

/** `run`'s answer on a cluster that already runs 3.5 everywhere. */
export function alreadyUpgraded(
  cluster: string,
  versions: ObservedCluster['versions'],
  upgradedBy: RecordedRun | undefined,
): string {
  const servers = new Set(versions.map((v) => v.server));
  const clusters = new Set(versions.map((v) => v.cluster));
  const found =
    servers.size === 1 && clusters.size === 1
      ? `every member runs ${[...servers][0]}, cluster version ${[...clusters][0]}`
      : versions.map((v) => `${v.name} ${v.server} (cluster ${v.cluster})`).join(', ');
  const by = upgradedBy
    ? `\n  upgraded by run ${upgradedBy.runId}, which ${runOutcome(upgradedBy.state)}`
    : '';
  return `cluster ${cluster} is already upgraded: ${found}; nothing to do${by}`;
}
