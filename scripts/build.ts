// `npm run build`: the services as JavaScript in dist/ (what `npm start` runs). Running the
// TypeScript sources directly makes Node load its type stripper (a WebAssembly module) in every
// process: ~27 MiB RSS per experiment service. tsc emits the JavaScript (imports rewritten to
// .js); the files the services read at run time (.proto, .avsc, the web page) are copied beside it.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
export const DIST = join(ROOT, 'dist');
/** Where the tests and the benches build (gitignored): never the dist/ a running `npm start` uses. */
export const TEST_BUILD = join(ROOT, '.build', 'test');
export const BENCH_BUILD = join(ROOT, '.build', 'bench');

/**
 * Builds the sources into `outDir` (dist/ by default); throws with tsc's output when they do not
 * compile. The build is made in .build/ and renamed into place: a failed build leaves the previous
 * one whole, a process started from it never finds a half-written folder, and of two builds at once
 * the last to finish is the one in place.
 */
export function build(outDir: string = DIST): void {
  const work = join(ROOT, '.build');
  mkdirSync(work, { recursive: true });
  removeLeftovers(work);
  const staging = join(work, `staging-${process.pid}`);
  const previous = join(work, `previous-${process.pid}`);
  try {
    compile(staging);
    for (let attempt = 1; ; attempt++) {
      if (existsSync(outDir)) renameSync(outDir, previous);
      try {
        renameSync(staging, outDir);
        break;
      } catch (error) {
        // Another build put its folder in place between the two renames: move that one aside too.
        const code = (error as NodeJS.ErrnoException).code;
        if (attempt >= 5 || (code !== 'ENOTEMPTY' && code !== 'EEXIST')) throw error;
        rmSync(previous, { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(previous, { recursive: true, force: true });
  }
}

/** Staging folders of builds that were killed (their process is gone). */
function removeLeftovers(work: string): void {
  for (const name of readdirSync(work)) {
    const pid = /^(?:staging|previous)-(\d+)$/.exec(name)?.[1];
    if (pid !== undefined && !processIsAlive(Number(pid)))
      rmSync(join(work, name), { recursive: true, force: true });
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function compile(outDir: string): void {
  const tsc = spawnSync(
    join(ROOT, 'node_modules', '.bin', 'tsc'),
    ['-p', join(ROOT, 'tsconfig.build.json'), '--outDir', outDir],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  if (tsc.error) throw new Error(`build: cannot run tsc: ${tsc.error.message}`);
  if (tsc.status !== 0)
    throw new Error(`build: tsc failed (exit ${tsc.status}):\n${tsc.stdout}${tsc.stderr}`);
  const assets: ReadonlyArray<[string, (file: string) => boolean]> = [
    ['proto', (file) => !file.includes(`${join('proto', 'gen')}`) && !file.endsWith('.ts')],
    ['schemas', (file) => !file.endsWith('.ts')],
    [join('services', 'experiment', 'web', 'page'), () => true],
  ];
  for (const [folder, wanted] of assets) {
    const from = join(ROOT, folder);
    if (!existsSync(from)) continue;
    cpSync(from, join(outDir, folder), {
      recursive: true,
      filter: (source) => source === from || wanted(source),
    });
  }
}

if (import.meta.main) {
  try {
    build();
    process.stdout.write(`build: ${DIST}\n`);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
}
