// A service of this repository in a child process for the integration tests: its output kept
// (the last 64 KiB, for failure messages), and killed if the test process ends first.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const MAX_OUTPUT_CHARS = 64 * 1024;

export interface ServiceProcess {
  readonly child: ChildProcess;
  /** Resolves with the exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>;
  /** The exit code once it exited, else undefined. */
  exitCode(): number | null | undefined;
  output(): string;
  /** Sends `signal` unless it already exited; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Runs `entry` (a path from the repository's root) with node, `nodeOptions` first, in `env` only. */
export function spawnService(
  entry: string,
  env: Record<string, string>,
  nodeOptions: readonly string[] = [],
): ServiceProcess {
  const child = spawn(process.execPath, [...nodeOptions, entry], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-MAX_OUTPUT_CHARS);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exitCode = code;
      resolve(code);
    }),
  );
  // A test that fails half-way must not leave the service running after the test process ends.
  const reap = (): void => void child.kill('SIGKILL');
  process.once('exit', reap);
  void exited.then(() => process.off('exit', reap));
  return {
    child,
    exited,
    exitCode: () => exitCode,
    output: () => output,
    stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
