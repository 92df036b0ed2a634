import { rollbackRefusal } from '../domain/history.ts';
import { BEFORE_POINT_OF_NO_RETURN } from '../domain/phases.ts';
import { initialState, type UpgradeState } from '../domain/run-state.ts';
import { isOnMinor, TO_MINOR } from '../domain/versions.ts';
import type { EtcdClient } from '../ports.ts';
import { loadHistory } from './commands.ts';
import type { OrchestratorDeps } from './deps.ts';
import { createOrchestrator } from './orchestrator.ts';

export type RollbackOutcome =
  | { readonly kind: 'nothing'; readonly state: UpgradeState; readonly reason: string }
  /** The last run was about an earlier incarnation of the cluster: nothing of it is restored here. */
  | { readonly kind: 'refused'; readonly reason: string }
  | { readonly kind: 'confirm'; readonly state: UpgradeState; readonly loss: string }
  | { readonly kind: 'finished'; readonly state: UpgradeState };

/** Whether some member still runs 3.4 with cluster version 3.4: the old binary can still go back. */
async function binaryRollbackPossible(etcd: EtcdClient, deps: OrchestratorDeps): Promise<boolean> {
  const versions = await Promise.all(
    deps.spec.members.map((m) => etcd.version(m.clientUrl).catch(() => undefined)),
  );
  const known = versions.filter((v) => v !== undefined);
  return (
    known.every((v) => !isOnMinor(v.cluster, TO_MINOR)) && known.some((v) => !isOnMinor(v.server, TO_MINOR))
  );
}

/** The confirmation text of a restore: what is restored, and what is lost. */
function restoreLoss(deps: OrchestratorDeps, state: UpgradeState, now: number, lost: number | undefined) {
  const s = state.snapshot!;
  return [
    `rollback of cluster ${state.cluster} restores the snapshot ${s.path}`,
    `  taken ${new Date(s.takenAt).toISOString()} from ${s.member} at revision ${s.revision} (${s.totalKeys} keys)`,
    lost === undefined
      ? '  the cluster does not answer: its current revision is unknown; every write after the snapshot is lost'
      : `  the cluster is at revision ${now}: the ${lost} revisions written since the snapshot are LOST`,
    `  every member stops; each data folder is moved aside (kept, <dataDir>.before-restore-<time>) and replaced by the snapshot;`,
    `  the members start on ${deps.spec.binaries.current} as a new cluster: new cluster ID and member IDs (clients keyed on IDs must reset)`,
    'run again with --yes to do it',
  ].join('\n');
}

/**
 * For the run of the cluster as it is now: before the point of no return, the old binary back on
 * every upgraded member; after it, the run's snapshot restored into new data folders, once
 * `confirmed` (the caller shows `loss` first). A run of an earlier incarnation is never rolled back.
 */
export async function rollback(
  deps: OrchestratorDeps,
  input: { readonly confirmed: boolean },
): Promise<RollbackOutcome> {
  const { standing: now } = await loadHistory(deps);
  if (now.earlier) return { kind: 'refused', reason: rollbackRefusal(deps.spec.name, now.earlier) };
  const state = now.current?.state ?? initialState(deps.spec.name);
  const orchestrator = createOrchestrator(deps);
  await orchestrator.startLogCapture();
  if (state.phase === 'rolling-back' || state.phase === 'restoring') {
    const resumed = await orchestrator.commit(state, { type: 'resumed' });
    return { kind: 'finished', state: await orchestrator.drive(resumed, { resumed: true }) };
  }
  const byBinary =
    BEFORE_POINT_OF_NO_RETURN.includes(state.phase) ||
    (state.phase === 'failed' && (await binaryRollbackPossible(deps.etcd, deps)));
  if (byBinary) {
    const requested = await orchestrator.commit(state, { type: 'rollback-requested' });
    return { kind: 'finished', state: await orchestrator.drive(requested) };
  }
  if (!['completed', 'awaiting-cluster-version', 'failed'].includes(state.phase) || !state.snapshot) {
    return {
      kind: 'nothing',
      state,
      reason: `nothing to roll back: cluster ${state.cluster} is ${state.phase}${state.snapshot ? '' : ' with no snapshot recorded'}`,
    };
  }
  const revisions = await Promise.all(
    deps.spec.members.map((m) =>
      deps.etcd.status(m.clientUrl).then(
        (s) => s.revision,
        () => 0,
      ),
    ),
  );
  const revision = Math.max(0, ...revisions);
  const lost = revision > 0 ? revision - state.snapshot.revision : undefined;
  if (!input.confirmed) return { kind: 'confirm', state, loss: restoreLoss(deps, state, revision, lost) };
  const restoring = await orchestrator.commit(state, { type: 'restore-started', lostRevisions: lost });
  return { kind: 'finished', state: await orchestrator.drive(restoring) };
}
