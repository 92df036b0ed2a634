// Node's compile cache for the decision processes when the primary runs the TypeScript sources.
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Logger } from '../../../shared/logger.ts';

const PRIME_TIMEOUT_MS = 30_000;

/**
 * Loads the modules of `entry` once in a throwaway process with node's compile cache on, so that
 * each decision process finds them compiled (TypeScript already stripped) and never loads the
 * stripper: ~17 MB less per process. The environment for the decision processes
 * (NODE_COMPILE_CACHE); {} when priming failed (they then strip types themselves, which only costs
 * that memory). Not needed when running the build (dist/, JavaScript): nothing to strip.
 */
export async function primeCompileCache(
  entry: string,
  execArgv: readonly string[],
  logger: Logger,
): Promise<Record<string, string>> {
  if (entry.endsWith('.js')) return {};
  const directory = process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'ratelimit-compile-cache');
  const env = { ...process.env, NODE_COMPILE_CACHE: directory };
  const code = `await import(${JSON.stringify(pathToFileURL(entry).href)});`;
  const outcome = await new Promise<string | undefined>((resolve) => {
    // Same flags as the decision processes (V8's code cache checks them), without the profilers'.
    const flags = execArgv.filter((a) => !/^--(cpu|heap)-prof/.test(a));
    const child = spawn(process.execPath, [...flags, '--input-type=module', '-e', code], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: PRIME_TIMEOUT_MS,
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-2_000);
    });
    child.on('error', (error) => resolve(error.message));
    child.on('exit', (code, signal) => resolve(code === 0 ? undefined : `exit ${code ?? signal}: ${stderr}`));
  });
  if (outcome === undefined) return { NODE_COMPILE_CACHE: directory };
  logger.warn(
    { directory, problem: outcome },
    'compile cache not primed; decision processes strip TypeScript themselves',
  );
  return {};
}
