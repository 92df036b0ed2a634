// The experiment CLI's arguments (`npm run -s experiment -- <command> …`), read without side
// effects: options, the help text, or a refusal naming the argument at fault.
import { parseArgs } from 'node:util';

export const COMMANDS = ['run', 'runner'] as const;
export type Command = (typeof COMMANDS)[number];

/** The service's HTTP gateway when --url is not given (EXPERIMENT_HTTP_PORT's default). */
export const DEFAULT_URL = 'http://127.0.0.1:8686';
/** Local runners `run` starts when --runners is not given. */
export const DEFAULT_RUNNERS = 1;
/** More local runners than this is a typo, not a plan: each is a process with its own Kafka client. */
export const MAX_LOCAL_RUNNERS = 64;

export interface RunOptions {
  readonly command: 'run';
  readonly file: string;
  readonly url: string;
  /** Local runner processes to start; 0 relies on runners started elsewhere. */
  readonly runners: number;
  readonly output: 'text' | 'json';
}

export interface RunnerOptions {
  readonly command: 'runner';
}

export type CliOptions = RunOptions | RunnerOptions;

export type ParsedCli =
  | { readonly kind: 'options'; readonly options: CliOptions }
  | { readonly kind: 'help' }
  | { readonly kind: 'error'; readonly message: string };

export const USAGE = `usage: experiment run FILE.yaml [--url URL] [--runners N] [--output text|json]
       experiment runner

commands:
  run      submits a Katib kubeflow.org/v1beta1 Experiment (POST /api/experiments), starts N local
           runners, prints progress and the best trial; exits 0 when the experiment succeeds
  runner   runs trials handed out on experiment.trial-assignments (one consumer group shared by every
           runner, on any machine) until SIGTERM, then gives its runs back

options (run):
  --url URL        the service's HTTP gateway (default ${DEFAULT_URL})
  --runners N      local runner processes to start, 0 to ${MAX_LOCAL_RUNNERS} (default ${DEFAULT_RUNNERS})
  --output json    the last line is one JSON object: status, best trial, trial counts
  -h, --help       print this text

exit codes: 0 succeeded, 1 failed, 2 bad arguments or a refused file, 3 the service could not be reached`;

const parse = (args: readonly string[]) =>
  parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      url: { type: 'string' },
      runners: { type: 'string' },
      output: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });

/** A URL the CLI can send to: http or https, with a host. */
function urlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `--url must be an http(s) URL such as ${DEFAULT_URL}, got ${JSON.stringify(text)}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `--url must be http or https, got ${JSON.stringify(url.protocol.slice(0, -1))}`;
  return undefined;
}

export function parseCli(args: readonly string[]): ParsedCli {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    return { kind: 'error', message: (error as Error).message };
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };
  const [command, ...rest] = positionals;
  if (command === undefined)
    return { kind: 'error', message: `a command is required: one of ${COMMANDS.join(', ')}` };
  if (!(COMMANDS as readonly string[]).includes(command))
    return {
      kind: 'error',
      message: `unknown command ${JSON.stringify(command)}: one of ${COMMANDS.join(', ')}`,
    };
  if (command === 'runner') {
    const given = (['url', 'runners', 'output'] as const).find((flag) => values[flag] !== undefined);
    if (given !== undefined)
      return { kind: 'error', message: `--${given} is an option of run, not of runner` };
    if (rest.length > 0) return { kind: 'error', message: `unexpected argument ${JSON.stringify(rest[0])}` };
    return { kind: 'options', options: { command: 'runner' } };
  }
  const [file, ...extra] = rest;
  if (file === undefined) return { kind: 'error', message: 'run needs the Experiment file: run FILE.yaml' };
  if (extra.length > 0) return { kind: 'error', message: `unexpected argument ${JSON.stringify(extra[0])}` };
  const url = values.url ?? DEFAULT_URL;
  const bad = urlProblem(url);
  if (bad !== undefined) return { kind: 'error', message: bad };
  const runnersText = values.runners ?? String(DEFAULT_RUNNERS);
  const runners = /^\d+$/.test(runnersText) ? Number(runnersText) : Number.NaN;
  if (!(runners >= 0 && runners <= MAX_LOCAL_RUNNERS))
    return {
      kind: 'error',
      message: `--runners must be a whole number from 0 to ${MAX_LOCAL_RUNNERS}, got ${JSON.stringify(runnersText)}`,
    };
  const output = values.output ?? 'text';
  if (output !== 'text' && output !== 'json')
    return { kind: 'error', message: `--output must be text or json, got ${JSON.stringify(output)}` };
  return {
    kind: 'options',
    options: { command: 'run', file, url: url.replace(/\/+$/, ''), runners, output },
  };
}
