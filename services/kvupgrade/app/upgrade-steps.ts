// The steps of an upgrade, one per action of the state machine: each does its work and commits
// the transition that records it.
import { access, constants } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { AppError, unavailable } from '../../../shared/errors.ts';
import { memberNamed, releaseBinary } from '../domain/cluster-spec.ts';
import { IllegalTransitionError } from '../domain/machine.ts';
import { lastHop, nextStopAllowedAt, pickNextMember, type UpgradeState } from '../domain/run-state.ts';
import { DEFAULT_TARGET, minorOf } from '../domain/versions.ts';
import { findLeader, waitClusterVersion, waitMemberHealthy } from './gates.ts';
import { gateTimeoutMs, type StepContext, startMember, stopMemberNoted } from './member-control.ts';

/** From the leader (it has the latest data), then verified: revision caught up, keys present. */
export async function saveSnapshot(
  { deps, recorder }: StepContext,
  state: UpgradeState,
): Promise<UpgradeState> {
  const { spec, etcd, snapshots, clock } = deps;
  const leader = await findLeader(deps);
  if (!leader) throw unavailable('no single leader found to take the snapshot from');
  const file = join(spec.backupDir, `${spec.name}-${state.runId}.db`);
  const started = clock.now();
  const before = (await etcd.status(leader.clientUrl)).revision;
  await snapshots.save(leader.clientUrl, file);
  const status = await snapshots.status(file);
  // An empty key space reads as revision 0 in the file while the server says 1.
  if (Math.max(status.revision, 1) < before)
    throw unavailable(
      `snapshot ${file} is at revision ${status.revision}, older than the leader's ${before}`,
    );
  if (status.totalKeys === 0) throw unavailable(`snapshot ${file} holds no keys`);
  const snapshot = { path: file, ...status, takenAt: started, member: leader.name };
  return recorder.commit(state, { type: 'snapshot-saved', snapshot, elapsedMs: clock.now() - started });
}

/** Waits out the pacing, then picks the next member (followers first) and announces its stop. */
export async function upgradeNextMember(ctx: StepContext, state: UpgradeState): Promise<UpgradeState> {
  const { deps, recorder } = ctx;
  const wait = nextStopAllowedAt(state) - deps.clock.now();
  if (wait > 0) {
    await recorder.note(state, {
      step: 'pacing',
      message: `waiting ${(wait / 1000).toFixed(0)} s before the next member (v2 data catch-up)`,
    });
    await deps.sleep(wait);
  }
  const leader = await findLeader(deps);
  const member = pickNextMember(state, leader?.name);
  if (!member) throw new IllegalTransitionError('no member left to upgrade');
  const stopping = await recorder.commit(state, { type: 'member-stopping', member, leader: leader?.name });
  return stopCurrent(ctx, stopping);
}

/** Moves leadership away first when the member leads and an upgraded member can take it. */
export async function stopCurrent(ctx: StepContext, state: UpgradeState): Promise<UpgradeState> {
  const { deps, recorder } = ctx;
  const { spec, etcd, clock } = deps;
  const member = memberNamed(spec, state.current!);
  const leader = await findLeader(deps);
  if (spec.options.transferLeadership && leader?.name === member.name && state.upgraded.length > 0) {
    const target = memberNamed(spec, state.upgraded.at(-1)!);
    const started = clock.now();
    const { memberId } = await etcd.status(target.clientUrl);
    await etcd.moveLeader(member.clientUrl, memberId);
    await recorder.note(state, {
      step: 'leadership-moved',
      member: member.name,
      message: `leadership moved from ${member.name} to ${target.name} before stopping it`,
      elapsedMs: clock.now() - started,
    });
  }
  const started = clock.now();
  await stopMemberNoted(ctx, state, member);
  return recorder.commit(state, {
    type: 'member-stopped',
    member: member.name,
    elapsedMs: clock.now() - started,
  });
}

/** The guide's `etcdutl check v2store` is a 3.5 command: the etcdutl beside the 3.5 release's etcd, else binaries.etcdutl. */
async function v2storeEtcdutl(ctx: StepContext, state: UpgradeState): Promise<string> {
  const beside = join(dirname(releaseBinary(ctx.deps.spec, state.route, state.fromVersion)), 'etcdutl');
  return (await access(beside, constants.X_OK).then(
    () => true,
    () => false,
  ))
    ? beside
    : ctx.deps.spec.binaries.etcdutl;
}

/** The release the hop goes to, and its binary. */
const hopTarget = (ctx: StepContext, state: UpgradeState) => {
  const version = state.toVersion ?? DEFAULT_TARGET;
  return {
    version,
    minor: minorOf(version)!,
    binary: releaseBinary(ctx.deps.spec, state.route, state.toVersion),
  };
};

export async function startCurrent(ctx: StepContext, state: UpgradeState): Promise<UpgradeState> {
  const { spec, driver } = ctx.deps;
  const member = memberNamed(spec, state.current!);
  const target = hopTarget(ctx, state);
  // 3.6 refuses to start on custom v2 content: the guide's `etcdutl check v2store`, while the data folder is not in use.
  if (target.minor === '3.6' && minorOf(state.fromVersion ?? '') === '3.5') {
    const check = await driver.checkV2store(member, await v2storeEtcdutl(ctx, state));
    if (check && !check.clean)
      throw new AppError(
        'FAILED_PRECONDITION',
        `${member.name}: etcdutl check v2store: ${check.detail}; 3.6 would refuse this data folder (clean the v2 store as etcd's 3.6 guide says, "V2 Store")`,
      );
    if (check)
      await ctx.recorder.note(state, {
        step: 'v2store-checked',
        member: member.name,
        message: `${member.name}: ${check.detail}`,
      });
  }
  const starting = await ctx.recorder.commit(state, { type: 'member-starting', member: member.name });
  await startMember(ctx, member, target.binary, target.version);
  return gateCurrent(ctx, starting, false);
}

/** The health gate of the member in progress; after a crash of the orchestrator the start may never have happened. */
export async function gateCurrent(
  ctx: StepContext,
  state: UpgradeState,
  resumed: boolean,
): Promise<UpgradeState> {
  const { deps, recorder } = ctx;
  const { spec, clock } = deps;
  const member = memberNamed(spec, state.current!);
  const target = hopTarget(ctx, state);
  if (resumed && !(await deps.driver.status(member)).running)
    await startMember(ctx, member, target.binary, target.version);
  const { version } = await waitMemberHealthy(
    deps,
    member,
    target.minor,
    gateTimeoutMs(deps),
    state.toVersion,
  );
  const elapsedMs = clock.now() - (state.stopStartedAt ?? clock.now());
  return recorder.commit(state, { type: 'member-upgraded', member: member.name, version, elapsedMs });
}

export async function awaitClusterVersion(
  { deps, recorder }: StepContext,
  state: UpgradeState,
): Promise<UpgradeState> {
  const timeoutMs = deps.spec.options.clusterVersionTimeoutSeconds * 1000;
  const clusterVersion = await waitClusterVersion(
    deps,
    minorOf(state.toVersion ?? DEFAULT_TARGET)!,
    timeoutMs,
  );
  const elapsedMs = deps.clock.now() - (state.lastUpgradedAt ?? deps.clock.now());
  if (lastHop(state))
    return recorder.commit(state, { type: 'cluster-version-updated', clusterVersion, elapsedMs });
  const leader = await findLeader(deps);
  const raftIndex = leader
    ? (await deps.etcd.status(leader.clientUrl).catch(() => undefined))?.raftIndex
    : undefined;
  return recorder.commit(state, {
    type: 'hop-completed',
    clusterVersion,
    elapsedMs,
    ...(raftIndex !== undefined ? { raftIndex } : {}),
  });
}
