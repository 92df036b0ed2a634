// Katib's own Python SDK (kubeflow-katib 0.19.0 from PyPI, the Katib release the manifests target)
// in a venv of its own under the gitignored .bench-tools/, installed once.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const VENV = join(ROOT, '.bench-tools', 'katib-sdk');
export const KATIB_SDK_PYTHON = join(VENV, 'bin', 'python');
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
  try {
    if (!existsSync(KATIB_SDK_PYTHON)) await run('python3', ['-m', 'venv', VENV]);
    await run(
      KATIB_SDK_PYTHON,
      // Every package pinned: pip resolves nothing.
      [
        '-m',
        'pip',
        'install',
        '--quiet',
        '--disable-pip-version-check',
        '--no-compile',
        '--no-deps',
        '-r',
        REQUIREMENTS,
      ],
      {
        timeout: 600_000,
      },
    );
    await run(KATIB_SDK_PYTHON, ['-c', CHECK]);
  } catch (error) {
    throw new Error(
      `cannot install ${REQUIREMENTS} into ${VENV} (needs python3 with its venv module and PyPI): ${(error as Error).message}`,
    );
  }
  return KATIB_SDK_PYTHON;
}
