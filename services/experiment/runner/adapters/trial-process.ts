// One trial's process: the primary container's command started in its own process group (so a
// stop reaches whatever it started too: a shell, a data loader, torchrun's workers), its stdout
// handed on as it arrives, its stderr kept as a tail. Stopping sends SIGTERM to the group, then
// SIGKILL after a grace period, as the kubelet does to a pod's containers.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { TrialRunSpec } from '../../common/trial-run.ts';
import { StderrTail } from '../stderr-tail.ts';

export interface ProcessExit {
  readonly exitCode: number | null;
  readonly signal: string;
  readonly stderrTail: string;
}

export interface TrialProcess {
  readonly pid: number;
  /** Resolves once the process ended and its output was read to the end. */
  readonly exited: Promise<ProcessExit>;
  /** SIGTERM to the process group, SIGKILL after `graceMs`; resolves when it ended. */
  stop(graceMs: number): Promise<ProcessExit>;
}

export interface StartTrialProcess {
  readonly spec: Pick<TrialRunSpec, 'command' | 'env' | 'workingDir'>;
  /** The runner's own environment, which the container's env is added to. */
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  /** Where a relative or empty workingDir is resolved. */
  readonly runnerDir: string;
  readonly onStdout: (chunk: string) => void;
}

/** Where the trial runs: its workingDir, relative to the runner's folder. */
export const trialDirectory = (workingDir: string, runnerDir: string): string =>
  workingDir === '' ? runnerDir : isAbsolute(workingDir) ? workingDir : resolve(runnerDir, workingDir);

/** Resolves once the process runs (its pid known); rejects with the spawn error (ENOENT, EACCES). */
export async function startTrialProcess(options: StartTrialProcess): Promise<TrialProcess> {
  const [file, ...args] = options.spec.command;
  if (file === undefined) throw new Error('the container has no command or args to run');
  const cwd = trialDirectory(options.spec.workingDir, options.runnerDir);
  // A container runtime creates a missing workingDir; spawn would fail with an ENOENT naming the command.
  await mkdir(cwd, { recursive: true });
  const env: Record<string, string | undefined> = { ...options.baseEnv };
  for (const e of options.spec.env) env[e.name] = e.value;
  const child = spawn(file, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const tail = new StderrTail();
  child.stdout!.setEncoding('utf8').on('data', options.onStdout);
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => tail.push(chunk));
  return new Promise((resolveStart, rejectStart) => {
    child.once('error', rejectStart);
    child.once('spawn', () => {
      child.off('error', rejectStart);
      // 'close' comes after both pipes ended: every line the process wrote was handed on.
      const exited = new Promise<ProcessExit>((done) =>
        child.once('close', (code, signal) =>
          done({ exitCode: signal === null ? code : null, signal: signal ?? '', stderrTail: tail.text() }),
        ),
      );
      resolveStart({ pid: child.pid!, exited, stop: (graceMs) => stopGroup(child, exited, graceMs) });
    });
  });
}

async function stopGroup(
  child: ChildProcess,
  exited: Promise<ProcessExit>,
  graceMs: number,
): Promise<ProcessExit> {
  signalGroup(child, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
    // Whatever the trial left behind in its group goes with it.
    signalGroup(child, 'SIGKILL');
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // ESRCH: the group is gone already.
  }
}
