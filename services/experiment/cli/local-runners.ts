// The local runners `experiment run --runners N` starts: `experiment runner` child processes whose
// warnings and errors are passed on to stderr (their other log lines are theirs), stopped with
// SIGTERM (they give their runs back) and SIGKILL after a grace period.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface LocalRunners {
  /** SIGTERM to each, SIGKILL to those still running after `graceMs`; resolves when all exited. */
  stop(graceMs: number): Promise<void>;
}

/** pino's level numbers: warn and above are passed on. */
const WARN = 40;

export function startLocalRunners(options: {
  readonly count: number;
  /** The CLI's own file, started again as `<file> runner`. */
  readonly cliFile: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly onLine: (line: string) => void;
}): LocalRunners {
  const children: ChildProcess[] = [];
  for (let i = 1; i <= options.count; i++) {
    const child = spawn(process.execPath, [options.cliFile, 'runner'], {
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const pass = (line: string) => {
      let entry: { level?: number; msg?: string; err?: { message?: string } } | undefined;
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        options.onLine(`runner ${i}: ${line}`);
        return;
      }
      if ((entry?.level ?? 0) >= WARN)
        options.onLine(
          `runner ${i}: ${entry?.msg ?? ''}${entry?.err?.message ? `: ${entry.err.message}` : ''}`,
        );
    };
    createInterface({ input: child.stdout! }).on('line', pass);
    createInterface({ input: child.stderr! }).on('line', (line) => options.onLine(`runner ${i}: ${line}`));
    child.once('exit', (code, signal) => {
      if (!stopping) options.onLine(`runner ${i} ended (${signal ?? `exit code ${code}`})`);
    });
    children.push(child);
  }
  let stopping = false;
  return {
    stop: async (graceMs) => {
      stopping = true;
      const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
      const exited = running.map((c) => new Promise<void>((resolve) => c.once('exit', () => resolve())));
      for (const child of running) child.kill('SIGTERM');
      const timer = setTimeout(() => {
        for (const child of running)
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }, graceMs);
      await Promise.all(exited);
      clearTimeout(timer);
    },
  };
}
