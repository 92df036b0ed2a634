// A runtime folder for the rate limit service (RUNTIME_ROOT), laid out like a deploy's, that a
// test edits while the service watches it.
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** A runtime folder like a deploy's: `<dir>/current` is a symlink to a version folder holding `ratelimit/config/`. */
export interface RuntimeFolder {
  /** RUNTIME_ROOT (the symlink). */
  readonly root: string;
  readonly subdirectory: 'ratelimit';
  /** The config folder the symlink points into now. */
  configDir(): string;
  /** Writes a file atomically (write to a temp name, rename). */
  write(name: string, text: string): Promise<void>;
  remove(name: string): Promise<void>;
  /** Points `current` at a new version folder holding exactly `files`, in one rename. */
  swap(files: Readonly<Record<string, string>>): Promise<void>;
  cleanup(): Promise<void>;
}

export const RUNTIME_FIXTURES = join(ROOT, 'test', 'fixtures', 'ratelimit', 'runtime');

export async function createRuntimeFolder(files?: Readonly<Record<string, string>>): Promise<RuntimeFolder> {
  const fs = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const base = await fs.mkdtemp(join(tmpdir(), 'ratelimit-runtime-'));
  let version = 0;
  let current = '';
  const makeVersion = async (content: Readonly<Record<string, string>>): Promise<string> => {
    const dir = join(base, `v${++version}`);
    await fs.mkdir(join(dir, 'ratelimit', 'config'), { recursive: true });
    for (const [name, text] of Object.entries(content))
      await fs.writeFile(join(dir, 'ratelimit', 'config', name), text);
    return dir;
  };
  const initial: Record<string, string> = {};
  if (files === undefined) {
    const fixtureDir = join(RUNTIME_FIXTURES, 'current', 'ratelimit', 'config');
    for (const name of await fs.readdir(fixtureDir))
      initial[name] = await fs.readFile(join(fixtureDir, name), 'utf8');
  } else Object.assign(initial, files);
  current = await makeVersion(initial);
  const root = join(base, 'current');
  await fs.symlink(current, root);
  return {
    root,
    subdirectory: 'ratelimit',
    configDir: () => join(current, 'ratelimit', 'config'),
    async write(name, text) {
      // Written beside, then renamed in: the loader never sees half a file or a temporary one.
      const temporary = join(base, `${name}.tmp`);
      await fs.writeFile(temporary, text);
      await fs.rename(temporary, join(current, 'ratelimit', 'config', name));
    },
    remove: (name) => fs.rm(join(current, 'ratelimit', 'config', name)),
    async swap(content) {
      const next = await makeVersion(content);
      const link = join(base, `current.tmp-${version}`);
      await fs.symlink(next, link);
      await fs.rename(link, root);
      current = next;
    },
    cleanup: () => fs.rm(base, { recursive: true, force: true }),
  };
}
