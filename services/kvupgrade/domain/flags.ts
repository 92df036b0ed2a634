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
  /** What 3.5.16 does when it sees it (observed). */
  readonly effect: string;
}

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
    effect: 'exits 2: "flag provided but not defined: -log-output"',
  },
  {
    flag: 'debug',
    replacement: '--log-level=debug',
    effect: 'exits 2: "flag provided but not defined: -debug"',
  },
  {
    flag: 'log-package-levels',
    replacement: 'none: use --logger=zap with --log-level',
    effect: 'exits 2: "flag provided but not defined: -log-package-levels"',
  },
]);

/** The removed flags a member's configuration uses, each with its replacement. */
export function removedFlagsIn(flags: readonly Flag[]): RemovedFlag[] {
  return REMOVED_IN_3_5.filter((removed) =>
    flags.some((f) => f.name === removed.flag && (removed.value === undefined || f.value === removed.value)),
  );
}

/** Shell-style rendering of an argument list, for messages and command templates. */
export function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}
