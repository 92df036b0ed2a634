import type { ClusterSpec } from '../domain/cluster-spec.ts';
import { noCurrentRunLines, type Standing } from '../domain/history.ts';
import { METRIC_RENAMES, type Plan, pointOfNoReturn, type Verdict } from '../domain/plan.ts';
import type { UpgradeProgress } from '../domain/progress.ts';
import { initialState, type UpgradeState } from '../domain/run-state.ts';
import { minorOf } from '../domain/versions.ts';

const MARK = { pass: 'ok', warn: 'WARN', refuse: 'REFUSE', done: 'done' } as const;

export function renderPlan(spec: ClusterSpec, plan: Plan): string {
  const lines = [
    `plan for cluster ${spec.name} (${spec.members.length} members): etcd ${plan.fromVersion ?? '?'} -> ${plan.toVersion}`,
    '',
  ];
  for (const v of plan.verdicts) lines.push(`  [${MARK[v.status]}] ${v.check}: ${v.message}`);
  lines.push('');
  if (plan.outcome === 'done')
    return [
      ...lines,
      `verdict: nothing to do, the cluster already runs ${plan.toVersion.endsWith('.x') ? minorOf(plan.toVersion) : plan.toVersion}`,
      '',
    ].join('\n');
  if (plan.outcome === 'refuse') {
    lines.push(
      `verdict: REFUSED (${plan.verdicts.filter((v) => v.status === 'refuse').length} check(s) above)`,
      '',
    );
  } else lines.push('verdict: ready to upgrade', '');
  const hops = plan.route.hops;
  if (hops.length > 1)
    lines.push(
      `route: ${plan.route.releases.join(' -> ')}, ${hops.length} hops; each hop below is done in turn, with its own checks and snapshot first${spec.options.pauseBetweenHops ? ', and the run stops after each (resume takes the next)' : ''}`,
      '',
    );
  const first = hops[0];
  const to = minorOf(plan.toVersion) ?? plan.toVersion;
  lines.push(
    'what run will do:',
    `  1. save a snapshot from the leader ${plan.leader ?? '(unknown)'} to ${spec.backupDir}/${spec.name}-<run id>.db and verify it (etcdutl snapshot status)`,
    `  2. one member at a time, followers first, the leader last: ${plan.order.join(' -> ') || '(unknown)'}`,
    `     stop (SIGINT, ${spec.options.stopTimeoutSeconds} s, then SIGKILL), start ${spec.binaries.target} with the same flags,`,
    `     gate: /health, /version ${plan.toVersion}, quorum read, revision caught up (${spec.options.gateTimeoutSeconds} s)` +
      (plan.pacingMs > 0 ? `; wait ${plan.pacingMs / 1000} s between members` : ''),
    `     ${spec.options.transferLeadership ? 'leadership is moved to an upgraded member before the leader stops' : 'the leader hands leadership off itself on SIGINT'}`,
    `  3. wait for the cluster version ${to} (${spec.options.clusterVersionTimeoutSeconds} s) and check /version on every member`,
    '',
  );
  if (first?.kind.kind === 'patch')
    lines.push(
      'point of no return: none (a patch upgrade keeps the cluster version; rollback puts the older patch back)',
      '',
    );
  for (const h of hops)
    if (h.kind.kind === 'minor') {
      const which = hops.length > 1 ? ` (${h.kind.hop.from} -> ${h.kind.hop.to})` : '';
      lines.push(`point of no return${which}: ${pointOfNoReturn(h.kind.hop.from, h.kind.hop.to)}`, '');
    }
  if (hops.some((h) => h.kind.kind === 'minor' && h.kind.hop.to === '3.5'))
    lines.push(
      'metric renames for dashboards and alerts (old names are gone on 3.5):',
      ...METRIC_RENAMES.map(([from, to]) => `  ${from} -> ${to}`),
      '',
    );
  return lines.join('\n');
}

const time = (at: number | Date) => new Date(at).toISOString().slice(11, 23);

/** One event as one line: time, phase, step, member, message. */
export function renderEvent(e: UpgradeProgress): string {
  const kind = e.kind === 'transition' ? '' : `${e.kind} `;
  return `${time(e.occurred_at)} ${e.phase.padEnd(24)} ${kind}${e.step}${e.member ? ` [${e.member}]` : ''}: ${e.message}`;
}

/** Where the cluster stands: the run of the cluster as it is now, then the last events. */
export function renderStatus(
  cluster: string,
  now: Standing,
  events: readonly UpgradeProgress[],
  tail = 15,
): string {
  if (events.length === 0) return `no upgrade recorded for cluster ${cluster}\n`;
  const lines =
    !now.current && now.earlier
      ? noCurrentRunLines(cluster, now.earlier)
      : runLines(now.current?.state ?? initialState(cluster), events);
  if (now.current?.inconsistent)
    lines.push(
      `  its events from ${now.current.inconsistent} on do not follow from the ones before and are left out`,
    );
  lines.push(
    '',
    `last ${Math.min(tail, events.length)} of ${events.length} events:`,
    ...events.slice(-tail).map((e) => `  ${renderEvent(e)}`),
    '',
  );
  return lines.join('\n');
}

function runLines(state: UpgradeState, events: readonly UpgradeProgress[]): string[] {
  const sessions = new Set(events.filter((e) => e.run_id === state.runId).map((e) => e.session_id));
  const lines = [
    `cluster ${state.cluster}: ${state.phase}`,
    `  run ${state.runId ?? '-'} (${sessions.size} session${sessions.size === 1 ? '' : 's'}), ${state.fromVersion ?? '?'} -> ${state.toVersion ?? '?'}`,
    `  order: ${state.order.join(' -> ') || '-'}; upgraded: ${state.upgraded.join(', ') || 'none'}${state.current ? `; in progress: ${state.current}` : ''}`,
  ];
  if (state.snapshot)
    lines.push(
      `  snapshot: ${state.snapshot.path} (revision ${state.snapshot.revision}, ${state.snapshot.totalKeys} keys, from ${state.snapshot.member})`,
    );
  if (state.error) lines.push(`  error: ${state.error}`);
  if (state.phase === 'completed')
    lines.push(`  floor (stop-to-healthy + cluster version wait): ${(state.floorMs / 1000).toFixed(2)} s`);
  const next = NEXT[state.phase];
  if (next) lines.push(`  next: ${next}`);
  return lines;
}

const NEXT: Partial<Record<UpgradeState['phase'], string>> = {
  idle: 'kvupgrade plan, then run',
  completed: 'nothing; `rollback` would restore the snapshot (losing later writes)',
  'rolled-back': 'fix the cause, then plan and run again',
  restored: 'plan and run again when ready',
  failed: 'read the error; `rollback` puts 3.4 back (or restores the snapshot after the point of no return)',
  checked: 'resume (or rollback)',
  'snapshot-saved': 'resume (or rollback)',
  stopping: 'resume (or rollback)',
  'member-down': 'resume (or rollback)',
  starting: 'resume (or rollback)',
  'member-upgraded': 'resume (or rollback)',
  'awaiting-cluster-version': 'resume',
  'rolling-back': 'resume or rollback (finishes the rollback)',
  'between-hops': 'resume (the next hop of the route) or rollback (the last hop)',
  downgrading: 'resume or rollback (finishes the downgrade)',
  downgraded: 'fix the cause, then plan and run again',
  restoring: 'resume or rollback (finishes the restore)',
};

// ---------- --output json: one JSON document per line, stable snake_case fields (README) ----------

const line = (doc: Record<string, unknown>) => JSON.stringify(doc);

/** One check's verdict: `{"type":"check","check","status":"pass|warn|refuse|done","message"}`. */
export const jsonCheck = (v: Verdict): string =>
  line({ type: 'check', check: v.check, status: v.status, message: v.message });

/** plan's outcome, after its checks. */
export function jsonPlan(spec: ClusterSpec, plan: Plan): string {
  return line({
    type: 'plan',
    cluster: spec.name,
    outcome: plan.outcome,
    refused: plan.verdicts.filter((v) => v.status === 'refuse').map((v) => v.check),
    warnings: plan.verdicts.filter((v) => v.status === 'warn').map((v) => v.check),
    leader: plan.leader ?? null,
    order: plan.order,
    from_version: plan.fromVersion ?? null,
    to_version: plan.toVersion,
    pacing_ms: plan.pacingMs,
    snapshot_dir: spec.backupDir,
  });
}

/** One UpgradeProgress event with the field names of its Avro schema; times as ISO text. */
export function jsonEvent(e: UpgradeProgress): string {
  return line({
    type: 'event',
    ...e,
    occurred_at: new Date(e.occurred_at).toISOString(),
    snapshot: e.snapshot ? { ...e.snapshot, taken_at: new Date(e.snapshot.taken_at).toISOString() } : null,
  });
}

export function jsonStatus(cluster: string, now: Standing, events: readonly UpgradeProgress[]): string {
  const state = now.current?.state ?? initialState(cluster);
  const earlier = now.current ? undefined : now.earlier;
  return line({
    type: 'status',
    cluster: state.cluster,
    phase: state.phase,
    run_id: state.runId ?? null,
    from_version: state.fromVersion ?? null,
    to_version: state.toVersion ?? null,
    order: state.order,
    upgraded: state.upgraded,
    current: state.current ?? null,
    snapshot: state.snapshot
      ? {
          path: state.snapshot.path,
          revision: state.snapshot.revision,
          total_keys: state.snapshot.totalKeys,
          member: state.snapshot.member,
        }
      : null,
    error: state.error ?? null,
    next: events.length === 0 ? null : (NEXT[state.phase] ?? null),
    events: events.length,
    /** The last run, when it was about an earlier incarnation of the cluster (built again since). */
    earlier_run: earlier
      ? { run_id: earlier.run.runId, phase: earlier.run.state.phase, reasons: earlier.reasons }
      : null,
  });
}

/** The last line of every command: `{"type":"result","command","cluster","cluster_file","outcome","phase","exit_code","message"}`. */
export const jsonResult = (doc: {
  command: string;
  /** The cluster's name; null when the cluster file could not be read. */
  cluster: string | null;
  clusterFile: string;
  outcome: string;
  phase: string | null;
  exitCode: number;
  message: string;
}): string =>
  line({
    type: 'result',
    command: doc.command,
    cluster: doc.cluster,
    cluster_file: doc.clusterFile,
    outcome: doc.outcome,
    phase: doc.phase,
    exit_code: doc.exitCode,
    message: doc.message,
  });
