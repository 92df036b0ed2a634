import { AppError, unavailable } from '../../../shared/errors.ts';
import type { MemberSpec } from '../domain/member-spec.ts';
import { isOnMinor } from '../domain/versions.ts';
import type { GateDeps } from './deps.ts';

const message = (error: unknown) => (error as Error).message ?? String(error);

/** The member that reports `etcd_server_is_leader 1`, if exactly one does. */
export async function findLeader(deps: GateDeps): Promise<MemberSpec | undefined> {
  const answers = await Promise.all(
    deps.spec.members.map((m) => deps.etcd.isLeader(m.clientUrl).catch(() => false)),
  );
  const leaders = deps.spec.members.filter((_, i) => answers[i]);
  return leaders.length === 1 ? leaders[0] : undefined;
}

/** The highest revision any other member reports: what a restarted member must catch up to. */
export async function clusterRevision(deps: GateDeps, except: MemberSpec): Promise<number> {
  const others = deps.spec.members.filter((m) => m.name !== except.name);
  const revisions = await Promise.all(
    others.map((m) =>
      deps.etcd.status(m.clientUrl).then(
        (s) => s.revision,
        () => 0,
      ),
    ),
  );
  return Math.max(0, ...revisions);
}

/**
 * The health gate: the process runs, `/health` is true, `/version` reports `minor`, a quorum read
 * succeeds through the member, and its revision reached the cluster's revision taken when the gate
 * began. A member whose process has exited fails at once, with the end of its log.
 */
export async function waitMemberHealthy(
  deps: GateDeps,
  member: MemberSpec,
  minor: string,
  timeoutMs: number,
  /** The exact version the new process must report (e.g. 3.5.16); a minor-only text checks the minor. */
  expected?: string,
): Promise<{ readonly version: string }> {
  const exact = expected !== undefined && /^\d+\.\d+\.\d+$/.test(expected) ? expected : undefined;
  const { etcd, clock, spec } = deps;
  const url = member.clientUrl;
  const target = await clusterRevision(deps, member);
  const deadline = clock.now() + timeoutMs;
  let last = 'no answer yet';
  for (;;) {
    try {
      if (!(await etcd.health(url))) throw unavailable('/health says false');
      const { server } = await etcd.version(url);
      if (!isOnMinor(server, minor) || (exact !== undefined && server !== exact))
        throw unavailable(`reports ${server}, waiting for ${exact ?? minor}`);
      await etcd.quorumRead(url);
      const { revision } = await etcd.status(url);
      if (revision < target) throw unavailable(`revision ${revision}, catching up to ${target}`);
      return { version: server };
    } catch (error) {
      if ((error as { authRequired?: boolean }).authRequired) throw error;
      last = message(error);
      const status = await deps.driver.status(member);
      if (!status.running) {
        const tail = await deps.driver.tailLogs(member, 3);
        throw new AppError(
          'UNAVAILABLE',
          `${member.name} is not running${status.exit ? ` (${status.exit})` : ''}; last log lines: ${tail.join(' | ') || '(none)'}`,
        );
      }
    }
    if (clock.now() >= deadline)
      throw new AppError('DEADLINE_EXCEEDED', `${member.name} not healthy within ${timeoutMs} ms: ${last}`);
    await deps.sleep(spec.options.pollIntervalMs);
  }
}

/** Waits until every member reports cluster version `minor` and runs `minor`; returns what they report. */
export async function waitClusterVersion(deps: GateDeps, minor: string, timeoutMs: number): Promise<string> {
  const { etcd, clock, spec } = deps;
  const deadline = clock.now() + timeoutMs;
  let last = '';
  for (;;) {
    const versions = await Promise.all(
      spec.members.map((m) => etcd.version(m.clientUrl).catch((e: unknown) => message(e))),
    );
    const ok = versions.every(
      (v) => typeof v !== 'string' && isOnMinor(v.cluster, minor) && isOnMinor(v.server, minor),
    );
    if (ok) return (versions[0] as { cluster: string }).cluster;
    last = versions
      .map(
        (v, i) =>
          `${spec.members[i]!.name}: ${typeof v === 'string' ? v : `server ${v.server}, cluster ${v.cluster}`}`,
      )
      .join('; ');
    if (clock.now() >= deadline)
      throw new AppError(
        'DEADLINE_EXCEEDED',
        `cluster version not ${minor} within ${timeoutMs} ms (${last})`,
      );
    await deps.sleep(spec.options.pollIntervalMs);
  }
}

const PORT_POLL_MS = 20;

/**
 * A stop is confirmed only when the driver sees no process of the member and nothing accepts
 * connections on its client and peer ports; otherwise UNAVAILABLE says which of them is still there.
 */
export async function confirmStopped(deps: GateDeps, member: MemberSpec, timeoutMs: number): Promise<void> {
  const { etcd, clock, driver } = deps;
  const deadline = clock.now() + timeoutMs;
  for (;;) {
    const [status, client, peer] = await Promise.all([
      driver.status(member),
      etcd.accepting(member.clientUrl),
      etcd.accepting(member.peerUrl),
    ]);
    if (!status.running && !client && !peer) return;
    if (clock.now() >= deadline) {
      const still = [
        ...(status.running ? ['its process still runs'] : []),
        ...(client ? [`client port ${member.clientUrl} still accepts connections`] : []),
        ...(peer ? [`peer port ${member.peerUrl} still accepts connections`] : []),
      ];
      throw new AppError(
        'UNAVAILABLE',
        `${member.name} is not confirmed stopped after ${timeoutMs} ms: ${still.join('; ')}${status.running ? '' : ' (another process holds it?)'}`,
      );
    }
    await deps.sleep(PORT_POLL_MS);
  }
}

/** Before a start: no process of the member, and its ports free (a start would fail to bind). */
export async function confirmStartable(deps: GateDeps, member: MemberSpec): Promise<void> {
  const [client, peer] = await Promise.all([
    deps.etcd.accepting(member.clientUrl),
    deps.etcd.accepting(member.peerUrl),
  ]);
  const held = [...(client ? [member.clientUrl] : []), ...(peer ? [member.peerUrl] : [])];
  if (held.length > 0)
    throw new AppError(
      'FAILED_PRECONDITION',
      `not starting ${member.name}: ${held.join(' and ')} already accept${held.length === 1 ? 's' : ''} connections (a process of the member still runs, or another one holds the port)`,
    );
}
