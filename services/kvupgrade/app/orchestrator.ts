import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, unavailable } from '../../../shared/errors.ts';
import { initialCluster, type MemberSpec, memberNamed } from '../domain/cluster-spec.ts';
import { flagValue } from '../domain/flags.ts';
import { classifyLogLine } from '../domain/log-lines.ts';
import {
  IllegalTransitionError,
  nextAction,
  nextStopAllowedAt,
  pickNextMember,
  rollbackTargets,
  type Trigger,
  transition,
  type UpgradeState,
} from '../domain/machine.ts';
import { FROM_MINOR, TO_MINOR } from '../domain/plan.ts';
import { noteEvent, transitionEvent, type UpgradeProgress } from '../domain/progress.ts';
import type { OrchestratorDeps } from './deps.ts';
import {
  confirmStartable,
  confirmStopped,
  findLeader,
  waitClusterVersion,
  waitMemberHealthy,
} from './gates.ts';

/** How long after its process is gone a member's ports may stay taken before the stop counts as failed. */
const PORTS_FREE_MS = 5000;

/** Publishing failed: the run stops here (nothing more may happen unrecorded); resume continues. */
export class ProgressNotRecordedError extends AppError {
  constructor(cause: unknown) {
    super('UNAVAILABLE', `progress could not be recorded on the topic: ${(cause as Error).message}`, {
      cause,
    });
    this.name = 'ProgressNotRecordedError';
  }
}

const message = (error: unknown) => (error as Error).message ?? String(error);

export interface Orchestrator {
  /** Applies a transition and records it (with the member log lines seen since the last one). */
  commit(state: UpgradeState, trigger: Trigger): Promise<UpgradeState>;
  note(state: UpgradeState, note: Parameters<typeof noteEvent>[1]): Promise<void>;
  publish(events: UpgradeProgress[]): Promise<void>;
  /** Runs actions until the run ends (completed, rolled back, restored or failed). */
  drive(state: UpgradeState, options?: { resumed?: boolean }): Promise<UpgradeState>;
  /** Starts reading member logs from their current end (lines older than this session are not events). */
  startLogCapture(): Promise<void>;
}

export function createOrchestrator(deps: OrchestratorDeps): Orchestrator {
  const {
    spec,
    etcd,
    driver,
    snapshots,
    clock,
    events: ctx,
    options,
  } = { ...deps, options: deps.spec.options };
  const seenHigherVersion = new Set<string>();

  async function publish(list: UpgradeProgress[]): Promise<void> {
    try {
      await deps.progress.publish(list);
    } catch (error) {
      throw new ProgressNotRecordedError(error);
    }
    for (const e of list) deps.onEvent(e);
  }

  async function logEvents(state: UpgradeState): Promise<UpgradeProgress[]> {
    const out: UpgradeProgress[] = [];
    for (const member of spec.members) {
      for (const line of await driver.drainLogs(member).catch(() => [])) {
        const signal = classifyLogLine(line);
        if (!signal) continue;
        // A 3.4 leader repeats this every 4 s while mixed: once per member and version is the story.
        const once = `${member.name}/${signal.step}/${signal.version}`;
        if (signal.step === 'leader-found-higher-version' && seenHigherVersion.has(once)) continue;
        seenHigherVersion.add(once);
        const note = {
          step: signal.step,
          message: signal.message,
          member: member.name,
          ...(signal.version ? { observedVersion: signal.version } : {}),
          ...(signal.error ? { error: signal.error } : {}),
        };
        out.push(noteEvent(state, note, ctx, signal.at ?? clock.now(), 'member_log'));
      }
    }
    return out;
  }

  async function commit(state: UpgradeState, trigger: Trigger): Promise<UpgradeState> {
    const at = clock.now();
    const next = transition(state, trigger, at);
    await publish([...(await logEvents(state)), transitionEvent(next, trigger, ctx, at)]);
    return next;
  }

  async function note(state: UpgradeState, n: Parameters<typeof noteEvent>[1]): Promise<void> {
    await publish([...(await logEvents(state)), noteEvent(state, n, ctx, clock.now())]);
  }

  async function startOn(member: MemberSpec, binary: string, version: string): Promise<void> {
    await confirmStartable(deps, member);
    await driver.start(member, binary, version);
    etcd.forgetToken(member.clientUrl);
  }

  const stopDeadline = () => options.stopTimeoutSeconds * 1000;
  /** Stops through the driver, then confirms: the process gone and the member's ports free. */
  async function stopConfirmed(member: MemberSpec): Promise<{ escalated: boolean }> {
    const outcome = await driver.stop(member, stopDeadline());
    await confirmStopped(deps, member, PORTS_FREE_MS);
    return outcome;
  }
  const gateTimeout = () => options.gateTimeoutSeconds * 1000;

  async function saveSnapshot(state: UpgradeState): Promise<UpgradeState> {
    const leader = await findLeader(deps);
    if (!leader) throw unavailable('no single leader found to take the snapshot from');
    await mkdir(spec.backupDir, { recursive: true });
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
    return commit(state, { type: 'snapshot-saved', snapshot, elapsedMs: clock.now() - started });
  }

  async function upgradeNextMember(state: UpgradeState): Promise<UpgradeState> {
    const wait = nextStopAllowedAt(state) - clock.now();
    if (wait > 0) {
      await note(state, {
        step: 'pacing',
        message: `waiting ${(wait / 1000).toFixed(0)} s before the next member (v2 data catch-up)`,
      });
      await deps.sleep(wait);
    }
    const leader = await findLeader(deps);
    const member = pickNextMember(state, leader?.name);
    if (!member) throw new IllegalTransitionError('no member left to upgrade');
    const stopping = await commit(state, { type: 'member-stopping', member, leader: leader?.name });
    return stopMember(stopping);
  }

  async function stopMember(state: UpgradeState): Promise<UpgradeState> {
    const member = memberNamed(spec, state.current!);
    const leader = await findLeader(deps);
    if (options.transferLeadership && leader?.name === member.name && state.upgraded.length > 0) {
      const target = memberNamed(spec, state.upgraded.at(-1)!);
      const started = clock.now();
      const { memberId } = await etcd.status(target.clientUrl);
      await etcd.moveLeader(member.clientUrl, memberId);
      await note(state, {
        step: 'leadership-moved',
        member: member.name,
        message: `leadership moved from ${member.name} to ${target.name} before stopping it`,
        elapsedMs: clock.now() - started,
      });
    }
    const started = clock.now();
    const { escalated } = await stopConfirmed(member);
    if (escalated)
      await note(state, {
        step: 'stop-escalated',
        member: member.name,
        message: `${member.name} ignored SIGINT for ${options.stopTimeoutSeconds} s and was killed`,
      });
    return commit(state, { type: 'member-stopped', member: member.name, elapsedMs: clock.now() - started });
  }

  async function startMember(state: UpgradeState): Promise<UpgradeState> {
    const member = memberNamed(spec, state.current!);
    const starting = await commit(state, { type: 'member-starting', member: member.name });
    await startOn(member, spec.binaries.target, state.toVersion ?? TO_MINOR);
    return gateMember(starting, false);
  }

  async function gateMember(state: UpgradeState, resumed: boolean): Promise<UpgradeState> {
    const member = memberNamed(spec, state.current!);
    // After a crash of the orchestrator the start may never have happened.
    if (resumed && !(await driver.status(member)).running)
      await startOn(member, spec.binaries.target, state.toVersion ?? TO_MINOR);
    const { version } = await waitMemberHealthy(deps, member, TO_MINOR, gateTimeout(), state.toVersion);
    const elapsedMs = clock.now() - (state.stopStartedAt ?? clock.now());
    return commit(state, { type: 'member-upgraded', member: member.name, version, elapsedMs });
  }

  async function awaitClusterVersion(state: UpgradeState): Promise<UpgradeState> {
    const clusterVersion = await waitClusterVersion(
      deps,
      TO_MINOR,
      options.clusterVersionTimeoutSeconds * 1000,
    );
    const elapsedMs = clock.now() - (state.lastUpgradedAt ?? clock.now());
    return commit(state, { type: 'cluster-version-updated', clusterVersion, elapsedMs });
  }

  /** Puts the old binary back, one member at a time, each gated like an upgrade. */
  async function rollBack(state: UpgradeState): Promise<UpgradeState> {
    let current = state;
    for (const name of rollbackTargets(current).filter((m) => !current.rolledBack.includes(m))) {
      const member = memberNamed(spec, name);
      const started = clock.now();
      const live = await etcd.version(member.clientUrl).catch(() => undefined);
      const healthy = await etcd.health(member.clientUrl).catch(() => false);
      if (!(live && healthy && live.server.startsWith(`${FROM_MINOR}.`))) {
        await stopConfirmed(member);
        await startOn(member, spec.binaries.current, current.fromVersion ?? FROM_MINOR);
      }
      const { version } = await waitMemberHealthy(
        deps,
        member,
        FROM_MINOR,
        gateTimeout(),
        current.fromVersion,
      );
      current = await commit(current, {
        type: 'member-rolled-back',
        member: name,
        version,
        elapsedMs: clock.now() - started,
      });
    }
    for (const member of spec.members) await waitMemberHealthy(deps, member, FROM_MINOR, gateTimeout());
    return commit(current, { type: 'rollback-finished' });
  }

  /**
   * Followers together, then the leader: a leader stopped with its followers tries to hand off
   * leadership to members that are going away and only stops at the deadline.
   */
  async function stopAll(state: UpgradeState): Promise<void> {
    const leader = await findLeader(deps);
    const stop = async (member: MemberSpec) => {
      const { escalated } = await stopConfirmed(member);
      if (escalated)
        await note(state, {
          step: 'stop-escalated',
          member: member.name,
          message: `${member.name} ignored SIGINT for ${options.stopTimeoutSeconds} s and was killed`,
        });
    };
    await Promise.all(spec.members.filter((m) => m !== leader).map(stop));
    if (leader) await stop(leader);
  }

  /** After the point of no return: every member restarts on the old binary from the snapshot, as a new cluster. */
  async function restore(state: UpgradeState): Promise<UpgradeState> {
    const snapshot = state.snapshot!;
    const started = clock.now();
    await stopAll(state);
    const token = `${flagValue(spec.members[0]!.parsedFlags, 'initial-cluster-token') ?? 'etcd-cluster'}-restored-${state.runId}`;
    let current = state;
    for (const member of spec.members.filter((m) => !state.rolledBack.includes(m.name))) {
      const { movedAside } = await driver.restoreData(member, {
        snapshot: snapshot.path,
        initialCluster: initialCluster(spec),
        initialClusterToken: token,
      });
      await note(current, {
        step: 'data-moved-aside',
        member: member.name,
        message: `${member.name}: previous data folder kept at ${movedAside}`,
      });
      current = await commit(current, { type: 'member-restored', member: member.name });
    }
    await Promise.all(
      spec.members.map((m) => startOn(m, spec.binaries.current, current.fromVersion ?? FROM_MINOR)),
    );
    await Promise.all(spec.members.map((m) => waitMemberHealthy(deps, m, FROM_MINOR, gateTimeout())));
    return commit(current, { type: 'restore-finished', elapsedMs: clock.now() - started });
  }

  async function step(state: UpgradeState, resumed: boolean): Promise<UpgradeState> {
    switch (nextAction(state)) {
      case 'save-snapshot':
        return saveSnapshot(state);
      case 'upgrade-next-member':
        return upgradeNextMember(state);
      case 'finish-members':
        return commit(state, { type: 'all-members-upgraded' });
      case 'stop-member':
        return stopMember(state);
      case 'start-member':
        return startMember(state);
      case 'gate-member':
        return gateMember(state, resumed);
      case 'await-cluster-version':
        return awaitClusterVersion(state);
      case 'roll-back':
        return rollBack(state);
      case 'restore':
        return restore(state);
      case 'none':
        return state;
    }
  }

  async function drive(
    initial: UpgradeState,
    driveOptions: { resumed?: boolean } = {},
  ): Promise<UpgradeState> {
    let state = initial;
    let resumed = driveOptions.resumed === true;
    while (nextAction(state) !== 'none') {
      try {
        state = await step(state, resumed);
      } catch (error) {
        if (error instanceof ProgressNotRecordedError || error instanceof IllegalTransitionError) throw error;
        deps.logger.warn({ err: error, phase: state.phase }, 'step failed');
        const failure = { member: state.current, error: message(error) };
        if (state.phase === 'rolling-back')
          state = await commit(state, { type: 'rollback-failed', ...failure });
        else if (state.phase === 'restoring')
          state = await commit(state, { type: 'restore-failed', ...failure });
        else state = await commit(state, { type: 'step-failed', ...failure });
      }
      resumed = false;
    }
    return state;
  }

  return {
    commit,
    note,
    publish,
    drive,
    async startLogCapture() {
      await Promise.all(spec.members.map((m) => driver.drainLogs(m).catch(() => [])));
    },
  };
}
