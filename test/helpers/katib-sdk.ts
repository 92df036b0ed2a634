// Katib's own Python SDK (kubeflow-katib 0.19.0 from PyPI, the Katib release the manifests target)
// in a venv of its own under the gitignored .bench-tools/, installed once.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const VENV = join(ROOT, '.bench-tools', 'katib-sdk');
export const KATIB_SDK_PYTHON = join(VENV, 'bin', 'python');
/** pips fetching at once. */
const FETCHERS = 6;
const REQUIREMENTS = join(ROOT, 'test', 'interop', 'katib-sdk-requirements.txt');
const CHECK =
  "import kubeflow.katib, importlib.metadata as m; assert m.version('kubeflow-katib') == '0.19.0'";

export async function ensureKatibSdk(): Promise<string> {
  if (
    existsSync(KATIB_SDK_PYTHON) &&
    (await run(KATIB_SDK_PYTHON, ['-c', CHECK]).then(
      () => true,
      () => false,
    ))
  )
    return KATIB_SDK_PYTHON;
  await mkdir(join(ROOT, '.bench-tools'), { recursive: true });
  const wheels = join(ROOT, '.bench-tools', 'katib-sdk-wheels');
  try {
    if (!existsSync(KATIB_SDK_PYTHON)) await run('python3', ['-m', 'venv', VENV]);
    // Every package is pinned, so pip resolves nothing; each fetch waits seconds on the index, so
    // they are fetched by several pips at once, then installed from the folder without the index.
    const pinned = (await readFile(REQUIREMENTS, 'utf8'))
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('#'));
    const pip = ['-m', 'pip', '--disable-pip-version-check', '--quiet'];
    await Promise.all(
      Array.from({ length: FETCHERS }, (_, i) =>
        run(
          KATIB_SDK_PYTHON,
          [...pip, 'download', '--no-deps', '-d', wheels, ...pinned.filter((_, k) => k % FETCHERS === i)],
          {
            timeout: 600_000,
          },
        ),
      ),
    );
    await run(
      KATIB_SDK_PYTHON,
      [...pip, 'install', '--no-compile', '--no-deps', '--no-index', '--find-links', wheels, ...pinned],
      { timeout: 600_000 },
    );
    await run(KATIB_SDK_PYTHON, ['-c', CHECK]);
  } catch (error) {
    throw new Error(
      `cannot install ${REQUIREMENTS} into ${VENV} (needs python3 with its venv module and PyPI): ${(error as Error).message}`,
    );
  }
  return KATIB_SDK_PYTHON;
}
