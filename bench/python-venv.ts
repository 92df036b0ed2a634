// A Python virtual environment of a bench's own under the gitignored .bench-tools/, created and
// filled from PyPI on first use (or when its check fails), reused after; never system-wide.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
const PIP = ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check'];
/** A bound, not the expected time: wheels are large and the machine is shared. */
const INSTALL_TIMEOUT_MS = 900_000;

export interface VenvSpec {
  /** The bench's name, for messages. */
  readonly bench: string;
  /** The folder's name under .bench-tools/. */
  readonly name: string;
  /** pip requirement specifiers. */
  readonly requirements: readonly string[];
  /** Python source that exits 0 only when the environment is ready. */
  readonly check: string;
}

export const venvPython = (name: string) => join(ROOT, '.bench-tools', name, 'bin', 'python');

export const passes = (python: string, source: string) =>
  run(python, ['-c', source]).then(
    () => true,
    () => false,
  );

/** Creates or repairs the environment; returns its python. Throws a message that says what failed. */
export async function ensureVenv(spec: VenvSpec, log: (line: string) => void): Promise<string> {
  const python = venvPython(spec.name);
  if (existsSync(python) && (await passes(python, spec.check))) return python;
  const venv = join(ROOT, '.bench-tools', spec.name);
  log(`${spec.bench}: installing ${spec.requirements.join(' ')} into ${venv} (once)`);
  await mkdir(join(ROOT, '.bench-tools'), { recursive: true });
  try {
    if (!existsSync(python)) await run('python3', ['-m', 'venv', venv]);
    await run(python, [...PIP, ...spec.requirements], { timeout: INSTALL_TIMEOUT_MS });
    await run(python, ['-c', spec.check]);
  } catch (error) {
    throw new Error(
      `${spec.bench}: cannot set up ${spec.requirements.join(' ')} in ${venv} (needs python3 with its venv module, e.g. Debian's python3-venv, and PyPI): ${(error as Error).message}`,
    );
  }
  return python;
}

/**
 * Optional packages: tries each pip argument list in turn until `check` passes. Returns the list
 * that worked, or undefined (with each failure logged), so the caller can say what is missing.
 */
export async function tryInstall(
  python: string,
  attempts: readonly (readonly string[])[],
  check: string,
  log: (line: string) => void,
): Promise<readonly string[] | undefined> {
  if (await passes(python, check)) return [];
  for (const args of attempts) {
    log(`installing ${args.join(' ')} (once)`);
    try {
      await run(python, [...PIP, ...args], { timeout: INSTALL_TIMEOUT_MS });
      if (await passes(python, check)) return args;
    } catch (error) {
      log(
        `pip install ${args.join(' ')} failed: ${(error as Error).message.split('\n').slice(-3).join(' ')}`,
      );
    }
  }
  return undefined;
}
