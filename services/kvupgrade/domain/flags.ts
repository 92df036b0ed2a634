/** A member's command-line flags, as written in the cluster file and passed to etcd unchanged. */
export interface Flag {
  /** Without leading dashes: `data-dir`. Go's flag package accepts `-x` and `--x` alike. */
  readonly name: string;
  /** `true` for a bare boolean flag. */
  readonly value: string;
}

/**
 * Reads `--name=m1`, `--name m1` (two entries) and bare boolean flags. Returns the flags, or the
 * entry that is not a flag.
 */
export function parseFlags(
  args: readonly string[],
): { ok: true; flags: Flag[] } | { ok: false; index: number; problem: string } {
  const flags: Flag[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const match = /^--?([a-zA-Z0-9][a-zA-Z0-9._-]*)(?:=(.*))?$/s.exec(arg);
    if (!match)
      return { ok: false, index: i, problem: `${JSON.stringify(arg)} is not a flag (--name=value)` };
    const name = match[1]!;
    if (match[2] !== undefined) {
      flags.push({ name, value: match[2] });
    } else if (i + 1 < args.length && !args[i + 1]!.startsWith('-')) {
      flags.push({ name, value: args[i + 1]! });
      i++;
    } else {
      flags.push({ name, value: 'true' });
    }
  }
  return { ok: true, flags };
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
