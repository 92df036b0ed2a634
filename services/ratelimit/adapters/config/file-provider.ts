// Configuration files as envoyproxy/ratelimit's file provider finds them (provider/file_provider.go,
// goruntime): with RUNTIME_WATCH_ROOT every file under RUNTIME_ROOT/RUNTIME_SUBDIRECTORY whose key
// starts with `config.`, else every file under .../RUNTIME_APPDIRECTORY; keys are paths relative
// to that root with '/' → '.'. Reloads on changes inside the folder and on the swap of a
// symlinked RUNTIME_ROOT; inotify reacts at once, a slow poll catches what it cannot see.
import { type FSWatcher, watch } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../../../shared/logger.ts';
import type { ConfigFile } from '../../config/index.ts';

export interface FileProviderOptions {
  readonly root: string;
  readonly subdirectory: string;
  readonly appDirectory: string;
  readonly watchRoot: boolean;
  readonly ignoreDotFiles: boolean;
  readonly logger: Logger;
  /** Quiet time after the last change before files are read (editors write in several steps). */
  readonly debounceMs?: number;
  readonly pollIntervalMs?: number;
}

export interface FileProvider {
  /** The files as they are now, sorted by key. */
  read(): Promise<ConfigFile[]>;
  /** Calls `onChange` after changes settle; returns a stop function. */
  watch(onChange: () => void): () => void;
}

/** Where keys are taken relative to, and which keys count. */
export function loaderRoot(
  options: Pick<FileProviderOptions, 'root' | 'subdirectory' | 'appDirectory' | 'watchRoot'>,
): {
  dir: string;
  keyPrefix: string;
} {
  const base = path.join(options.root, options.subdirectory);
  return options.watchRoot
    ? { dir: base, keyPrefix: `${options.appDirectory}.` }
    : { dir: path.join(base, options.appDirectory), keyPrefix: '' };
}

async function walk(dir: string, ignoreDotFiles: boolean, relative = ''): Promise<string[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(path.join(dir, relative), { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const found: string[] = [];
  for (const entry of entries) {
    if (ignoreDotFiles && entry.name.startsWith('.')) continue;
    const rel = relative === '' ? entry.name : `${relative}/${entry.name}`;
    let isDir = entry.isDirectory();
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      const target = await stat(path.join(dir, rel)).catch(() => undefined);
      isDir = target?.isDirectory() ?? false;
      isFile = target?.isFile() ?? false;
    }
    if (isDir) found.push(...(await walk(dir, ignoreDotFiles, rel)));
    else if (isFile) found.push(rel);
  }
  return found;
}

export function createFileProvider(options: FileProviderOptions): FileProvider {
  const { logger } = options;
  const { dir, keyPrefix } = loaderRoot(options);
  const configDir = options.watchRoot ? path.join(dir, options.appDirectory) : dir;
  const debounceMs = options.debounceMs ?? 50;
  const pollIntervalMs = options.pollIntervalMs ?? 2_000;

  const read = async (): Promise<ConfigFile[]> => {
    const relatives = await walk(dir, options.ignoreDotFiles);
    const files: ConfigFile[] = [];
    for (const rel of relatives) {
      const name = rel.split('/').join('.');
      if (!name.startsWith(keyPrefix)) continue;
      try {
        files.push({ name, text: await readFile(path.join(dir, rel), 'utf8') });
      } catch (error) {
        // Deleted between listing and reading: the next change event reloads again.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    return files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  };

  /** What the poll compares: names, sizes and modification times of the files, and where the root points. */
  const fingerprint = async (): Promise<string> => {
    const relatives = await walk(dir, options.ignoreDotFiles).catch(() => []);
    const parts = await Promise.all(
      relatives.map(async (rel) => {
        const s = await stat(path.join(dir, rel)).catch(() => undefined);
        return `${rel}:${s?.size}:${s?.mtimeMs}:${s?.ino}`;
      }),
    );
    return parts.sort().join('|');
  };

  return {
    read,
    watch(onChange) {
      let debounce: NodeJS.Timeout | undefined;
      let watchers: FSWatcher[] = [];
      let stopped = false;
      let last: string | undefined;
      void fingerprint().then((f) => {
        last ??= f;
      });

      const changed = (): void => {
        if (stopped) return;
        clearTimeout(debounce);
        debounce = setTimeout(() => {
          arm();
          void fingerprint().then((f) => {
            last = f;
          });
          onChange();
        }, debounceMs);
      };

      const tryWatch = (target: string, recursive: boolean, filter?: (name: string) => boolean): void => {
        try {
          const watcher = watch(target, { recursive, persistent: false }, (_event, name) => {
            if (filter === undefined || (name !== null && filter(String(name)))) changed();
          });
          watcher.on('error', () => changed());
          watchers.push(watcher);
        } catch (error) {
          logger.debug({ target, err: error }, 'cannot watch (yet); the poll covers it');
        }
      };

      /** Watches are tied to inodes: after a symlink swap they are made again on the new folders. */
      const arm = (): void => {
        for (const w of watchers) w.close();
        watchers = [];
        const rootName = path.basename(path.resolve(options.root));
        tryWatch(path.dirname(path.resolve(options.root)), false, (name) => name === rootName);
        tryWatch(configDir, true);
      };
      arm();

      const poll = setInterval(() => {
        void fingerprint().then((f) => {
          if (last !== undefined && f !== last) {
            logger.debug('configuration files changed (seen by the poll)');
            changed();
          }
          last = f;
        });
      }, pollIntervalMs);
      poll.unref();

      return () => {
        stopped = true;
        clearTimeout(debounce);
        clearInterval(poll);
        for (const w of watchers) w.close();
      };
    },
  };
}
