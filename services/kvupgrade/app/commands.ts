import { AppError } from '../../../shared/errors.ts';
import { rebuild } from '../domain/machine.ts';
import { ACTIVE_PHASES, BEFORE_POINT_OF_NO_RETURN } from '../domain/phases.ts';
import { evaluatePlan, type Plan } from '../domain/plan.ts';
import { checkEvent, triggerOf, type UpgradeProgress } from '../domain/progress.ts';
import type { UpgradeState } from '../domain/run-state.ts';
import { isOnMinor, TO_MINOR } from '../domain/versions.ts';
import type { EtcdClient, ProgressLog } from '../ports.ts';
import type { OrchestratorDeps } from './deps.ts';
import { gatherFacts } from './facts.ts';
import { createOrchestrator } from './orchestrator.ts';

/** The cluster's state as its transition events on the topic say, and those events. */
export async function loadState(
  progress: Pick<ProgressLog, 'read'>,
  cluster: string,
): Promise<{ state: UpgradeState; events: UpgradeProgress[] }> {
  const events = await progress.read(cluster);
  const transitions = events.flatMap((e) => {
    const trigger = triggerOf(e);
    return trigger ? [{ trigger, at: new Date(e.occurred_at).getTime() }] : [];
  });
  return { state: rebuild(cluster, transitions), events };
}

export type RunOutcome =
  | { readonly kind: 'refused'; readonly plan: Plan }
  | { readonly kind: 'nothing-to-do'; readonly plan: Plan }
  | { readonly kind: 'finished'; readonly plan: Plan; readonly state: UpgradeState };

/** plan's checks (recorded as events), then the whole upgrade. */
export async function runUpgrade(
  deps: OrchestratorDeps,
  input: { readonly allowAuth: boolean; readonly runId: string },
): Promise<RunOutcome> {
  // Reading facts changes nothing, so it overlaps with reading the events.
  const [{ state }, facts] = await Promise.all([
    loadState(deps.progress, deps.spec.name),
    gatherFacts(deps.spec, deps.etcd, {
      driver: deps.driver,
      binaryVersion: deps.binaryVersion,
      now: deps.clock.now(),
      ...(deps.certificates ? { certificates: deps.certificates } : {}),
    }),
  ]);
  if (ACTIVE_PHASES.includes(state.phase)) {
    throw new AppError(
      'FAILED_PRECONDITION',
      `cluster ${deps.spec.name} has a run in progress (run ${state.runId}, phase ${state.phase}): use resume or rollback`,
    );
  }
  const orchestrator = createOrchestrator(deps);
  await orchestrator.startLogCapture();
  const plan = evaluatePlan(deps.spec, facts, input);
  const at = deps.clock.now();
  await orchestrator.publish(
    plan.verdicts.map((v) => checkEvent({ ...state, runId: input.runId }, v, deps.events, at)),
  );
  if (plan.outcome === 'refuse') return { kind: 'refused', plan };
  if (plan.outcome === 'done') return { kind: 'nothing-to-do', plan };
  const checked = await orchestrator.commit(state, {
    type: 'checks-passed',
    runId: input.runId,
    order: plan.order,
    leader: plan.leader!,
    fromVersion: plan.fromVersion!,
    toVersion: plan.toVersion,
    pacingMs: plan.pacingMs,
  });
  return { kind: 'finished', plan, state: await orchestrator.drive(checked) };
}

/** Continues an interrupted run from the state its events describe. */
export async function resumeUpgrade(
  deps: OrchestratorDeps,
): Promise<{ readonly resumed: boolean; readonly state: UpgradeState }> {
  const { state } = await loadState(deps.progress, deps.spec.name);
  if (!ACTIVE_PHASES.includes(state.phase)) return { resumed: false, state };
  const orchestrator = createOrchestrator(deps);
  await orchestrator.startLogCapture();
  const resumed = await orchestrator.commit(state, { type: 'resumed' });
  return { resumed: true, state: await orchestrator.drive(resumed, { resumed: true }) };
}

export type RollbackOutcome =
  | { readonly kind: 'nothing'; readonly state: UpgradeState; readonly reason: string }
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

/**
 * Before the point of no return: the old binary back on every upgraded member. After it: restore the
 * run's snapshot into new data folders, once `confirmed` (the caller shows `loss` first).
 */
export async function rollback(
  deps: OrchestratorDeps,
  input: { readonly confirmed: boolean },
): Promise<RollbackOutcome> {
  const { state } = await loadState(deps.progress, deps.spec.name);
  const orchestrator = createOrchestrator(deps);
  await orchestrator.startLogCapture();
  if (state.phase === 'rolling-back' || state.phase === 'restoring') {
    return {
      kind: 'finished',
      state: await orchestrator.drive(await orchestrator.commit(state, { type: 'resumed' }), {
        resumed: true,
      }),
    };
  }
  const byBinary =
    BEFORE_POINT_OF_NO_RETURN.includes(state.phase) ||
    (state.phase === 'failed' && (await binaryRollbackPossible(deps.etcd, deps)));
  if (byBinary) {
    return {
      kind: 'finished',
      state: await orchestrator.drive(await orchestrator.commit(state, { type: 'rollback-requested' })),
    };
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
  const now = Math.max(0, ...revisions);
  const lost = now > 0 ? now - state.snapshot.revision : undefined;
  if (!input.confirmed) {
    const s = state.snapshot;
    const loss = [
      `rollback of cluster ${state.cluster} restores the snapshot ${s.path}`,
      `  taken ${new Date(s.takenAt).toISOString()} from ${s.member} at revision ${s.revision} (${s.totalKeys} keys)`,
      lost === undefined
        ? '  the cluster does not answer: its current revision is unknown; every write after the snapshot is lost'
        : `  the cluster is at revision ${now}: the ${lost} revisions written since the snapshot are LOST`,
      `  every member stops; each data folder is moved aside (kept, <dataDir>.before-restore-<time>) and replaced by the snapshot;`,
      `  the members start on ${deps.spec.binaries.current} as a new cluster: new cluster ID and member IDs (clients keyed on IDs must reset)`,
      'run again with --yes to do it',
    ].join('\n');
    return { kind: 'confirm', state, loss };
  }
  const restoring = await orchestrator.commit(state, { type: 'restore-started', lostRevisions: lost });
  return { kind: 'finished', state: await orchestrator.drive(restoring) };
}
