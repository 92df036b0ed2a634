// The container image's entry point: `podman run … localhost/backbone <program> [arguments]`. It
// starts the program in its place (execve: the same pid, so the program is PID 1 and receives the
// container's signals itself), with the node options that program runs with outside a container.
import { join } from 'node:path';
import { EXPERIMENT_NODE_OPTIONS } from '../experiment/node-options.ts';

interface Program {
  /** The program's main module, under dist/services. */
  readonly main: string;
  readonly nodeOptions: readonly string[];
  readonly summary: string;
}

// A program that installs no signal handler would ignore SIGTERM and SIGINT as PID 1 (the kernel
// gives PID 1 no default action): this module restores what they do outside a container.
const DEFAULT_SIGNALS = ['--import', join(import.meta.dirname, 'default-signals.js')];

export const PROGRAMS: Readonly<Record<string, Program>> = {
  experiment: {
    main: 'experiment/main.js',
    nodeOptions: EXPERIMENT_NODE_OPTIONS,
    summary: 'Katib DBManager, Suggestion and EarlyStopping (EXPERIMENT_SERVICES chooses the role)',
  },
  // Sets its own node options (RATELIMIT_WORKER_NODE_OPTIONS) and starts itself again with them.
  ratelimit: { main: 'ratelimit/main.js', nodeOptions: [], summary: 'the Envoy rate limit service' },
  kvupgrade: {
    main: 'kvupgrade/main.js',
    nodeOptions: DEFAULT_SIGNALS,
    summary: 'the etcd 3.4 -> 3.5 rolling upgrade CLI (plan, run, status, resume, rollback)',
  },
  replay: { main: 'replay/main.js', nodeOptions: [], summary: 'a topic read back as JSON lines or CSV' },
};

export const USAGE = [
  'usage: <image> PROGRAM [ARGUMENT...]',
  '',
  'programs:',
  ...Object.entries(PROGRAMS).map(([name, program]) => `  ${name.padEnd(11)} ${program.summary}`),
  '',
  'Settings come from the environment, as documented in the README.',
].join('\n');

/** The command line that runs `argv` (the program's name first), or the usage problem. */
export function commandFor(
  argv: readonly string[],
  servicesDir: string,
): { kind: 'run'; args: string[] } | { kind: 'help' } | { kind: 'error'; message: string } {
  const [name, ...rest] = argv;
  if (name === undefined) return { kind: 'error', message: 'no program given' };
  if (name === '--help' || name === '-h' || name === 'help') return { kind: 'help' };
  const program = Object.hasOwn(PROGRAMS, name) ? PROGRAMS[name] : undefined;
  if (program === undefined) return { kind: 'error', message: `unknown program "${name}"` };
  return { kind: 'run', args: [...program.nodeOptions, join(servicesDir, program.main), ...rest] };
}

if (import.meta.main) {
  const command = commandFor(process.argv.slice(2), join(import.meta.dirname, '..'));
  if (command.kind === 'help') {
    process.stdout.write(`${USAGE}\n`);
  } else if (command.kind === 'error') {
    process.stderr.write(`backbone: ${command.message}\n${USAGE}\n`);
    process.exitCode = 2;
  } else {
    process.execve!(process.execPath, [process.execPath, ...command.args], process.env);
  }
}
