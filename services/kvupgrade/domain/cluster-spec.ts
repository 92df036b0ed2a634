import { isAbsolute, resolve } from 'node:path';
import { AppError } from '../../../shared/errors.ts';
import { type Flag, flagValue, parseFlags, splitList } from './flags.ts';
import { isObj, NAME, Problems } from './problems.ts';
import { parsePlaceholders, TEMPLATE_PLACEHOLDERS, type TemplateName } from './templates.ts';

export interface MemberSpec {
  readonly name: string;
  readonly clientUrl: string;
  readonly peerUrl: string;
  readonly dataDir: string;
  /** Exactly what etcd is started with, before and after the upgrade. */
  readonly flags: readonly string[];
  readonly parsedFlags: readonly Flag[];
}

export type DriverSpec =
  | { readonly kind: 'local'; readonly runDir: string }
  | {
      readonly kind: 'command';
      readonly start: string;
      readonly stop: string;
      readonly status: string;
      readonly kill: string | undefined;
      readonly logs: string | undefined;
      readonly restore: string | undefined;
      /** Exits 0 when {file} exists on the member's host (the v3 database check); undefined: not checked. */
      readonly check: string | undefined;
    };

/** How every call reaches the members over TLS: etcd's --trusted-ca-file side, and a client certificate. */
export interface TlsSpec {
  /** PEM CA bundle the members' certificates are checked against. */
  readonly ca: string;
  /** PEM client certificate and key (for --client-cert-auth); both or neither. */
  readonly cert: string | undefined;
  readonly key: string | undefined;
  /** The name the server certificates are checked for, when not the clientUrl's host. */
  readonly serverName: string | undefined;
}

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
}

export interface ClusterSpec {
  /** The cluster's name: the key of its events on kv.upgrade-progress. */
  readonly name: string;
  readonly binaries: {
    /** The etcd 3.4 server binary: what members run now, and what a rollback puts back. */
    readonly current: string;
    readonly target: string;
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
});

export type ClusterSpecOutcome =
  | { readonly ok: true; readonly spec: ClusterSpec }
  | { readonly ok: false; readonly problems: readonly string[] };

/**
 * Validates a parsed cluster file. Relative paths are taken from `baseDir` (the file's folder).
 * Pure: nothing is read or probed here; `plan` checks that binaries and members answer.
 */
export function validateClusterSpec(raw: unknown, baseDir: string): ClusterSpecOutcome {
  const p = new Problems();
  if (!isObj(raw))
    return { ok: false, problems: ['(root): must be a mapping with cluster, binaries, driver and members'] };
  p.unknownKeys('', raw, ['cluster', 'binaries', 'backupDir', 'driver', 'members', 'auth', 'tls', 'options']);
  const path = (value: string | undefined) =>
    value === undefined ? '' : isAbsolute(value) ? value : resolve(baseDir, value);

  const name = p.str(raw, 'cluster', 'cluster');
  if (name !== undefined && !NAME.test(name))
    p.add('cluster', `must be letters, digits, '.', '_' or '-', got ${JSON.stringify(name)}`);

  const rawBinaries = isObj(raw.binaries) ? raw.binaries : {};
  if (!isObj(raw.binaries)) p.add('binaries', 'is required: current, target, etcdctl, etcdutl');
  else p.unknownKeys('binaries', rawBinaries, ['current', 'target', 'etcdctl', 'etcdutl']);
  const bin = (key: string) => (isObj(raw.binaries) ? path(p.str(rawBinaries, key, `binaries.${key}`)) : '');
  const binaries = Object.freeze({
    current: bin('current'),
    target: bin('target'),
    etcdctl: bin('etcdctl'),
    etcdutl: bin('etcdutl'),
  });

  const backupDir = path(p.str(raw, 'backupDir', 'backupDir'));
  const driver = validateDriver(raw.driver, p, path);
  const members = validateMembers(raw.members, p, path);

  let auth: ClusterSpec['auth'];
  if (raw.auth !== undefined) {
    if (!isObj(raw.auth)) p.add('auth', 'must be a mapping with user and passwordFile');
    else {
      p.unknownKeys('auth', raw.auth, ['user', 'passwordFile']);
      const user = p.str(raw.auth, 'user', 'auth.user');
      const passwordFile = p.str(raw.auth, 'passwordFile', 'auth.passwordFile');
      if (user !== undefined && passwordFile !== undefined) auth = { user, passwordFile: path(passwordFile) };
    }
  }

  // Without a tls block, https members are checked against the system's CAs, with no client certificate.
  const tls = validateTls(raw.tls, p, path);

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
  };

  if (p.list.length > 0) return { ok: false, problems: p.list };
  return {
    ok: true,
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

function validateTls(
  raw: unknown,
  p: Problems,
  path: (v: string | undefined) => string,
): TlsSpec | undefined {
  if (raw === undefined) return undefined;
  if (!isObj(raw)) {
    p.add('tls', 'must be a mapping with ca, cert, key and optionally serverName');
    return undefined;
  }
  p.unknownKeys('tls', raw, ['ca', 'cert', 'key', 'serverName']);
  const ca = p.str(raw, 'ca', 'tls.ca');
  const cert = p.str(raw, 'cert', 'tls.cert', false);
  const key = p.str(raw, 'key', 'tls.key', false);
  const serverName = p.str(raw, 'serverName', 'tls.serverName', false);
  if ((cert === undefined) !== (key === undefined))
    p.add(
      cert === undefined ? 'tls.cert' : 'tls.key',
      'tls.cert and tls.key go together: set both or neither',
    );
  if (ca === undefined) return undefined;
  return Object.freeze({
    ca: path(ca),
    cert: cert === undefined ? undefined : path(cert),
    key: key === undefined ? undefined : path(key),
    serverName,
  });
}

function validateDriver(
  raw: unknown,
  p: Problems,
  path: (v: string | undefined) => string,
): DriverSpec | undefined {
  if (!isObj(raw)) {
    p.add('driver', 'is required: {kind: local, runDir} or {kind: command, start, stop, status}');
    return undefined;
  }
  if (raw.kind === 'local') {
    p.unknownKeys('driver', raw, ['kind', 'runDir']);
    return { kind: 'local', runDir: path(p.str(raw, 'runDir', 'driver.runDir')) };
  }
  if (raw.kind === 'command') {
    p.unknownKeys('driver', raw, ['kind', 'start', 'stop', 'status', 'kill', 'logs', 'restore', 'check']);
    const template = (key: TemplateName, required: boolean) => {
      const text = p.str(raw, key, `driver.${key}`, required);
      if (text === undefined) return undefined;
      const parsed = parsePlaceholders(text);
      if (!parsed.ok) p.add(`driver.${key}`, parsed.problem);
      else {
        const known: readonly string[] = TEMPLATE_PLACEHOLDERS[key];
        for (const unknown of parsed.names.filter((n) => !known.includes(n))) {
          p.add(
            `driver.${key}`,
            `unknown placeholder {${unknown}} (known here: ${known.map((n) => `{${n}}`).join(' ')})`,
          );
        }
      }
      return text;
    };
    return {
      kind: 'command',
      start: template('start', true) ?? '',
      stop: template('stop', true) ?? '',
      status: template('status', true) ?? '',
      kill: template('kill', false),
      logs: template('logs', false),
      restore: template('restore', false),
      check: template('check', false),
    };
  }
  p.add('driver.kind', `must be local or command, got ${JSON.stringify(raw.kind)}`);
  return undefined;
}

function validateMembers(raw: unknown, p: Problems, path: (v: string | undefined) => string): MemberSpec[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    p.add('members', 'is required: a list of members (name, clientUrl, peerUrl, dataDir, flags)');
    return [];
  }
  const members: MemberSpec[] = [];
  for (const [i, entry] of (raw as unknown[]).entries()) {
    const at = `members[${i}]`;
    if (!isObj(entry)) {
      p.add(at, 'must be a mapping with name, clientUrl, peerUrl, dataDir, flags');
      continue;
    }
    p.unknownKeys(at, entry, ['name', 'clientUrl', 'peerUrl', 'dataDir', 'flags']);
    const name = p.str(entry, 'name', `${at}.name`);
    if (name !== undefined && !NAME.test(name))
      p.add(`${at}.name`, `must be letters, digits, '.', '_' or '-', got ${JSON.stringify(name)}`);
    const clientUrl = p.url(entry, 'clientUrl', `${at}.clientUrl`);
    const peerUrl = p.url(entry, 'peerUrl', `${at}.peerUrl`);
    const dataDirText = p.str(entry, 'dataDir', `${at}.dataDir`);
    const dataDir = path(dataDirText);
    const flags = entry.flags;
    if (!Array.isArray(flags) || flags.some((f) => typeof f !== 'string' && typeof f !== 'number')) {
      p.add(
        `${at}.flags`,
        'is required: the list of flags the member runs with, e.g. [--name=m1, --data-dir=/var/lib/etcd]',
      );
      continue;
    }
    const args = flags.map(String);
    const parsed = parseFlags(args);
    if (!parsed.ok) {
      p.add(`${at}.flags[${parsed.index}]`, parsed.problem);
      continue;
    }
    const has = (flag: string) => flagValue(parsed.flags, flag);
    if (name !== undefined && has('name') !== name) {
      p.add(
        `${at}.flags`,
        `must set --name=${name} (the member's name), found ${JSON.stringify(has('name') ?? null)}`,
      );
    }
    if (dataDirText !== undefined) {
      const flagDir = has('data-dir');
      if (flagDir === undefined)
        p.add(`${at}.flags`, `must set --data-dir=${dataDirText} (the member's dataDir)`);
      else if (path(flagDir) !== dataDir)
        p.add(`${at}.flags`, `--data-dir=${flagDir} differs from ${at}.dataDir ${dataDirText}`);
    }
    const advertised = splitList(has('advertise-client-urls')).map(origin);
    if (clientUrl !== undefined && !advertised.includes(clientUrl)) {
      p.add(`${at}.flags`, `--advertise-client-urls must include the clientUrl ${clientUrl}`);
    }
    const peers = splitList(has('initial-advertise-peer-urls')).map(origin);
    if (peerUrl !== undefined && !peers.includes(peerUrl)) {
      p.add(`${at}.flags`, `--initial-advertise-peer-urls must include the peerUrl ${peerUrl}`);
    }
    if (name !== undefined && clientUrl !== undefined && peerUrl !== undefined) {
      members.push(
        Object.freeze({
          name,
          clientUrl,
          peerUrl,
          dataDir,
          flags: Object.freeze(args),
          parsedFlags: Object.freeze(parsed.flags),
        }),
      );
    }
  }
  const seen = (key: 'name' | 'clientUrl' | 'peerUrl' | 'dataDir') => {
    const counts = new Map<string, number>();
    for (const m of members) counts.set(m[key], (counts.get(m[key]) ?? 0) + 1);
    for (const [value, n] of counts) if (n > 1) p.add('members', `${key} ${value} is used by ${n} members`);
  };
  for (const key of ['name', 'clientUrl', 'peerUrl', 'dataDir'] as const) seen(key);
  return members;
}

function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
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
