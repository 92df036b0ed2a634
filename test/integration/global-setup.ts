import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type InfraEnv, startInfra } from '../../scripts/infra-client.ts';

export type { InfraEnv } from '../../scripts/infra-client.ts';

const ROOT = join(import.meta.dirname, '..', '..');

declare module 'vitest' {
  export interface ProvidedContext {
    infra: InfraEnv;
  }
}

/**
 * Starts (or reuses) the tests' own real servers through the project's own script (its `test`
 * profile: ports and data apart from what `npm start` runs), and stops at the end the ones it had
 * to start. INFRA_KEEP=1 leaves them running for the next run.
 */
export default function setup(project: TestProject): () => void {
  const infra = startInfra('test');
  project.provide('infra', infra.env);
  const preparing = prepareInBackground();
  return () => {
    if (preparing?.exitCode === null && preparing.pid) process.kill(-preparing.pid, 'SIGTERM');
    if (process.env.INFRA_KEEP !== '1') infra.stopStarted();
  };
}

/**
 * A whole run (no test files named) starts the slow preparations at once, beside the first test
 * files (test/helpers/preparations.ts); a run of chosen files leaves them to the files that need them.
 */
function prepareInBackground(): ChildProcess | undefined {
  if (process.argv.slice(2).some((arg) => /\.test\.ts$|^test\//.test(arg))) return undefined;
  const logs = join(ROOT, '.infra', 'test', 'logs');
  mkdirSync(logs, { recursive: true });
  const log = openSync(join(logs, 'prepare.log'), 'a');
  const child = spawn(process.execPath, [join(ROOT, 'test', 'helpers', 'prepare-in-background.ts')], {
    cwd: ROOT,
    detached: true, // its own process group: stopped with every build it started
    stdio: ['ignore', log, log],
  });
  child.unref();
  return child;
}
