import type { ClusterSpec } from './cluster-spec.ts';
import { flagValue, removedFlagsIn } from './flags.ts';
import { compareMinor, isOnMinor, minorOf, parseVersion } from './versions.ts';

export const FROM_MINOR = '3.4';
export const TO_MINOR = '3.5';
/** The etcd guide: over 50 MB of v2 data, a newly upgraded member may need up to 2 minutes to catch up. */
export const V2_PACING_THRESHOLD_BYTES = 50 * 1024 * 1024;

/** What the orchestrator learned about one member, before deciding anything. */
export interface MemberFacts {
  readonly name: string;
  /** `/health` answered `"health":"true"`; otherwise why not. */
  readonly health: { readonly ok: true } | { readonly ok: false; readonly error: string };
  readonly version:
    | { readonly ok: true; readonly server: string; readonly cluster: string }
    | { readonly ok: false; readonly error: string };
  /** From `etcd_server_is_leader`; undefined when /metrics did not answer. */
  readonly isLeader: boolean | undefined;
  /** A linearizable range through this member (needs a quorum). */
  readonly quorumRead:
    | { readonly ok: true; readonly revision: number }
    | { readonly ok: false; readonly error: string; readonly authRequired: boolean };
  /** Member ID as the decimal string the gateway gives (a uint64, never a JS number). */
  readonly memberId: string | undefined;
  /** Size of the newest v2 store snapshot in the data folder; undefined when it cannot be read from here. */
  readonly v2SnapshotBytes: number | undefined;
  /** The processes the driver found for the member; undefined when not looked for. */
  readonly processes?:
    | {
        readonly lookedFor: string;
        readonly found: readonly { readonly pid?: number; readonly flagDifferences: readonly string[] }[];
      }
    | { readonly error: string };
  /** `<dataDir>/member/snap/db`: exists true/false, or undefined when the driver cannot tell. */
  readonly v3Database?: { readonly file: string; readonly exists: boolean | undefined };
  /** The certificate the member serves on its https client URL. */
  readonly serverCertificate?: CertificateFacts;
}

/** One certificate of the tls block or of a member: parsed, or why not; expiry in epoch ms. */
export interface CertificateFacts {
  /** `tls.ca`, `tls.cert`, or the member's name for its server certificate. */
  readonly field: string;
  readonly file?: string;
  readonly subject?: string;
  readonly notAfter?: number;
  readonly error?: string;
}

/** Certificates expiring within this are reported by plan. */
export const CERTIFICATE_WARN_MS = 30 * 24 * 3600 * 1000;

export interface ToolFacts {
  /** Reported version, or why the binary could not be run; undefined when not checked (remote driver). */
  readonly current?: { readonly version?: string; readonly error?: string };
  readonly target?: { readonly version?: string; readonly error?: string };
  readonly etcdctl?: { readonly version?: string; readonly error?: string };
  readonly etcdutl?: { readonly version?: string; readonly error?: string };
}

export interface ClusterFacts {
  readonly members: readonly MemberFacts[];
  /** `member list` from any member: names and peer URLs; undefined when no member answered. */
  readonly memberList:
    | readonly { readonly id: string; readonly name: string; readonly peerUrls: readonly string[] }[]
    | undefined;
  readonly tools: ToolFacts;
  /** A read without credentials is refused; undefined when no member answered. */
  readonly authEnabled: boolean | undefined;
  /** The tls block's certificates (undefined without a tls block). */
  readonly certificates?: readonly CertificateFacts[];
  /** When the facts were gathered (epoch ms): what certificate expiry is measured from. */
  readonly checkedAt?: number;
}

export type VerdictStatus = 'pass' | 'warn' | 'refuse' | 'done';

export interface Verdict {
  readonly check: string;
  readonly status: VerdictStatus;
  readonly message: string;
}

export interface Plan {
  /** go: every check passed (warnings allowed); refuse: at least one refusal; done: already 3.5. */
  readonly outcome: 'go' | 'refuse' | 'done';
  readonly verdicts: readonly Verdict[];
  readonly leader: string | undefined;
  /** Followers in file order, the leader last. */
  readonly order: readonly string[];
  readonly pacingMs: number;
  readonly fromVersion: string | undefined;
  readonly toVersion: string;
}

/** Dashboards and alerts that read these names go silent on 3.5 (observed on 3.5.16; the guide lists five). */
export const METRIC_RENAMES: readonly (readonly [string, string])[] = Object.freeze([
  ['etcd_debugging_mvcc_db_total_size_in_bytes', 'etcd_mvcc_db_total_size_in_bytes'],
  ['etcd_debugging_mvcc_put_total', 'etcd_mvcc_put_total'],
  ['etcd_debugging_mvcc_delete_total', 'etcd_mvcc_delete_total'],
  ['etcd_debugging_mvcc_txn_total', 'etcd_mvcc_txn_total'],
  ['etcd_debugging_mvcc_range_total', 'etcd_mvcc_range_total (still served by 3.5.16, deprecated)'],
]);

export const POINT_OF_NO_RETURN =
  'the cluster version becomes 3.5 a few seconds after the last member runs 3.5 (the leader checks every 4 s). ' +
  'Until then a failure puts the 3.4 binary back on every upgraded member; after it a 3.4 member refuses to start ' +
  '("invalid downgrade"), and the only way back is restoring the snapshot into new data folders, losing every write made after it.';

export const AUTH_HAZARD =
  'auth is enabled: etcd does not support a rolling upgrade from 3.4 with auth, because 3.5 hashes passwords before ' +
  'proposing them. A user added or a password changed through a 3.5 member while 3.4 members remain is stored on the ' +
  '3.4 members with an EMPTY password, and stays so after the upgrade. Freeze user and password changes for the whole ' +
  'run, and set again any password changed during it.';

/** Pure: every pre-flight check over gathered facts, with a verdict each, and the order of the upgrade. */
export function evaluatePlan(
  spec: ClusterSpec,
  facts: ClusterFacts,
  input: { readonly allowAuth: boolean },
): Plan {
  const verdicts: Verdict[] = [];
  const add = (check: string, status: VerdictStatus, message: string) =>
    verdicts.push({ check, status, message });
  const members = facts.members;

  const unhealthy = members.filter((m) => !m.health.ok);
  if (unhealthy.length === 0) add('health', 'pass', `all ${members.length} endpoints answer /health true`);
  else
    add(
      'health',
      'refuse',
      `unhealthy: ${unhealthy.map((m) => `${m.name} (${m.health.ok ? '' : m.health.error})`).join('; ')}`,
    );

  // Without credentials a read is refused for want of a user: the auth verdict below covers that.
  const needCredentials = members.some((m) => !m.quorumRead.ok && m.quorumRead.authRequired);
  const authRequired = facts.authEnabled === true || needCredentials;
  const readFailed = members.filter((m) => !m.quorumRead.ok && !m.quorumRead.authRequired);
  if (readFailed.length === 0 && !needCredentials)
    add('quorum-read', 'pass', 'a linearizable read succeeds through every member');
  else if (readFailed.length > 0) {
    add(
      'quorum-read',
      'refuse',
      `no quorum read through ${readFailed.map((m) => `${m.name} (${m.quorumRead.ok ? '' : m.quorumRead.error})`).join('; ')}`,
    );
  }

  if (authRequired) {
    if (!input.allowAuth)
      add(
        'auth',
        'refuse',
        `${AUTH_HAZARD} Refused; run again with --allow-auth (and auth credentials in the cluster file) to accept it.`,
      );
    else if (!spec.auth)
      add(
        'auth',
        'refuse',
        'auth is enabled and --allow-auth was given, but the cluster file has no auth.user / auth.passwordFile to read and snapshot with',
      );
    else add('auth', 'warn', AUTH_HAZARD);
  } else add('auth', 'pass', 'auth is disabled');

  const versions = members.flatMap((m) => (m.version.ok ? [{ name: m.name, ...m.version }] : []));
  const noVersion = members.filter((m) => !m.version.ok);
  if (noVersion.length > 0)
    add('versions', 'refuse', `/version did not answer on ${noVersion.map((m) => m.name).join(', ')}`);
  else
    add('versions', 'pass', versions.map((v) => `${v.name} ${v.server} (cluster ${v.cluster})`).join(', '));

  const servers = new Set(versions.map((v) => v.server));
  const clusterVersions = new Set(versions.map((v) => minorOf(v.cluster) ?? v.cluster));
  const fromVersion = servers.size === 1 ? [...servers][0] : undefined;
  let done = false;
  if (
    versions.length > 0 &&
    versions.every((v) => isOnMinor(v.cluster, TO_MINOR) && isOnMinor(v.server, TO_MINOR))
  ) {
    done = true;
    add(
      'cluster-version',
      'done',
      `the cluster version is already ${TO_MINOR} on every member: nothing to do`,
    );
  } else if (clusterVersions.size > 1) {
    add(
      'cluster-version',
      'refuse',
      `members disagree on the cluster version: ${[...clusterVersions].join(', ')}`,
    );
  } else if (clusterVersions.size === 1) {
    const cv = parseVersion([...clusterVersions][0]!);
    const from = parseVersion(FROM_MINOR)!;
    if (!cv) add('cluster-version', 'refuse', `unreadable cluster version ${[...clusterVersions][0]}`);
    else if (compareMinor(cv, from) < 0)
      add(
        'cluster-version',
        'refuse',
        `cluster version ${cv.major}.${cv.minor} is older than ${FROM_MINOR}: upgrade to ${FROM_MINOR} first`,
      );
    else if (compareMinor(cv, from) > 0)
      add('cluster-version', 'refuse', `cluster version ${cv.major}.${cv.minor} is not ${FROM_MINOR}`);
    else add('cluster-version', 'pass', `cluster version ${FROM_MINOR}`);
  }

  if (!done && versions.length > 0) {
    if (servers.size > 1) {
      add(
        'same-server-version',
        'refuse',
        `members run different versions (${versions.map((v) => `${v.name} ${v.server}`).join(', ')}): an upgrade was left half done; use resume or rollback`,
      );
    } else if (!isOnMinor(fromVersion, FROM_MINOR)) {
      add('same-server-version', 'refuse', `members run ${fromVersion}, not ${FROM_MINOR}.x`);
    } else add('same-server-version', 'pass', `every member runs ${fromVersion}`);
  }

  membershipCheck(spec, facts, add);

  const leaders = members.filter((m) => m.isLeader === true);
  const leader = leaders.length === 1 ? leaders[0]!.name : undefined;
  if (leaders.length === 1) add('leader', 'pass', `leader: ${leader} (etcd_server_is_leader 1)`);
  else
    add(
      'leader',
      'refuse',
      leaders.length === 0
        ? 'no member reports etcd_server_is_leader 1'
        : `several leaders: ${leaders.map((m) => m.name).join(', ')}`,
    );

  const n = spec.members.length;
  const quorum = Math.floor(n / 2) + 1;
  const healthyCount = members.length - unhealthy.length;
  if (healthyCount - 1 >= quorum)
    add(
      'quorum-tolerance',
      'pass',
      `${n} members, quorum ${quorum}: the cluster keeps its quorum while one member is down`,
    );
  else
    add(
      'quorum-tolerance',
      'refuse',
      `${n} members (${healthyCount} healthy), quorum ${quorum}: stopping one member loses the quorum and the cluster stops serving`,
    );

  const sizes = members.map((m) => m.v2SnapshotBytes);
  const largest = Math.max(0, ...sizes.filter((s): s is number => s !== undefined));
  const unknownSize = sizes.some((s) => s === undefined);
  let pacingMs = 0;
  if (spec.options.pacingSeconds !== undefined) {
    pacingMs = spec.options.pacingSeconds * 1000;
    add(
      'v2-data',
      'pass',
      `pacing set to ${spec.options.pacingSeconds} s between members by options.pacingSeconds`,
    );
  } else if (largest > V2_PACING_THRESHOLD_BYTES || unknownSize) {
    pacingMs = spec.options.v2PacingSeconds * 1000;
    add(
      'v2-data',
      'warn',
      `${unknownSize ? 'v2 data size unknown (data folder not readable here)' : `v2 data ${mb(largest)} MB is over 50 MB`}: waiting ${spec.options.v2PacingSeconds} s between members for the catch-up`,
    );
  } else add('v2-data', 'pass', `v2 data ${mb(largest)} MB (under 50 MB): no pacing needed`);

  for (const member of spec.members) {
    const removed = removedFlagsIn(member.parsedFlags);
    for (const r of removed) {
      add(
        'removed-flags',
        'refuse',
        `${member.name} uses --${r.flag}${r.value ? `=${r.value}` : ''}, removed in 3.5 (3.5.16 ${r.effect}); replace it with ${r.replacement}`,
      );
    }
    if (flagValue(member.parsedFlags, 'logger') === undefined && removed.length === 0) {
      add(
        'logger',
        'warn',
        `${member.name} has no --logger: 3.4 logs as capnslog text, 3.5 as zap JSON; log parsers change format (set --logger=zap now to avoid it)`,
      );
    }
  }
  if (!verdicts.some((v) => v.check === 'removed-flags'))
    add('removed-flags', 'pass', 'no member uses a flag that 3.5 removed');

  toolChecks(facts.tools, add);
  processChecks(facts, add);
  v3DatabaseCheck(facts, add);
  tlsChecks(spec, facts, add);

  const refused = verdicts.some((v) => v.status === 'refuse');
  const followers = spec.members.map((m) => m.name).filter((name) => name !== leader);
  return {
    outcome: done ? 'done' : refused ? 'refuse' : 'go',
    verdicts,
    leader,
    order: leader ? [...followers, leader] : followers,
    pacingMs,
    fromVersion,
    toVersion: facts.tools.target?.version ?? `${TO_MINOR}.x`,
  };
}

function membershipCheck(
  spec: ClusterSpec,
  facts: ClusterFacts,
  add: (c: string, s: VerdictStatus, m: string) => void,
) {
  const list = facts.memberList;
  if (!list) return add('membership', 'refuse', 'no member answered member list');
  const problems: string[] = [];
  for (const m of spec.members) {
    const found = list.find((l) => l.name === m.name);
    if (!found) problems.push(`${m.name} is in the file but not in the cluster`);
    else if (!found.peerUrls.map((u) => new URL(u).origin).includes(m.peerUrl)) {
      problems.push(
        `${m.name} has peer URLs ${found.peerUrls.join(',')} in the cluster, ${m.peerUrl} in the file`,
      );
    }
  }
  for (const l of list)
    if (!spec.members.some((m) => m.name === l.name))
      problems.push(`${l.name || `unstarted member ${l.id}`} is in the cluster but not in the file`);
  if (problems.length > 0) add('membership', 'refuse', problems.join('; '));
  else add('membership', 'pass', `member list matches the file (${list.length} members)`);
}

function toolChecks(tools: ToolFacts, add: (c: string, s: VerdictStatus, m: string) => void) {
  const check = (key: keyof ToolFacts, label: string, minor: string | undefined) => {
    const fact = tools[key];
    if (!fact) return;
    if (fact.error || !fact.version)
      add('binaries', 'refuse', `${label} cannot run: ${fact.error ?? 'no version'}`);
    else if (minor && !isOnMinor(fact.version, minor))
      add('binaries', 'refuse', `${label} is ${fact.version}, expected ${minor}.x`);
    else add('binaries', 'pass', `${label} ${fact.version}`);
  };
  check('current', 'binaries.current (etcd)', FROM_MINOR);
  check('target', 'binaries.target (etcd)', TO_MINOR);
  check('etcdctl', 'binaries.etcdctl', undefined);
  check('etcdutl', 'binaries.etcdutl', undefined);
}

function processChecks(facts: ClusterFacts, add: (c: string, s: VerdictStatus, m: string) => void) {
  const seen = facts.members.filter((m) => m.processes !== undefined);
  if (seen.length === 0) return;
  const problems: string[] = [];
  for (const m of seen) {
    const p = m.processes!;
    if ('error' in p) {
      problems.push(`${m.name}: the driver could not look for its process: ${p.error}`);
      continue;
    }
    if (p.found.length !== 1) {
      const pids = p.found.map((f) => f.pid).filter((pid) => pid !== undefined);
      problems.push(
        `${m.name}: ${p.found.length === 0 ? 'no' : p.found.length} running process${p.found.length > 1 ? 'es' : ''} found${pids.length > 0 ? ` (pids ${pids.join(', ')})` : ''}, expected exactly one; looked for ${p.lookedFor}`,
      );
      continue;
    }
    const diff = p.found[0]!.flagDifferences;
    if (diff.length > 0)
      problems.push(
        `${m.name} (pid ${p.found[0]!.pid}) runs with other flags than the cluster file, which every restart uses: ${diff.join('; ')}`,
      );
  }
  if (problems.length > 0) add('processes', 'refuse', problems.join('; '));
  else
    add(
      'processes',
      'pass',
      `one running process per member, started with the cluster file's flags: ${seen
        .map((m) => {
          const pid = 'found' in m.processes! ? m.processes.found[0]?.pid : undefined;
          return pid === undefined ? m.name : `${m.name} pid ${pid}`;
        })
        .join(', ')}`,
    );
}

/** The specification: a 3.2+ server panics restoring from snapshots when `member/snap/db` is missing. */
function v3DatabaseCheck(facts: ClusterFacts, add: (c: string, s: VerdictStatus, m: string) => void) {
  const checked = facts.members.filter((m) => m.v3Database !== undefined);
  if (checked.length === 0) return;
  const missing = checked.filter((m) => m.v3Database!.exists === false);
  const unknown = checked.filter((m) => m.v3Database!.exists === undefined);
  if (missing.length > 0)
    add(
      'v3-database',
      'refuse',
      missing
        .map(
          (m) =>
            `${m.name} has no v3 database (${m.v3Database!.file} is missing): a server migrated from v2 that never wrote v3 data panics when 3.2+ restores from its snapshots; do not upgrade this cluster until every member has v3 data`,
        )
        .join('; '),
    );
  else if (unknown.length > 0)
    add(
      'v3-database',
      'warn',
      `cannot tell whether ${unknown.map((m) => m.v3Database!.file).join(', ')} exist (set driver.check to look on the members' hosts); a member without it panics on 3.5`,
    );
  else add('v3-database', 'pass', `every member has its v3 database (member/snap/db)`);
}

function tlsChecks(
  spec: ClusterSpec,
  facts: ClusterFacts,
  add: (c: string, s: VerdictStatus, m: string) => void,
) {
  if (!spec.tls) return;
  const now = facts.checkedAt ?? 0;
  const all = [
    ...(facts.certificates ?? []),
    ...facts.members.flatMap((m) => (m.serverCertificate ? [m.serverCertificate] : [])),
  ];
  const where = (c: CertificateFacts) => `${c.field}${c.file ? ` ${c.file}` : ''}`;
  const day = 24 * 3600 * 1000;
  const broken = all.filter((c) => c.error !== undefined);
  const expired = all.filter((c) => c.error === undefined && c.notAfter !== undefined && c.notAfter <= now);
  const soon = all.filter(
    (c) =>
      c.error === undefined &&
      c.notAfter !== undefined &&
      c.notAfter > now &&
      c.notAfter - now < CERTIFICATE_WARN_MS,
  );
  if (broken.length > 0)
    add(
      'tls',
      'refuse',
      `certificates that do not load: ${broken.map((c) => `${where(c)}: ${c.error}`).join('; ')}`,
    );
  if (expired.length > 0)
    add(
      'tls',
      'refuse',
      `expired certificates: ${expired.map((c) => `${where(c)} (${c.subject}) expired ${new Date(c.notAfter!).toISOString()}`).join('; ')}`,
    );
  if (soon.length > 0)
    add(
      'tls',
      'warn',
      `certificates expiring within 30 days: ${soon
        .map(
          (c) =>
            `${where(c)} (${c.subject}) in ${Math.floor((c.notAfter! - now) / day)} days, ${new Date(c.notAfter!).toISOString()}`,
        )
        .join('; ')}`,
    );
  const noHandshake = facts.members.filter((m) => !m.health.ok);
  if (broken.length === 0 && expired.length === 0 && soon.length === 0) {
    const first = all.filter((c) => c.notAfter !== undefined).sort((a, b) => a.notAfter! - b.notAfter!)[0];
    add(
      'tls',
      'pass',
      `${all.length} certificates load (${(facts.certificates ?? []).map((c) => `${c.field} ${c.subject}`).join(', ')})` +
        (first
          ? `; the first to expire is ${where(first)} on ${new Date(first.notAfter!).toISOString().slice(0, 10)}`
          : '') +
        (noHandshake.length === 0 ? '; every member answers over TLS with them' : ''),
    );
  }
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
