// Optuna 5.0 for the benchmarks that run it side by side (bench:pruners, bench:experiment-run), in a
// virtual environment of its own under the gitignored .bench-tools/ (created and filled from PyPI on
// first use, reused after), never system-wide.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureVenv, venvPython } from '../python-venv.ts';
import type { Run } from './ours.ts';

const run = promisify(execFile);
/** The environment's interpreter, for a bench's own Python side (after `ensureOptuna`). */
export const OPTUNA_PYTHON = venvPython('optuna-venv');
const PYTHON = OPTUNA_PYTHON;
/** Optuna 5.0 and the SciPy its WilcoxonPruner calls. */
const REQUIREMENTS = ['optuna==5.0.*', 'scipy==1.17.*'];
const CHECK = "import optuna, scipy, sys; sys.exit(0 if optuna.__version__.startswith('5.0.') else 1)";

export interface OptunaCase {
  readonly label: string;
  /** A class of optuna.pruners and its keyword arguments. */
  readonly class: string;
  readonly kwargs: Readonly<Record<string, unknown>>;
}

export interface OptunaSeed {
  /** The study name: hyperband draws brackets from `<study>_<trial number>`. */
  readonly study: string;
  readonly curves: readonly (readonly number[])[];
}

/** Creates the environment and installs Optuna into it when it is not there yet. */
export async function ensureOptuna(log: (line: string) => void): Promise<void> {
  await ensureVenv(
    { bench: 'bench:pruners', name: 'optuna-venv', requirements: REQUIREMENTS, check: CHECK },
    log,
  );
}

/**
 * Runs every case on every seed with Optuna (after `ensureOptuna`); per case, one run per seed.
 * The Python processes start before this returns, so the caller's own work overlaps them.
 */
export async function runOptuna(
  seeds: readonly OptunaSeed[],
  cases: readonly OptunaCase[],
): Promise<{ version: string; results: Record<string, (Run & { seconds: number })[]> }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-pruners-'));
  try {
    const input = join(dir, 'input.json');
    writeFileSync(input, JSON.stringify({ seeds, cases }));
    const { stdout } = await run(PYTHON, [join(import.meta.dirname, 'optuna_pruners.py'), input], {
      maxBuffer: 256 * 1024 * 1024,
      // A bound, not the expected time (about a minute of CPU): a shared machine can be slow.
      timeout: 420_000,
    });
    return JSON.parse(stdout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
