import { AppError } from '../../../shared/errors.ts';
import { releaseBinary } from '../domain/cluster-spec.ts';
import { rollbackRefusal } from '../domain/history.ts';
import { BEFORE_POINT_OF_NO_RETURN } from '../domain/phases.ts';
import { initialState, type UpgradeState } from '../domain/run-state.ts';
import { onlineDowngrade } from '../domain/upgrade-paths.ts';
import { isOnMinor, isRelease, minorOf } from '../domain/versions.ts';
import type { EtcdClient } from '../ports.ts';
import { loadHistory } from './commands.ts';
import type { OrchestratorDeps } from './deps.ts';
import { findLeader } from './gates.ts';
import { createOrchestrator } from './orchestrator.ts';

export type RollbackOutcome =
  | { readonly kind: 'nothing'; readonly state: UpgradeState; readonly reason: string }
  /** The last run was about an earlier incarnation of the cluster: nothing of it is restored here. */
  | { readonly kind: 'refused'; readonly reason: string }
  | { readonly kind: 'confirm'; readonly state: UpgradeState; readonly loss: string }
  | { readonly kind: 'finished'; readonly state: UpgradeState };

/** Whether some member still runs the hop's older minor with its cluster version: the old binary can still go back. */
async function binaryRollbackPossible(
  etcd: EtcdClient,
  deps: OrchestratorDeps,
  state: UpgradeState,
): Promise<boolean> {
  const to = minorOf(state.toVersion ?? '3.5')!;
  if (minorOf(state.fromVersion ?? '3.4') === to) return true; // a patch hop has no point of no return
  const versions = await Promise.all(
    deps.spec.members.map((m) => etcd.version(m.clientUrl).catch(() => undefined)),
  );
  const known = versions.filter((v) => v !== undefined);
  return known.every((v) => !isOnMinor(v.cluster, to)) && known.some((v) => !isOnMinor(v.server, to));
}

/**
 * Why the binary a rollback would start cannot take the hop back, before any member is stopped: the
 * file may have been rewritten for the next hop since (binaries.current now the release this run
 * upgraded to). Only the local driver's binaries can be run from here.
 */
async function wrongSourceBinary(deps: OrchestratorDeps, state: UpgradeState): Promise<string | undefined> {
  if (deps.spec.driver.kind !== 'local' || state.fromVersion === undefined) return undefined;
  const binary = releaseBinary(deps.spec, state.route, state.fromVersion);
  const reported = await deps.binaryVersion(binary, ['--version']);
  if (isRelease(reported.version, state.fromVersion)) return undefined;
  const is =
    reported.version === undefined ? `cannot be run (${reported.error})` : `is etcd ${reported.version}`;
  return `rollback of run ${state.runId} puts etcd ${state.fromVersion} back on its members, but ${binary} ${is}: name the ${state.fromVersion} binary in binaries.current (or binaries.via) and run rollback again; nothing was changed`;
}

/** The hop went from a minor that etcd's online downgrade brings the cluster back to (3.6 on). */
const byDowngrade = (state: UpgradeState) =>
  state.fromVersion !== undefined &&
  state.toVersion !== undefined &&
  onlineDowngrade(minorOf(state.fromVersion)!, minorOf(state.toVersion)!);

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
    `  the members start on ${releaseBinary(deps.spec, state.route, state.fromVersion)} as a new cluster: new cluster ID and member IDs (clients keyed on IDs must reset)`,
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
  if (state.phase === 'rolling-back' || state.phase === 'restoring' || state.phase === 'downgrading') {
    const resumed = await orchestrator.commit(state, { type: 'resumed' });
    return { kind: 'finished', state: await orchestrator.drive(resumed, { resumed: true }) };
  }
  const afterHop = state.phase === 'completed' || state.phase === 'between-hops';
  const patchHop = minorOf(state.fromVersion ?? '') === minorOf(state.toVersion ?? '');
  const byBinary =
    BEFORE_POINT_OF_NO_RETURN.includes(state.phase) ||
    (afterHop && patchHop) ||
    (state.phase === 'failed' &&
      !state.downgradeEnabled &&
      (await binaryRollbackPossible(deps.etcd, deps, state)));
  if (byBinary) {
    const refusal = await wrongSourceBinary(deps, state);
    if (refusal) return { kind: 'refused', reason: refusal };
    const requested = await orchestrator.commit(state, { type: 'rollback-requested' });
    return { kind: 'finished', state: await orchestrator.drive(requested) };
  }
  // After the point of no return from 3.6 on: etcd's online downgrade, which keeps every write.
  if ((afterHop || state.phase === 'failed') && byDowngrade(state)) {
    const leader = await findLeader(deps);
    if (!leader) throw new AppError('UNAVAILABLE', 'no single leader found: the downgrade needs one');
    const order = [...deps.spec.members.map((m) => m.name).filter((n) => n !== leader.name), leader.name];
    const requested = await orchestrator.commit(state, {
      type: 'downgrade-requested',
      order,
      leader: leader.name,
    });
    return { kind: 'finished', state: await orchestrator.drive(requested) };
  }
  if (
    !['completed', 'between-hops', 'awaiting-cluster-version', 'failed'].includes(state.phase) ||
    !state.snapshot
  ) {
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
