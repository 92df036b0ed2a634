// Going back to 3.4: the old binary on each upgraded member, or, after the point of no return,
// the snapshot restored into new data folders.
import { initialCluster, memberNamed } from '../domain/cluster-spec.ts';
import { flagValue } from '../domain/flags.ts';
import type { MemberSpec } from '../domain/member-spec.ts';
import { rollbackTargets, type UpgradeState } from '../domain/run-state.ts';
import { FROM_MINOR } from '../domain/versions.ts';
import { findLeader, waitMemberHealthy } from './gates.ts';
import {
  gateTimeoutMs,
  type StepContext,
  startMember,
  stopMember,
  stopMemberNoted,
} from './member-control.ts';
import { observeCluster } from './observe.ts';

/** Puts the old binary back, one member at a time, each gated like an upgrade. */
export async function rollBack(ctx: StepContext, state: UpgradeState): Promise<UpgradeState> {
  const { deps, recorder } = ctx;
  const { spec, etcd, clock } = deps;
  let current = state;
  for (const name of rollbackTargets(current).filter((m) => !current.rolledBack.includes(m))) {
    const member = memberNamed(spec, name);
    const started = clock.now();
    const live = await etcd.version(member.clientUrl).catch(() => undefined);
    const healthy = await etcd.health(member.clientUrl).catch(() => false);
    if (!(live && healthy && live.server.startsWith(`${FROM_MINOR}.`))) {
      await stopMember(ctx, member);
      await startMember(ctx, member, spec.binaries.current, current.fromVersion ?? FROM_MINOR);
    }
    const { version } = await waitMemberHealthy(
      deps,
      member,
      FROM_MINOR,
      gateTimeoutMs(deps),
      current.fromVersion,
    );
    current = await recorder.commit(current, {
      type: 'member-rolled-back',
      member: name,
      version,
      elapsedMs: clock.now() - started,
    });
  }
  for (const member of spec.members) await waitMemberHealthy(deps, member, FROM_MINOR, gateTimeoutMs(deps));
  return recorder.commit(current, { type: 'rollback-finished' });
}

/**
 * Followers together, then the leader: a leader stopped with its followers tries to hand off
 * leadership to members that are going away and only stops at the deadline.
 */
async function stopAll(ctx: StepContext, state: UpgradeState): Promise<void> {
  const leader = await findLeader(ctx.deps);
  const stop = (member: MemberSpec) => stopMemberNoted(ctx, state, member);
  await Promise.all(ctx.deps.spec.members.filter((m) => m !== leader).map(stop));
  if (leader) await stop(leader);
}

/** After the point of no return: every member restarts on the old binary from the snapshot, as a new cluster. */
export async function restore(ctx: StepContext, state: UpgradeState): Promise<UpgradeState> {
  const { deps, recorder } = ctx;
  const { spec, clock, driver } = deps;
  const snapshot = state.snapshot!;
  const started = clock.now();
  await stopAll(ctx, state);
  const token = `${flagValue(spec.members[0]!.parsedFlags, 'initial-cluster-token') ?? 'etcd-cluster'}-restored-${state.runId}`;
  let current = state;
  for (const member of spec.members.filter((m) => !state.rolledBack.includes(m.name))) {
    const { movedAside } = await driver.restoreData(member, {
      snapshot: snapshot.path,
      initialCluster: initialCluster(spec),
      initialClusterToken: token,
    });
    await recorder.note(current, {
      step: 'data-moved-aside',
      member: member.name,
      message: `${member.name}: previous data folder kept at ${movedAside}`,
    });
    current = await recorder.commit(current, { type: 'member-restored', member: member.name });
  }
  const version = current.fromVersion ?? FROM_MINOR;
  await Promise.all(spec.members.map((m) => startMember(ctx, m, spec.binaries.current, version)));
  await Promise.all(spec.members.map((m) => waitMemberHealthy(deps, m, FROM_MINOR, gateTimeoutMs(deps))));
  // A restored cluster is another incarnation: new IDs and data folders, the snapshot's revision.
  const { incarnation } = await observeCluster(deps);
  return recorder.commit(current, {
    type: 'restore-finished',
    elapsedMs: clock.now() - started,
    incarnation,
  });
}
