/** A member's command-line flags, as written in the cluster file and passed to etcd unchanged. */
export interface Flag {
  /** Without leading dashes: `data-dir`. Go's flag package accepts `-x` and `--x` alike. */
  readonly name: string;
  /** `true` for a bare boolean flag. */
  readonly value: string;
}

/**
 * etcd's boolean flags (3.4.23 and 3.5.16 `--help`, default 'true'/'false'): Go's flag package never
 * takes the next argument as their value, so `--client-cert-auth true` is a flag and a stray word.
 */
export const BOOLEAN_FLAGS: ReadonlySet<string> = new Set([
  'initial-election-tick-advance',
  'socket-reuse-port',
  'socket-reuse-address',
  'strict-reconfig-check',
  'pre-vote',
  'enable-v2',
  'enable-grpc-gateway',
  'client-cert-auth',
  'auto-tls',
  'peer-client-cert-auth',
  'peer-auto-tls',
  'enable-pprof',
  'enable-log-rotation',
  'experimental-enable-distributed-tracing',
  'experimental-initial-corrupt-check',
  'experimental-compact-hash-check-enabled',
  'experimental-enable-lease-checkpoint',
  'experimental-enable-lease-checkpoint-persist',
  'experimental-peer-skip-client-san-verification',
  'experimental-txn-mode-write-with-shared-buffer',
  'force-new-cluster',
  'unsafe-no-fsync',
  'debug',
  'version',
  'help',
]);

/** Go's strconv.ParseBool spellings, as `--flag=value` of a boolean flag accepts them. */
const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/**
 * Reads flags as etcd (Go's flag package) does: `-x` and `--x` alike, `--x=v`, `--x v` (two entries)
 * for every flag but the boolean ones, which take a value only as `--x=v`; a bare boolean flag is
 * `true`; `--` ends the flags. Returns the flags, or the entry etcd would reject.
 */
export function parseFlags(
  args: readonly string[],
): { ok: true; flags: Flag[] } | { ok: false; index: number; problem: string } {
  const flags: Flag[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      if (i + 1 < args.length)
        return {
          ok: false,
          index: i + 1,
          problem: `${JSON.stringify(args[i + 1])} is not a flag (etcd takes no arguments)`,
        };
      break;
    }
    const match = /^--?([a-zA-Z0-9][a-zA-Z0-9._-]*)(?:=(.*))?$/s.exec(arg);
    if (!match)
      return { ok: false, index: i, problem: `${JSON.stringify(arg)} is not a flag (--name=value)` };
    const name = match[1]!;
    const value = match[2];
    if (BOOLEAN_FLAGS.has(name)) {
      if (value === undefined) flags.push({ name, value: 'true' });
      else if (TRUE.has(value)) flags.push({ name, value: 'true' });
      else if (FALSE.has(value)) flags.push({ name, value: 'false' });
      else
        return {
          ok: false,
          index: i,
          problem: `--${name} is a boolean flag: ${JSON.stringify(value)} is not true or false`,
        };
    } else if (value !== undefined) {
      flags.push({ name, value });
    } else if (i + 1 < args.length) {
      flags.push({ name, value: args[i + 1]! });
      i++;
    } else {
      return { ok: false, index: i, problem: `--${name} needs a value (--${name}=value)` };
    }
  }
  return { ok: true, flags };
}

/** Each flag's effective value (the last one given), by name. */
export function effectiveFlags(flags: readonly Flag[]): Map<string, string> {
  return new Map(flags.map((f) => [f.name, f.value]));
}

/**
 * How two configurations differ as etcd sees them: `--name=m1` and `--name m1` are the same flag.
 * Empty when they are the same; otherwise one line per differing flag.
 */
export function flagDifferences(expected: readonly Flag[], actual: readonly Flag[]): string[] {
  const want = effectiveFlags(expected);
  const have = effectiveFlags(actual);
  const out: string[] = [];
  for (const [name, value] of want) {
    const other = have.get(name);
    if (other === undefined) out.push(`--${name}=${value} is missing`);
    else if (other !== value) out.push(`--${name} is ${JSON.stringify(other)}, not ${JSON.stringify(value)}`);
  }
  for (const [name, value] of have)
    if (!want.has(name)) out.push(`--${name}=${value} is not in the cluster file`);
  return out;
}

/** The last value given for a flag (Go's flag package keeps the last one). */
export function flagValue(flags: readonly Flag[], name: string): string | undefined {
  return flags.findLast((f) => f.name === name)?.value;
}

export const splitList = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');

export interface RemovedFlag {
  readonly flag: string;
  /** Only this value is removed (`--logger=capnslog`); undefined: the flag itself. */
  readonly value?: string;
  readonly replacement: string;
  /** What the new release does when it sees it (observed for 3.5.16; the guides' word for later minors). */
  readonly effect: string;
}

const NOT_DEFINED = (flag: string) => `exits 2: "flag provided but not defined: -${flag}"`;

/** Flags that etcd 3.5 no longer accepts: the member would not start with the same configuration. */
export const REMOVED_IN_3_5: readonly RemovedFlag[] = Object.freeze([
  {
    flag: 'logger',
    value: 'capnslog',
    replacement: '--logger=zap --log-outputs=stderr',
    effect: 'exits 1: "--logger=capnslog is removed in v3.5"',
  },
  {
    flag: 'log-output',
    replacement: '--log-outputs (several outputs, comma separated, e.g. stderr)',
    effect: NOT_DEFINED('log-output'),
  },
  { flag: 'debug', replacement: '--log-level=debug', effect: NOT_DEFINED('debug') },
  {
    flag: 'log-package-levels',
    replacement: 'none: use --logger=zap with --log-level',
    effect: NOT_DEFINED('log-package-levels'),
  },
]);

/** The 3.6 guide's "Flags removed": the v2 API and the v2 proxy are gone. */
export const REMOVED_IN_3_6: readonly RemovedFlag[] = Object.freeze([
  {
    flag: 'enable-v2',
    replacement:
      'none: drop it once `etcdutl check v2store` finds no custom v2 content (the 3.6 guide, "V2 Store")',
    effect: NOT_DEFINED('enable-v2'),
  },
  {
    flag: 'experimental-enable-v2v3',
    replacement: 'none (v2 emulation is gone)',
    effect: NOT_DEFINED('experimental-enable-v2v3'),
  },
  ...[
    'proxy',
    'proxy-failure-wait',
    'proxy-refresh-interval',
    'proxy-dial-timeout',
    'proxy-write-timeout',
    'proxy-read-timeout',
  ].map((flag) => ({
    flag,
    replacement: 'none: run `etcd grpc-proxy` instead of the v2 proxy',
    effect: NOT_DEFINED(flag),
  })),
]);

/** The 3.6 guide's deprecated experimental flags, with the name 3.6 gives them (3.7 removes the old names). */
export const RENAMED_IN_3_6: ReadonlyMap<string, string> = new Map([
  ['experimental-bootstrap-defrag-threshold-megabytes', '--bootstrap-defrag-threshold-megabytes'],
  ['experimental-compaction-batch-limit', '--compaction-batch-limit'],
  ['experimental-compact-hash-check-time', '--compact-hash-check-time'],
  ['experimental-compaction-sleep-interval', '--compaction-sleep-interval'],
  ['experimental-corrupt-check-time', '--corrupt-check-time'],
  ['experimental-enable-distributed-tracing', '--enable-distributed-tracing'],
  ['experimental-distributed-tracing-address', '--distributed-tracing-address'],
  ['experimental-distributed-tracing-instance-id', '--distributed-tracing-instance-id'],
  ['experimental-distributed-tracing-sampling-rate', '--distributed-tracing-sampling-rate'],
  ['experimental-distributed-tracing-service-name', '--distributed-tracing-service-name'],
  ['experimental-downgrade-check-time', '--downgrade-check-time'],
  ['experimental-max-learners', '--max-learners'],
  ['experimental-memory-mlock', '--memory-mlock'],
  ['experimental-peer-skip-client-san-verification', '--peer-skip-client-san-verification'],
  ['experimental-snapshot-catchup-entries', '--snapshot-catchup-entries'],
  ['experimental-warning-apply-duration', '--warning-apply-duration'],
  ['experimental-warning-unary-request-duration', '--warning-unary-request-duration'],
  ['experimental-watch-progress-notify-interval', '--watch-progress-notify-interval'],
  ['experimental-compact-hash-check-enabled', '--feature-gates=CompactHashCheck=true'],
  ['experimental-initial-corrupt-check', '--feature-gates=InitialCorruptCheck=true'],
  ['experimental-enable-lease-checkpoint', '--feature-gates=LeaseCheckpoint=true'],
  ['experimental-enable-lease-checkpoint-persist', '--feature-gates=LeaseCheckpointPersist=true'],
  ['experimental-stop-grpc-service-on-defrag', '--feature-gates=StopGRPCServiceOnDefrag=true'],
  ['experimental-txn-mode-write-with-shared-buffer', '--feature-gates=TxnModeWriteWithSharedBuffer=false'],
]);

/** The 3.7 guide: every deprecated --experimental-* flag is removed. */
const removedIn37 = (name: string): RemovedFlag | undefined =>
  name.startsWith('experimental-')
    ? {
        flag: name,
        replacement: RENAMED_IN_3_6.get(name) ?? 'its 3.6 equivalent (the 3.6 guide, "Flags deprecated")',
        effect: 'refuses to start (the 3.7 guide, "Flags removed")',
      }
    : undefined;

/** The flags a member's configuration uses that the minor `minor` removed, each with its replacement. */
export function removedFlagsIn(flags: readonly Flag[], minor = '3.5'): RemovedFlag[] {
  if (minor === '3.7')
    return [...new Set(flags.map((f) => f.name))].flatMap((name) => removedIn37(name) ?? []);
  const table = minor === '3.6' ? REMOVED_IN_3_6 : minor === '3.5' ? REMOVED_IN_3_5 : [];
  return table.filter((removed) =>
    flags.some((f) => f.name === removed.flag && (removed.value === undefined || f.value === removed.value)),
  );
}

/** Deprecated flags a member uses that 3.6 still accepts under an old name, with their new names. */
export const deprecatedIn36 = (flags: readonly Flag[]): { flag: string; replacement: string }[] =>
  [...new Set(flags.map((f) => f.name))].flatMap((name) => {
    const replacement = RENAMED_IN_3_6.get(name);
    return replacement ? [{ flag: name, replacement }] : [];
  });

/** Shell-style rendering of an argument list, for messages and command templates. */
export function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}
