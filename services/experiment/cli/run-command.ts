// `experiment run FILE.yaml`: submits the file to the service's HTTP gateway, starts the local
// runners, follows the experiment's status until the submitted generation ends, stops the runners
// and says how it ended. Progress goes to stdout, or to stderr with --output json, so the JSON
// object is the last line of stdout.
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunOptions } from './cli-args.ts';
import { startLocalRunners } from './local-runners.ts';
import {
  asStatus,
  EXIT_CODES,
  exitCodeOf,
  finishedFor,
  progressLine,
  runSummary,
  type StatusAnswer,
  summaryText,
} from './run-summary.ts';

const POLL_MS = 500;
const RUNNER_STOP_GRACE_MS = 20_000;

export interface RunDeps {
  readonly cliFile: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

interface Submitted {
  readonly name: string;
  readonly generation: number;
}

/** POST /api/experiments; the exit code when it was refused or could not be sent. */
async function submit(options: RunOptions, yaml: string, deps: RunDeps): Promise<Submitted | number> {
  let response: Response;
  try {
    response = await fetch(`${options.url}/api/experiments`, {
      method: 'POST',
      headers: { 'content-type': 'application/yaml', 'x-experiment-source': 'cli' },
      body: yaml,
    });
  } catch (error) {
    deps.err(
      `experiment: cannot reach ${options.url}: ${(error as Error).cause ?? (error as Error).message}`,
    );
    return EXIT_CODES.unreachable;
  }
  const body = (await response.json().catch(() => ({}))) as {
    name?: string;
    generation?: number;
    problems?: { path: string; message: string }[];
    error?: { message?: string };
  };
  if (response.status === 400 && body.problems) {
    deps.err(`experiment: ${options.file} is refused:`);
    for (const p of body.problems) deps.err(`  ${p.path === '' ? '' : `${p.path}: `}${p.message}`);
    return EXIT_CODES.refused;
  }
  if (!response.ok || body.name === undefined || body.generation === undefined) {
    deps.err(`experiment: POST /api/experiments answered ${response.status}: ${body.error?.message ?? ''}`);
    return EXIT_CODES.unreachable;
  }
  return { name: body.name, generation: body.generation };
}

async function statusOf(options: RunOptions, name: string): Promise<StatusAnswer | undefined> {
  try {
    const response = await fetch(`${options.url}/api/experiments/${encodeURIComponent(name)}/status`);
    return response.ok ? ((await response.json()) as StatusAnswer) : undefined;
  } catch {
    return undefined; // the service restarting: asked again at the next poll
  }
}

export async function runCommand(options: RunOptions, deps: RunDeps): Promise<number> {
  let yaml: string;
  try {
    yaml = await readFile(options.file, 'utf8');
  } catch (error) {
    deps.err(`experiment: cannot read ${options.file}: ${(error as Error).message}`);
    return EXIT_CODES.refused;
  }
  const submitted = await submit(options, yaml, deps);
  if (typeof submitted === 'number') return submitted;
  const progress = options.output === 'json' ? deps.err : deps.out;
  progress(`experiment ${submitted.name} (generation ${submitted.generation}) submitted to ${options.url}`);

  const runners = startLocalRunners({
    count: options.runners,
    cliFile: deps.cliFile,
    env: deps.env,
    onLine: deps.err,
  });
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    let last = '';
    for (;;) {
      if (interrupted) {
        deps.err('experiment: interrupted; the experiment goes on in the service');
        return EXIT_CODES.failed;
      }
      const answer = await statusOf(options, submitted.name);
      if (answer !== undefined) {
        const line = progressLine(answer);
        if (line !== last) progress(line);
        last = line;
        if (finishedFor(answer, submitted.generation)) {
          const status = asStatus(answer);
          if (options.output === 'json') deps.out(JSON.stringify(runSummary(status)));
          else deps.out(summaryText(status));
          return exitCodeOf(status);
        }
      }
      await sleep(POLL_MS);
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await runners.stop(RUNNER_STOP_GRACE_MS);
  }
}
