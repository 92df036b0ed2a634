// What some integration tests need built or installed before they run — tools from the Go module
// proxy, Katib's Python SDK, the container image, the etcd releases Debian does not package — as
// idempotent steps behind a lock per step. The integration setup starts them all in the background
// at once (test/helpers/prepare-in-background.ts) while the other files run; a test calls
// `prepared(step)`, which waits for the background's run of that step, or runs it itself.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { ensureTestImage } from './container.ts';
import { ensureKatibSdk } from './katib-sdk.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
export const TOOLS = join(ROOT, '.bench-tools');
const LOCKS = join(ROOT, '.infra', 'test', 'locks');

/** A Go tool in the gitignored .bench-tools/, built with `go install` when missing. */
async function goTool(binary: string, module: string): Promise<string> {
  const path = join(TOOLS, binary);
  if (!existsSync(path))
    await run('go', ['install', module], { env: { ...process.env, GOBIN: TOOLS }, timeout: 900_000 });
  return path;
}

export const H2SPEC = join(TOOLS, 'h2spec');
export const RATELIMIT_CLIENT = join(TOOLS, 'client_cmd');
export const KUSTOMIZE = join(TOOLS, 'kustomize');
export const MANIFEST_CHECKER = join(TOOLS, 'manifest-check');
const CHECKER_SOURCE = join(ROOT, 'test', 'manifests');

/** The manifest checker (test/manifests), rebuilt when a source is newer than it. */
async function buildChecker(): Promise<void> {
  const sources = readdirSync(CHECKER_SOURCE).map((f) => statSync(join(CHECKER_SOURCE, f)).mtimeMs);
  if (existsSync(MANIFEST_CHECKER) && statSync(MANIFEST_CHECKER).mtimeMs > Math.max(...sources)) return;
  await run('go', ['build', '-o', MANIFEST_CHECKER, '.'], { cwd: CHECKER_SOURCE, timeout: 900_000 });
}

const STEPS = {
  /** h2spec and envoyproxy/ratelimit's client (test/integration/ratelimit-interop.test.ts). */
  'interop-tools': async () => {
    await goTool('h2spec', 'github.com/summerwind/h2spec/cmd/h2spec@v2.2.1+incompatible');
    await goTool('client_cmd', 'github.com/envoyproxy/ratelimit/src/client_cmd@latest');
  },
  /** kustomize and the strict decoder of Kubernetes objects (test/integration/deploy-manifests.test.ts). */
  'manifest-tools': async () => {
    await goTool('kustomize', 'sigs.k8s.io/kustomize/kustomize/v5@v5.7.1');
    await buildChecker();
  },
  'test-image': async () => void (await ensureTestImage()),
  'katib-sdk': async () => void (await ensureKatibSdk()),
  /** etcd 3.5.35, 3.6.16 and 3.7.3 built into the cache (scripts/infra/etcd.sh). */
  'etcd-releases': async () => {
    await run('bash', [join(ROOT, 'scripts', 'infra.sh'), 'up', 'etcd'], {
      env: { ...process.env, INFRA_PROFILE: 'test' },
      timeout: 1_800_000,
      maxBuffer: 16 * 1024 * 1024,
    });
  },
} as const satisfies Record<string, () => Promise<void>>;

export type PreparationStep = keyof typeof STEPS;

/**
 * The timeout of a hook that waits for a step: a hang catcher, not a bound. On a machine whose Go
 * and apt caches are empty the steps take minutes each (three etcd releases built from the Go
 * module proxy took 13 min on 2 cores), more than the files that need them wait by default.
 */
export const PREPARATION_HOOK_TIMEOUT_MS = 1_800_000;
/** In the order the background runs them: what the earliest of the late test files needs first. */
export const PREPARATION_STEPS = Object.keys(STEPS) as PreparationStep[];

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Runs `step` unless another process of this checkout is running it: then waits for that one, and
 * runs it after (a step whose work is done returns at once). A lock left by a dead process is taken over.
 */
export async function prepared(step: PreparationStep): Promise<void> {
  mkdirSync(LOCKS, { recursive: true });
  const lock = join(LOCKS, step);
  for (;;) {
    try {
      mkdirSync(lock);
    } catch {
      let holder = 0;
      try {
        holder = Number(readFileSync(join(lock, 'pid'), 'utf8'));
      } catch {} // not written yet, or released meanwhile
      if (holder > 0 && !alive(holder)) rmSync(lock, { recursive: true, force: true });
      else await sleep(500);
      continue;
    }
    writeFileSync(join(lock, 'pid'), String(process.pid));
    try {
      await STEPS[step]();
      return;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}
