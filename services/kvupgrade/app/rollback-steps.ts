// Going back to the hop's older release: its binary on each upgraded member, or, after the point of
// no return of a 3.4 -> 3.5 hop, the snapshot restored into new data folders.
import { initialCluster, memberNamed, releaseBinary } from '../domain/cluster-spec.ts';
import { flagValue } from '../domain/flags.ts';
import type { MemberSpec } from '../domain/member-spec.ts';
import { rollbackTargets, type UpgradeState } from '../domain/run-state.ts';
import { minorOf } from '../domain/versions.ts';
import { findLeader, waitMemberHealthy } from './gates.ts';
import {
  gateTimeoutMs,
  type StepContext,
  startMember,
  stopMember,
  stopMemberNoted,
} from './member-control.ts';
import { observeCluster } from './observe.ts';

/** The release a rollback of the hop goes back to, its minor, and its binary. */
export const hopSource = (spec: StepContext['deps']['spec'], state: UpgradeState) => {
  const version = state.fromVersion ?? '3.4';
  return { version, minor: minorOf(version)!, binary: releaseBinary(spec, state.route, state.fromVersion) };
};

/** Puts the old binary back, one member at a time, each gated like an upgrade. */
export async function rollBack(ctx: StepContext, state: UpgradeState): Promise<UpgradeState> {
  const { deps, recorder } = ctx;
  const { spec, etcd, clock } = deps;
  const source = hopSource(spec, state);
  let current = state;
  for (const name of rollbackTargets(current).filter((m) => !current.rolledBack.includes(m))) {
    const member = memberNamed(spec, name);
    const started = clock.now();
    const live = await etcd.version(member.clientUrl).catch(() => undefined);
    const healthy = await etcd.health(member.clientUrl).catch(() => false);
    if (!(live && healthy && live.server === source.version)) {
      await stopMember(ctx, member);
      await startMember(ctx, member, source.binary, source.version);
    }
    const { version } = await waitMemberHealthy(
      deps,
      member,
      source.minor,
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
  for (const member of spec.members) await waitMemberHealthy(deps, member, source.minor, gateTimeoutMs(deps));
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
  const source = hopSource(spec, current);
  await Promise.all(spec.members.map((m) => startMember(ctx, m, source.binary, source.version)));
  await Promise.all(spec.members.map((m) => waitMemberHealthy(deps, m, source.minor, gateTimeoutMs(deps))));
  // A restored cluster is another incarnation: new IDs and data folders, the snapshot's revision.
  const { incarnation } = await observeCluster(deps);
  return recorder.commit(current, {
    type: 'restore-finished',
    elapsedMs: clock.now() - started,
    incarnation,
  });
}
