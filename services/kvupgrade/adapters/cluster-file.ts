import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import yaml from 'js-yaml';
import { invalidArgument } from '../../../shared/errors.ts';
import { type ClusterSpec, validateClusterSpec } from '../domain/cluster-spec.ts';

/** Reads and validates a cluster file; INVALID_ARGUMENT lists every problem, each naming its field. */
export async function loadClusterFile(file: string): Promise<ClusterSpec> {
  const path = resolve(file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw invalidArgument(
      `cluster file ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
      error,
    );
  }
  let raw: unknown;
  try {
    raw = yaml.load(text, { filename: path });
  } catch (error) {
    throw invalidArgument(`cluster file ${file}: not YAML: ${(error as Error).message}`, error);
  }
  const outcome = validateClusterSpec(raw, dirname(path));
  if (!outcome.ok)
    throw invalidArgument(
      `cluster file ${file} is invalid:\n${outcome.problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  return outcome.spec;
}

/** The password named by auth.passwordFile (first line). */
export async function readPassword(file: string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).split('\n')[0]!.trim();
  } catch (error) {
    throw invalidArgument(`auth.passwordFile ${file}: ${(error as Error).message}`, error);
  }
}
