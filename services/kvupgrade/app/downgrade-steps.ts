// etcd's online downgrade of the last hop (3.6 on): `downgrade validate` and `enable` through the
// leader, the cluster version and storage version back on the older minor, then the older binary on
// each member, followers first, the leader last. Every write is kept.
import { AppError, unavailable } from '../../../shared/errors.ts';
import { memberNamed } from '../domain/cluster-spec.ts';
import type { UpgradeState } from '../domain/run-state.ts';
import { isOnMinor } from '../domain/versions.ts';
import { findLeader, waitMemberHealthy } from './gates.ts';
import { gateTimeoutMs, type StepContext, startMember, stopMemberNoted } from './member-control.ts';
import { hopSource } from './rollback-steps.ts';

const message = (error: unknown) => (error as Error).message ?? String(error);

/**
 * Waits until every member reports cluster version `minor` and, where it reports one (3.6 on), storage
 * version `minor`: the guide's "confirm the storage version of all servers has been migrated".
 */
async function waitDowngraded(ctx: StepContext, minor: string): Promise<string> {
  const { etcd, clock, spec } = ctx.deps;
  const timeoutMs = spec.options.clusterVersionTimeoutSeconds * 1000;
  const deadline = clock.now() + timeoutMs;
  let last = '';
  for (;;) {
    const seen = await Promise.all(
      spec.members.map((m) =>
        Promise.all([etcd.version(m.clientUrl), etcd.status(m.clientUrl)]).then(
          ([v, s]) => ({ name: m.name, cluster: v.cluster, storage: s.storageVersion }),
          (e: unknown) => ({ name: m.name, error: message(e) }),
        ),
      ),
    );
    const behind = seen.filter(
      (s) =>
        'error' in s ||
        !isOnMinor(s.cluster, minor) ||
        (s.storage !== undefined && !isOnMinor(s.storage, minor)),
    );
    if (behind.length === 0) return `${minor}.0`;
    last = behind
      .map((s) =>
        'error' in s ? `${s.name}: ${s.error}` : `${s.name} cluster ${s.cluster} storage ${s.storage ?? '-'}`,
      )
      .join('; ');
    if (clock.now() >= deadline)
      throw new AppError(
        'DEADLINE_EXCEEDED',
        `cluster and storage version not ${minor} within ${timeoutMs} ms (${last})`,
      );
    await ctx.deps.sleep(spec.options.pollIntervalMs);
  }
}

/** validate, then enable, through the leader, unless a session before this one already enabled it. */
async function enableDowngrade(ctx: StepContext, state: UpgradeState): Promise<UpgradeState> {
  const { deps, recorder } = ctx;
  const { etcd, clock } = deps;
  const { minor } = hopSource(deps.spec, state);
  const started = clock.now();
  const leader = await findLeader(deps);
  if (!leader) throw unavailable('no single leader found to enable the downgrade through');
  const status = await etcd.status(leader.clientUrl);
  if (!isOnMinor(status.downgradeTarget, minor)) {
    const cluster = await etcd.downgrade(leader.clientUrl, 'validate', minor);
    await recorder.note(state, {
      step: 'downgrade-validated',
      message: `etcd validated a downgrade of cluster version ${cluster} to ${minor}`,
    });
    await etcd.downgrade(leader.clientUrl, 'enable', minor);
  }
  const clusterVersion = await waitDowngraded(ctx, minor);
  return recorder.commit(state, {
    type: 'downgrade-enabled',
    clusterVersion,
    elapsedMs: clock.now() - started,
  });
}

/** The older binary on one member: leadership moved away first when it leads and a downgraded member can take it. */
async function downgradeMember(ctx: StepContext, state: UpgradeState, name: string): Promise<UpgradeState> {
  const { deps, recorder } = ctx;
  const { spec, etcd, clock } = deps;
  const source = hopSource(spec, state);
  const member = memberNamed(spec, name);
  const started = clock.now();
  const [live, healthy] = await Promise.all([
    etcd.version(member.clientUrl).catch(() => undefined),
    etcd.health(member.clientUrl).catch(() => false),
  ]);
  if (!(live && healthy && live.server === source.version)) {
    const leader = await findLeader(deps);
    const done = state.rolledBack.at(-1);
    if (spec.options.transferLeadership && leader?.name === name && done) {
      const { memberId } = await etcd.status(memberNamed(spec, done).clientUrl);
      await etcd.moveLeader(member.clientUrl, memberId);
      await recorder.note(state, {
        step: 'leadership-moved',
        member: name,
        message: `leadership moved from ${name} to ${done} before stopping it`,
      });
    }
    await stopMemberNoted(ctx, state, member);
    await startMember(ctx, member, source.binary, source.version);
  }
  const { version } = await waitMemberHealthy(
    deps,
    member,
    source.minor,
    gateTimeoutMs(deps),
    source.version,
  );
  return recorder.commit(state, {
    type: 'member-downgraded',
    member: name,
    version,
    elapsedMs: clock.now() - started,
  });
}

/**
 * Ends etcd's downgrade job once every member runs the older minor. The leader ends it by itself,
 * but only at its next check (every 5 s in 3.5), and while the job is on the cluster version cannot
 * rise: an upgrade started in that window waited in vain for it (seen in CI). Cancelling a job the
 * leader already ended is refused with "no inflight downgrade job": the same outcome.
 */
async function endDowngradeJob(ctx: StepContext, state: UpgradeState, minor: string): Promise<void> {
  const { deps } = ctx;
  // A leader that has just started may not answer at once: retriable failures are tried again.
  const deadline = deps.clock.now() + gateTimeoutMs(deps);
  let ended: string | undefined;
  while (ended === undefined) {
    const leader = await findLeader(deps);
    ended = await (leader
      ? deps.etcd.downgrade(leader.clientUrl, 'cancel', minor).then(() => 'cancelled it')
      : Promise.reject(unavailable('no single leader found to end the downgrade job through'))
    ).catch((error: unknown) => {
      if (error instanceof AppError && /no inflight downgrade job/.test(error.message))
        return 'the leader had ended it';
      if (deps.clock.now() >= deadline || !(error instanceof AppError && error.retriable)) throw error;
      return undefined;
    });
    if (ended === undefined) await deps.sleep(deps.spec.options.pollIntervalMs);
  }
  await ctx.recorder.note(state, {
    step: 'downgrade-job-ended',
    message: `every member runs ${minor}: the downgrade job is over (${ended})`,
  });
}

/** The whole downgrade, from wherever a session before this one left it. */
export async function downgrade(ctx: StepContext, state: UpgradeState): Promise<UpgradeState> {
  const started = ctx.deps.clock.now();
  let current = state.downgradeEnabled ? state : await enableDowngrade(ctx, state);
  for (const name of current.order.filter((m) => !current.rolledBack.includes(m)))
    current = await downgradeMember(ctx, current, name);
  const { minor } = hopSource(ctx.deps.spec, current);
  for (const member of ctx.deps.spec.members)
    await waitMemberHealthy(ctx.deps, member, minor, gateTimeoutMs(ctx.deps));
  await endDowngradeJob(ctx, current, minor);
  return ctx.recorder.commit(current, {
    type: 'downgrade-finished',
    elapsedMs: ctx.deps.clock.now() - started,
  });
}
