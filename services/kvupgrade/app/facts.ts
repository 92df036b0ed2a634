import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../../shared/clock.ts';
import {
  type CertificateFacts,
  type ClusterFacts,
  type MemberFacts,
  momentaryReason,
  type ToolFacts,
} from '../domain/cluster-facts.ts';
import type { ClusterSpec } from '../domain/cluster-spec.ts';
import type { MemberSpec } from '../domain/member-spec.ts';
import type { BinaryVersion, EtcdClient, MemberDriver } from '../ports.ts';

const message = (error: unknown) => (error as Error).message ?? String(error);

async function settle<T>(
  work: Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: string; authRequired: boolean; timedOut: boolean }> {
  try {
    return { ok: true, value: await work };
  } catch (error) {
    return {
      ok: false,
      error: message(error),
      authRequired: (error as { authRequired?: boolean }).authRequired === true,
      timedOut: (error as { code?: string }).code === 'DEADLINE_EXCEEDED',
    };
  }
}

/** The newest v2 store snapshot (`member/snap/<term>-<index>.snap`, fixed-width hex names) in bytes. */
async function v2SnapshotBytes(member: MemberSpec): Promise<number | undefined> {
  const dir = join(member.dataDir, 'member', 'snap');
  try {
    const snaps = (await readdir(dir)).filter((f) => f.endsWith('.snap')).sort();
    return snaps.length === 0 ? 0 : (await stat(join(dir, snaps.at(-1)!))).size;
  } catch {
    return undefined;
  }
}

async function memberFacts(
  member: MemberSpec,
  etcd: EtcdClient,
  driver: MemberDriver,
  local: boolean,
): Promise<MemberFacts> {
  const url = member.clientUrl;
  const v3File = join(member.dataDir, 'member', 'snap', 'db');
  const [health, version, leader, read, status, v2, processes, v3, cert] = await Promise.all([
    settle(etcd.health(url)),
    settle(etcd.version(url)),
    settle(etcd.isLeader(url)),
    settle(etcd.quorumRead(url)),
    settle(etcd.status(url)),
    local ? v2SnapshotBytes(member) : Promise.resolve(undefined),
    settle(driver.processes(member)),
    settle(driver.fileExists(member, v3File)),
    settle(etcd.certificate(url)),
  ]);
  const field = `${member.name} server certificate`;
  const asked = { '/health': health, '/version': version, '/metrics': leader, 'quorum read': read, status };
  const unanswered = Object.entries(asked).flatMap(([what, answer]) =>
    !answer.ok && answer.timedOut ? [what] : [],
  );
  return {
    ...(unanswered.length > 0 ? { unanswered } : {}),
    processes: processes.ok ? processes.value : { error: processes.error },
    v3Database: v3.ok
      ? { file: v3File, exists: v3.value }
      : { file: v3File, exists: undefined, error: v3.error },
    ...(cert.ok
      ? cert.value
        ? { serverCertificate: { field, ...cert.value } }
        : {}
      : { serverCertificate: { field, error: cert.error } }),
    name: member.name,
    health: health.ok
      ? health.value
        ? { ok: true }
        : { ok: false, error: '/health says false' }
      : { ok: false, error: health.error },
    version: version.ok ? { ok: true, ...version.value } : { ok: false, error: version.error },
    isLeader: leader.ok ? leader.value : undefined,
    quorumRead: read.ok
      ? { ok: true, revision: read.value.revision }
      : { ok: false, error: read.error, authRequired: read.authRequired },
    memberId: status.ok ? status.value.memberId : undefined,
    ...(status.ok && status.value.storageVersion ? { storageVersion: status.value.storageVersion } : {}),
    ...(status.ok && status.value.downgradeTarget ? { downgradeTarget: status.value.downgradeTarget } : {}),
    v2SnapshotBytes: v2,
  };
}

/**
 * Everything `plan` decides on, read from the members and the binaries; changes nothing. Binaries
 * of the etcd servers are checked only with the local driver (the command driver's paths are remote).
 */
export async function gatherFacts(
  spec: ClusterSpec,
  etcd: EtcdClient,
  more: {
    readonly driver: MemberDriver;
    readonly binaryVersion: BinaryVersion;
    /** The tls block's certificates, read when the files were loaded. */
    readonly certificates?: readonly CertificateFacts[];
    readonly now: number;
  },
): Promise<ClusterFacts> {
  const local = spec.driver.kind === 'local';
  const members = await Promise.all(spec.members.map((m) => memberFacts(m, etcd, more.driver, local)));
  let memberList: ClusterFacts['memberList'];
  for (const m of spec.members) {
    const list = await settle(etcd.memberList(m.clientUrl));
    if (list.ok) {
      memberList = list.value;
      break;
    }
  }
  const { binaryVersion } = more;
  const [current, target, etcdctl, etcdutl, via] = await Promise.all([
    local ? binaryVersion(spec.binaries.current, ['--version']) : undefined,
    local ? binaryVersion(spec.binaries.target, ['--version']) : undefined,
    binaryVersion(spec.binaries.etcdctl, ['version']),
    binaryVersion(spec.binaries.etcdutl, ['version']),
    local ? Promise.all(spec.binaries.via.map((r) => binaryVersion(r.etcd, ['--version']))) : undefined,
  ]);
  const tools: ToolFacts = {
    ...(current ? { current } : {}),
    ...(target ? { target } : {}),
    ...(via && via.length > 0 ? { via } : {}),
    etcdctl,
    etcdutl,
  };
  let authEnabled: boolean | undefined;
  for (const m of spec.members) {
    const answer = await settle(etcd.authEnabled(m.clientUrl));
    if (answer.ok) {
      authEnabled = answer.value;
      break;
    }
  }
  return {
    members,
    memberList,
    tools,
    authEnabled,
    checkedAt: more.now,
    ...(more.certificates ? { certificates: more.certificates } : {}),
  };
}

/** How many times a cluster seen in a passing moment is read before it is judged as seen. */
export const STEADY_READS = 3;
/** The pause between those reads: about an election with etcd's default timings. */
export const STEADY_PAUSE_MS = 1000;

/**
 * gatherFacts, read again while the facts may show only a moment (a member too busy to answer in
 * time, an election under way): a busy host or a leader change must not refuse a healthy cluster,
 * and a cluster that stays so is judged on its last read. `onMoment` hears each read taken again.
 */
export async function gatherSteadyFacts(
  spec: ClusterSpec,
  etcd: EtcdClient,
  more: Omit<Parameters<typeof gatherFacts>[2], 'now'> & {
    readonly clock: Clock;
    readonly sleep: (ms: number) => Promise<void>;
    readonly onMoment?: (reason: string) => void;
  },
): Promise<ClusterFacts> {
  const { clock, sleep, onMoment, ...rest } = more;
  for (let read = 1; ; read++) {
    const facts = await gatherFacts(spec, etcd, { ...rest, now: clock.now() });
    const reason = momentaryReason(facts);
    if (reason === undefined || read === STEADY_READS) return facts;
    onMoment?.(`${reason}: reading the cluster again in ${STEADY_PAUSE_MS} ms`);
    await sleep(STEADY_PAUSE_MS);
  }
}
