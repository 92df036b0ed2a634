import { isAbsolute, resolve } from 'node:path';
import { AppError } from '../../../shared/errors.ts';
import { type DriverSpec, type TlsSpec, validateDriver, validateTls } from './driver-spec.ts';
import { flagValue } from './flags.ts';
import { type MemberSpec, type PathResolver, validateMembers } from './member-spec.ts';
import { isObj, NAME, type NamedFile, Problems } from './problems.ts';

export type { NamedFile } from './problems.ts';

export interface UpgradeOptions {
  /** Move leadership to an upgraded member before stopping the leader (etcd also hands it off on SIGINT). */
  readonly transferLeadership: boolean;
  /** Wait between members when the v2 data set is over 50 MB (the etcd guide says 2 minutes). */
  readonly v2PacingSeconds: number;
  /** Wait between members whatever the v2 size; overrides the rule above when set. */
  readonly pacingSeconds: number | undefined;
  readonly stopTimeoutSeconds: number;
  readonly gateTimeoutSeconds: number;
  readonly clusterVersionTimeoutSeconds: number;
  readonly requestTimeoutMs: number;
  readonly pollIntervalMs: number;
  /** How long a step's event may wait for Kafka before the run stops (a broker failover takes seconds). */
  readonly recordWaitSeconds: number;
  /** A route stops after each hop (the cluster on a release, its cluster version raised); resume takes the next. */
  readonly pauseBetweenHops: boolean;
}

/** One release of a route: its etcd server binary and the version it must report. */
export interface ViaRelease {
  readonly version: string;
  readonly etcd: string;
}

const RELEASE = /^\d+\.\d+\.\d+$/;

export interface ClusterSpec {
  /** The cluster's name: the key of its events on kv.upgrade-progress. */
  readonly name: string;
  readonly binaries: {
    /** The etcd 3.4 server binary: what members run now, and what a rollback puts back. */
    readonly current: string;
    /** Where the run ends. */
    readonly target: string;
    /** The releases a route passes through between current and target, in order (empty: one hop). */
    readonly via: readonly ViaRelease[];
    /** The target's version when the driver cannot run the binary here (command driver); undefined: as it reports. */
    readonly targetVersion: string | undefined;
    readonly etcdctl: string;
    readonly etcdutl: string;
  };
  readonly backupDir: string;
  readonly driver: DriverSpec;
  readonly members: readonly MemberSpec[];
  readonly auth: { readonly user: string; readonly passwordFile: string } | undefined;
  readonly tls: TlsSpec | undefined;
  readonly options: UpgradeOptions;
}

export const DEFAULT_OPTIONS: UpgradeOptions = Object.freeze({
  transferLeadership: true,
  v2PacingSeconds: 120,
  pacingSeconds: undefined,
  stopTimeoutSeconds: 10,
  gateTimeoutSeconds: 60,
  clusterVersionTimeoutSeconds: 30,
  requestTimeoutMs: 2000,
  pollIntervalMs: 100,
  recordWaitSeconds: 30,
  pauseBetweenHops: false,
});

/** `files`: every file named by a well-formed field, also when other fields are not, so one run reports all. */
export type ClusterSpecOutcome =
  | { readonly ok: true; readonly spec: ClusterSpec; readonly files: readonly NamedFile[] }
  | { readonly ok: false; readonly problems: readonly string[]; readonly files: readonly NamedFile[] };

/**
 * Validates a parsed cluster file. Relative paths are taken from `baseDir` (the file's folder).
 * Pure: nothing is read or probed here; `plan` checks that binaries and members answer.
 */
export function validateClusterSpec(raw: unknown, baseDir: string): ClusterSpecOutcome {
  const p = new Problems();
  const files: NamedFile[] = [];
  if (!isObj(raw))
    return {
      ok: false,
      problems: ['(root): must be a mapping with cluster, binaries, driver and members'],
      files,
    };
  p.unknownKeys('', raw, ['cluster', 'binaries', 'backupDir', 'driver', 'members', 'auth', 'tls', 'options']);
  const path: PathResolver = (value) =>
    value === undefined ? '' : isAbsolute(value) ? value : resolve(baseDir, value);

  const name = p.str(raw, 'cluster', 'cluster');
  if (name !== undefined && !NAME.test(name))
    p.add('cluster', `must be letters, digits, '.', '_' or '-', got ${JSON.stringify(name)}`);

  const rawBinaries = isObj(raw.binaries) ? raw.binaries : {};
  if (!isObj(raw.binaries)) p.add('binaries', 'is required: current, target, etcdctl, etcdutl');
  else
    p.unknownKeys('binaries', rawBinaries, [
      'current',
      'target',
      'via',
      'targetVersion',
      'etcdctl',
      'etcdutl',
    ]);
  const bin = (key: string) => (isObj(raw.binaries) ? path(p.str(rawBinaries, key, `binaries.${key}`)) : '');
  const targetVersion = p.str(rawBinaries, 'targetVersion', 'binaries.targetVersion', false);
  if (targetVersion !== undefined && !RELEASE.test(targetVersion))
    p.add('binaries.targetVersion', `must be a release like 3.6.16, got ${JSON.stringify(targetVersion)}`);
  const binaries = Object.freeze({
    current: bin('current'),
    target: bin('target'),
    via: validateVia(rawBinaries.via, p, path),
    targetVersion,
    etcdctl: bin('etcdctl'),
    etcdutl: bin('etcdutl'),
  });

  const backupDir = path(p.str(raw, 'backupDir', 'backupDir'));
  const driver = validateDriver(raw.driver, p, path);
  const members = validateMembers(raw.members, p, path, { oneHost: driver?.kind !== 'command' });

  let auth: ClusterSpec['auth'];
  if (raw.auth !== undefined) {
    if (!isObj(raw.auth)) p.add('auth', 'must be a mapping with user and passwordFile');
    else {
      p.unknownKeys('auth', raw.auth, ['user', 'passwordFile']);
      const user = p.str(raw.auth, 'user', 'auth.user');
      const passwordFile = p.str(raw.auth, 'passwordFile', 'auth.passwordFile');
      if (passwordFile !== undefined) files.push({ field: 'auth.passwordFile', path: path(passwordFile) });
      if (user !== undefined && passwordFile !== undefined) auth = { user, passwordFile: path(passwordFile) };
    }
  }

  // Without a tls block, https members are checked against the system's CAs, with no client certificate.
  const tls = validateTls(raw.tls, p, path, files);

  const rawOptions = raw.options === undefined ? {} : raw.options;
  if (!isObj(rawOptions)) p.add('options', 'must be a mapping');
  const o = isObj(rawOptions) ? rawOptions : {};
  p.unknownKeys('options', o, Object.keys(DEFAULT_OPTIONS));
  const d = DEFAULT_OPTIONS;
  const options: UpgradeOptions = {
    transferLeadership: p.bool(o, 'transferLeadership', 'options.transferLeadership', d.transferLeadership),
    v2PacingSeconds: p.num(o, 'v2PacingSeconds', 'options.v2PacingSeconds', d.v2PacingSeconds, 0, 3600),
    pacingSeconds:
      o.pacingSeconds === undefined
        ? undefined
        : p.num(o, 'pacingSeconds', 'options.pacingSeconds', 0, 0, 3600),
    stopTimeoutSeconds: p.num(
      o,
      'stopTimeoutSeconds',
      'options.stopTimeoutSeconds',
      d.stopTimeoutSeconds,
      0.1,
      600,
    ),
    gateTimeoutSeconds: p.num(
      o,
      'gateTimeoutSeconds',
      'options.gateTimeoutSeconds',
      d.gateTimeoutSeconds,
      1,
      3600,
    ),
    clusterVersionTimeoutSeconds: p.num(
      o,
      'clusterVersionTimeoutSeconds',
      'options.clusterVersionTimeoutSeconds',
      d.clusterVersionTimeoutSeconds,
      5,
      3600,
    ),
    requestTimeoutMs: p.num(
      o,
      'requestTimeoutMs',
      'options.requestTimeoutMs',
      d.requestTimeoutMs,
      50,
      60_000,
    ),
    pollIntervalMs: p.num(o, 'pollIntervalMs', 'options.pollIntervalMs', d.pollIntervalMs, 10, 10_000),
    recordWaitSeconds: p.num(
      o,
      'recordWaitSeconds',
      'options.recordWaitSeconds',
      d.recordWaitSeconds,
      0,
      3600,
    ),
    pauseBetweenHops: p.bool(o, 'pauseBetweenHops', 'options.pauseBetweenHops', d.pauseBetweenHops),
  };

  if (p.list.length > 0) return { ok: false, problems: p.list, files };
  return {
    ok: true,
    files,
    spec: Object.freeze({
      name: name!,
      binaries,
      backupDir,
      driver: driver!,
      members: Object.freeze(members),
      auth,
      tls,
      options: Object.freeze(options),
    }),
  };
}

/** `binaries.via`: a list of `{ version, etcd }`, versions as text (YAML reads 3.6 as a number). */
function validateVia(raw: unknown, p: Problems, path: PathResolver): readonly ViaRelease[] {
  if (raw === undefined) return Object.freeze([]);
  if (!Array.isArray(raw)) {
    p.add(
      'binaries.via',
      'must be a list of { version, etcd }: the releases between current and target, in order',
    );
    return Object.freeze([]);
  }
  const out: ViaRelease[] = [];
  for (const [i, entry] of (raw as unknown[]).entries()) {
    const at = `binaries.via[${i}]`;
    if (!isObj(entry)) {
      p.add(at, 'must be a mapping { version, etcd }');
      continue;
    }
    p.unknownKeys(at, entry, ['version', 'etcd']);
    const version = typeof entry.version === 'number' ? undefined : p.str(entry, 'version', `${at}.version`);
    if (typeof entry.version === 'number')
      p.add(`${at}.version`, `must be text like "3.5.35" (quote it), got ${entry.version}`);
    else if (version !== undefined && !RELEASE.test(version))
      p.add(`${at}.version`, `must be a release like 3.5.35, got ${JSON.stringify(version)}`);
    const etcd = p.str(entry, 'etcd', `${at}.etcd`);
    if (version !== undefined && RELEASE.test(version) && etcd !== undefined)
      out.push(Object.freeze({ version, etcd: path(etcd) }));
  }
  return Object.freeze(out);
}

/** `--initial-cluster` as etcd reads it, or built from the members when the flags do not say. */
export function initialCluster(spec: ClusterSpec): string {
  const fromFlags = flagValue(spec.members[0]?.parsedFlags ?? [], 'initial-cluster');
  return fromFlags ?? spec.members.map((m) => `${m.name}=${m.peerUrl}`).join(',');
}

export function memberNamed(spec: ClusterSpec, name: string): MemberSpec {
  const member = spec.members.find((m) => m.name === name);
  if (!member)
    throw new AppError('FAILED_PRECONDITION', `no member named ${name} in the cluster file of ${spec.name}`);
  return member;
}

/**
 * The etcd binary of one release of a run's route: the route's last release is binaries.target, a
 * release named in binaries.via is its binary, and any other (the one members ran first) binaries.current.
 */
export function releaseBinary(
  spec: ClusterSpec,
  route: readonly string[],
  version: string | undefined,
): string {
  if (version !== undefined && version === route.at(-1)) return spec.binaries.target;
  return spec.binaries.via.find((r) => r.version === version)?.etcd ?? spec.binaries.current;
}
