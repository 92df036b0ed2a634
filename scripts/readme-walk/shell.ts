// Runs a README command as a reader's shell does (`bash -c`), in a process group of its own so that
// the command, npm and the program npm starts are stopped together, as Ctrl-C stops them.
import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Finished {
  /** Exit code, or null when a signal ended it. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
  /** It did not end by itself within the time allowed, and was stopped. */
  readonly timedOut: boolean;
  /** When `stop` ended it: how long after the signal. */
  readonly stoppedInMs?: number;
}

export interface ShellOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

/** A command left running: its output so far, a wait for a fragment of it, and a stop. */
export interface Running {
  readonly pid: number;
  output(): string;
  /** Whether it has not ended yet. */
  alive(): boolean;
  /** Resolves true once `test` holds on the output so far, false if the command ends or time runs out. */
  waitFor(test: (output: string) => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean>;
  /** Sends `signal` to the whole group, SIGKILL after `graceMs`; resolves with how it ended. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<Finished>;
  readonly ended: Promise<Finished>;
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // the group has ended
  }
}

/** Starts `command` under `bash -c`; it runs until it ends or `stop` is called. */
export function start(command: string, options: ShellOptions): Running {
  const begun = performance.now();
  const child = spawn('bash', ['-c', command], {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let timedOut = false;
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const ended = new Promise<Finished>((resolve) => {
    child.on('close', (code, signal) =>
      resolve({ code, signal, stdout, stderr, ms: performance.now() - begun, timedOut }),
    );
  });
  let done = false;
  void ended.then(() => {
    done = true;
  });
  const output = () => stdout + stderr;
  return {
    pid: child.pid!,
    output,
    alive: () => !done,
    ended,
    async waitFor(test, timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        if (await test(output())) return true;
        if (done || performance.now() > deadline) return false;
        await sleep(100);
      }
    },
    async stop(signal = 'SIGTERM', graceMs = 15_000) {
      if (done) return ended;
      const signalled = performance.now();
      signalGroup(child, signal);
      const killed = setTimeout(() => {
        timedOut = true;
        signalGroup(child, 'SIGKILL');
      }, graceMs);
      const finished = await ended;
      clearTimeout(killed);
      return { ...finished, timedOut, stoppedInMs: performance.now() - signalled };
    },
  };
}

/** Runs `command` to its end; past `timeoutMs` it is stopped (SIGTERM, then SIGKILL) and marked timed out. */
export async function run(command: string, options: ShellOptions & { timeoutMs: number }): Promise<Finished> {
  const running = start(command, options);
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    void running.stop('SIGTERM', 5_000);
  }, options.timeoutMs);
  const finished = await running.ended;
  clearTimeout(timer);
  return { ...finished, timedOut: finished.timedOut || expired };
}
