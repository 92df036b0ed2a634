import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import yaml from 'js-yaml';
import { invalidArgument } from '../../../shared/errors.ts';
import { type ClusterSpec, type NamedFile, validateClusterSpec } from '../domain/cluster-spec.ts';
import type { TlsMaterial } from './tls.ts';

/** A cluster file with the files it names read: what every command works with. */
export interface LoadedCluster {
  readonly spec: ClusterSpec;
  /** auth.user with the first line of auth.passwordFile; undefined without an auth block. */
  readonly credentials: { readonly user: string; readonly password: string } | undefined;
  /** The tls block's files; undefined without one. */
  readonly tls: TlsMaterial | undefined;
}

const why = (error: unknown): string => {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'is a folder, not a file';
  return (error as Error).message;
};

const firstLine = (content: Buffer) => content.toString('utf8').split('\n')[0]!.trim();

/**
 * Reads and validates a cluster file, `file` taken from `from` when relative, then reads the files
 * it names. INVALID_ARGUMENT lists every problem at once, each as `field: problem`, missing files
 * included.
 */
export async function loadClusterFile(file: string, from: string = process.cwd()): Promise<LoadedCluster> {
  const path = resolve(from, file);
  const named = path === file ? file : `${file} (${path})`;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw invalidArgument(`cluster file ${named}: ${why(error)}`, error);
  }
  let raw: unknown;
  try {
    raw = yaml.load(text, { filename: path });
  } catch (error) {
    throw invalidArgument(`cluster file ${named}: not YAML: ${(error as Error).message}`, error);
  }
  const outcome = validateClusterSpec(raw, dirname(path));
  const { contents, problems: unread } = await readNamedFiles(outcome.files);
  const problems = [...(outcome.ok ? [] : outcome.problems), ...unread];
  if (!outcome.ok || problems.length > 0)
    throw invalidArgument(`cluster file ${named} is invalid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  const { spec } = outcome;
  return {
    spec,
    credentials: spec.auth
      ? { user: spec.auth.user, password: firstLine(contents.get('auth.passwordFile')!) }
      : undefined,
    tls: spec.tls
      ? {
          spec: spec.tls,
          ca: contents.get('tls.ca')!,
          cert: contents.get('tls.cert'),
          key: contents.get('tls.key'),
          serverName: spec.tls.serverName,
        }
      : undefined,
  };
}

/** Every named file read, or a problem naming its field, the path and why it could not be read. */
async function readNamedFiles(
  files: readonly NamedFile[],
): Promise<{ contents: Map<string, Buffer>; problems: string[] }> {
  const read = await Promise.all(
    files.map((f) =>
      readFile(f.path).then(
        (content) => ({ ...f, content }),
        (error: unknown) => ({ ...f, problem: `${f.field}: cannot read ${f.path}: ${why(error)}` }),
      ),
    ),
  );
  const contents = new Map<string, Buffer>();
  const problems: string[] = [];
  for (const r of read) {
    if (!('content' in r)) problems.push(r.problem);
    else if (r.field === 'auth.passwordFile' && firstLine(r.content) === '')
      problems.push(`${r.field}: ${r.path} is empty (the password is its first line)`);
    else contents.set(r.field, r.content);
  }
  return { contents, problems };
}
