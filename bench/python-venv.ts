// A Python virtual environment of a bench's own under the gitignored .bench-tools/, created and
// filled from the package index on first use and reused after (never system-wide). The pruner
// bench and bench:multi-objective each keep one, with Optuna 5.0 and what its code there imports.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');

export interface PythonVenv {
  /** The bench's name, for messages. */
  readonly bench: string;
  /** Directory name under .bench-tools/. */
  readonly name: string;
  /** pip requirement specifiers. */
  readonly requirements: readonly string[];
  /** Python code that exits 0 when the environment holds what the bench needs. */
  readonly check: string;
}

/** The environment's python; creates the environment and installs into it when the check fails. */
export async function ensureVenv(venv: PythonVenv, log: (line: string) => void): Promise<string> {
  const dir = join(ROOT, '.bench-tools', venv.name);
  const python = join(dir, 'bin', 'python');
  const ready = await run(python, ['-c', venv.check]).then(
    () => true,
    () => false,
  );
  if (ready) return python;
  log(`${venv.bench}: installing ${venv.requirements.join(' ')} into ${dir} (once)`);
  await mkdir(join(ROOT, '.bench-tools'), { recursive: true });
  try {
    if (!existsSync(python)) await run('python3', ['-m', 'venv', dir]);
    await run(
      python,
      ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...venv.requirements],
      {
        timeout: 600_000,
      },
    );
    await run(python, ['-c', venv.check]);
  } catch (error) {
    throw new Error(
      `${venv.bench}: cannot set up ${dir} (needs python3 with its venv module, e.g. Debian's python3-venv, and PyPI): ${(error as Error).message}`,
    );
  }
  return python;
}
