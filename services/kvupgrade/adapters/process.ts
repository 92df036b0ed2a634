import { spawn } from 'node:child_process';
import { unavailable } from '../../../shared/errors.ts';

export interface CommandResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/**
 * Runs a program to its end (or kills it at the deadline) and collects its output. Never goes
 * through a shell unless the caller runs `/bin/sh -c`. Rejects with UNAVAILABLE only when the
 * program cannot be started at all.
 */
export function runCommand(
  file: string,
  args: readonly string[],
  options: { readonly timeoutMs: number },
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    // No stdin: writing to a program that already exited would fail with EPIPE.
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(unavailable(`cannot run ${file}: ${error.message}`, error));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        timedOut,
      });
    });
  });
}

/** The last non-empty lines of a command's output, for error messages. */
export const lastLines = (text: string, n = 3): string =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .slice(-n)
    .join(' | ');
