import { parseArgs } from 'node:util';

export const COMMANDS = ['plan', 'run', 'status', 'resume', 'rollback'] as const;
export type Command = (typeof COMMANDS)[number];

export interface CliOptions {
  readonly command: Command;
  readonly cluster: string;
  /** Accept an auth-enabled cluster (plan and run). */
  readonly allowAuth: boolean;
  /** Confirms a rollback that restores the snapshot (writes after it are lost). */
  readonly yes: boolean;
  /** text for people; json: one JSON document per line (each check, step, and the outcome). */
  readonly output: 'text' | 'json';
}

export const USAGE = `usage: kvupgrade <command> --cluster <file.yaml> [--allow-auth] [--yes] [--output text|json]

Rolling upgrade of an etcd cluster (a patch, 3.4 -> 3.5, 3.5 -> 3.6, 3.6 -> 3.7, or a route through
several minors: binaries.via), member by member, with every step recorded as an UpgradeProgress
event on the kv.upgrade-progress topic (key: the cluster's name).

commands:
  plan       every pre-flight check with its verdict, the order, the snapshot, the point of no return; changes nothing
  run        plan's checks, then snapshot from the leader, then each member (followers first, leader last),
             hop after hop; rolls back by itself on a failure while any member still runs the older release
  status     where the cluster stands, from its events
  resume     finishes an interrupted run (even a killed one) from its events
  rollback   before the cluster version is raised (or after a patch): the older binary on every upgraded member;
             after 3.5 -> 3.6 or 3.6 -> 3.7: etcd's online downgrade, every write kept;
             after 3.4 -> 3.5: restores the snapshot into new data folders (says what is lost; needs --yes)

options:
  --cluster <file>   the cluster file (members, binaries, driver, options)
  --allow-auth       accept a cluster with auth enabled (see the hazard plan explains)
  --yes              confirm a rollback by snapshot restore
  --output json      one JSON document per line on stdout: each check, each step, then the outcome
  -h, --help         print this text

exit codes: 0 done, 1 failed (or rolled back), 2 bad arguments or cluster file, 3 refused by a check,
4 confirmation needed, 5 kv.upgrade-progress (Kafka) could not record or read the run: resume once it answers`;

export type ParsedCli =
  | { readonly kind: 'run'; readonly options: CliOptions }
  | { readonly kind: 'help' }
  | { readonly kind: 'error'; readonly message: string };

/** Pure: the arguments after the script, as options or an error naming the bad argument. */
export function parseCli(args: readonly string[]): ParsedCli {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    return { kind: 'error', message: (error as Error).message };
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };
  if (positionals.length === 0)
    return { kind: 'error', message: `a command is required: one of ${COMMANDS.join(', ')}` };
  const [command, ...extra] = positionals;
  if (!(COMMANDS as readonly string[]).includes(command!)) {
    return {
      kind: 'error',
      message: `unknown command ${JSON.stringify(command)}: one of ${COMMANDS.join(', ')}`,
    };
  }
  if (extra.length > 0) return { kind: 'error', message: `unexpected argument ${JSON.stringify(extra[0])}` };
  if (!values.cluster) return { kind: 'error', message: '--cluster <file.yaml> is required' };
  const output = values.output ?? 'text';
  if (output !== 'text' && output !== 'json')
    return { kind: 'error', message: `--output must be text or json, got ${JSON.stringify(output)}` };
  return {
    kind: 'run',
    options: {
      command: command as Command,
      cluster: values.cluster,
      allowAuth: values['allow-auth'] === true,
      yes: values.yes === true,
      output,
    },
  };
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      cluster: { type: 'string' },
      'allow-auth': { type: 'boolean' },
      yes: { type: 'boolean' },
      output: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
