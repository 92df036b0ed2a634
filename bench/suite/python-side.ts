// The Optuna 5.0 side of bench:suite: its venv (.bench-tools/suite-venv), created or repaired on
// first use, and whether GPSampler can run there (it needs SciPy and PyTorch, which may not install).
import { ensureVenv, passes, tryInstall } from '../python-venv.ts';

/** Optuna 5.0 and the CMA-ES library its CmaEsSampler calls; cocoex for make-fixture.py. */
const REQUIREMENTS = ['optuna==5.0.*', 'cmaes==0.13.*', 'coco-experiment==2.8.*'];
const CHECK =
  "import optuna, cmaes, cocoex, sys; sys.exit(0 if optuna.__version__.startswith('5.0.') else 1)";
/** The CPU-only wheel first: the default index's Linux wheel pulls in CUDA (gigabytes). */
const TORCH_ATTEMPTS = [['torch', '--index-url', 'https://download.pytorch.org/whl/cpu'], ['torch']];

export interface PythonSide {
  readonly python: string;
  /** Why GPSampler cannot be the reference, or undefined when it can. */
  readonly gpMissing: string | undefined;
}

/** With `gp`, also tries to install what GPSampler needs. */
export async function ensurePythonSide(gp: boolean, log: (line: string) => void): Promise<PythonSide> {
  const python = await ensureVenv(
    { bench: 'bench:suite', name: 'suite-venv', requirements: REQUIREMENTS, check: CHECK },
    log,
  );
  if (!gp) return { python, gpMissing: 'not asked for' };
  if (await passes(python, 'import torch, scipy')) return { python, gpMissing: undefined };
  const scipy = await tryInstall(python, [['scipy']], 'import scipy', log);
  const torch = scipy && (await tryInstall(python, TORCH_ATTEMPTS, 'import torch', log));
  if (torch) return { python, gpMissing: undefined };
  const gpMissing = `${scipy ? 'PyTorch' : 'SciPy'} did not install into the suite's venv (pip failed; see above)`;
  log(`bench:suite: ${gpMissing}; bayesianoptimization is compared with TPESampler(multivariate=True)`);
  return { python, gpMissing };
}
