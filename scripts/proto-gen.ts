// Generates TypeScript types for our .proto files into proto/gen/ (or the folder given as the first
// argument): runs @grpc/proto-loader's proto-loader-gen-types with the options every service loads
// protos with (PROTO_LOADER_OPTIONS), then gives relative import specifiers the `.ts` extension that
// nodenext module resolution requires. `npm run proto:gen` runs it; never edit proto/gen/ by hand.
// Generated files declare types (and a few `as const` enum objects); import them with `import type`.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Options as ProtoLoaderOptions } from '@grpc/proto-loader';
import { PROTO_LOADER_OPTIONS } from '../shared/grpc.ts';

export const REPO_ROOT: string = path.resolve(import.meta.dirname, '..');
export const DEFAULT_OUT_DIR: string = path.join(REPO_ROOT, 'proto', 'gen');
/** Relative to proto/, which is the include directory. */
export const PROTO_FILES: readonly string[] = ['api/v1beta1/api.proto', 'grpc/health/v1/health.proto'];

/**
 * The generator's command-line flags for the given load options: `keepCase: true` becomes
 * `--keepCase`, `longs: String` becomes `--longs=String`. Options the generator has no flag for fail.
 */
export function generatorFlags(options: Readonly<ProtoLoaderOptions>): string[] {
  const flags: string[] = [];
  for (const [name, value] of Object.entries(options)) {
    if (value === true) flags.push(`--${name}`);
    else if (value === String || value === Number || value === Array) flags.push(`--${name}=${value.name}`);
    else if (value !== false && value !== undefined) {
      throw new Error(`proto-gen: load option ${name}=${String(value)} has no proto-loader-gen-types flag`);
    }
  }
  return flags;
}

/** The full argument list after the generator's path (run with the repository root as working directory). */
export function generatorArgs(outDir: string): string[] {
  return [
    ...generatorFlags(PROTO_LOADER_OPTIONS),
    '--grpcLib=@grpc/grpc-js',
    '--includeDirs',
    'proto',
    '--outDir',
    outDir,
    ...PROTO_FILES,
  ];
}

const RELATIVE_IMPORT = /(\bfrom\s+')(\.{1,2}\/[^']+?)(')/g;

/** Adds `.ts` to relative module specifiers that have no extension. */
export function addTsExtensions(source: string): string {
  return source.replace(RELATIVE_IMPORT, (match, before: string, specifier: string, after: string) =>
    specifier.endsWith('.ts') ? match : `${before}${specifier}.ts${after}`,
  );
}

function filesIn(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Whether a file looks like the generator's: a per-package type file, or a per-.proto root file. */
function isGenerated(dir: string, file: string): boolean {
  const relative = path.relative(dir, file);
  const roots = PROTO_FILES.map((proto) => `${path.basename(proto, '.proto')}.ts`);
  if (roots.includes(relative)) return true;
  return file.endsWith('.ts') && readFileSync(file, 'utf8').startsWith('// Original file: ');
}

/** Replaces outDir with freshly generated types; refuses a folder holding anything not generated. */
export function generate(outDir: string = DEFAULT_OUT_DIR): string[] {
  const target = path.resolve(outDir);
  if (existsSync(target)) {
    const foreign = filesIn(target).find((file) => !isGenerated(target, file));
    if (foreign !== undefined) {
      throw new Error(`proto-gen: ${foreign} was not generated; not replacing ${target}`);
    }
  }
  const generator = createRequire(import.meta.url).resolve(
    '@grpc/proto-loader/build/bin/proto-loader-gen-types.js',
  );
  // Generated next to the target, so the final rename stays on one file system.
  mkdirSync(path.dirname(target), { recursive: true });
  const staging = mkdtempSync(path.join(path.dirname(target), '.proto-gen-'));
  try {
    execFileSync(process.execPath, [generator, ...generatorArgs(staging)], {
      cwd: REPO_ROOT,
      stdio: 'inherit',
    });
    const files = filesIn(staging);
    for (const file of files) writeFileSync(file, addTsExtensions(readFileSync(file, 'utf8')));
    rmSync(target, { recursive: true, force: true });
    renameSync(staging, target);
    return files.map((file) => path.relative(staging, file)).sort();
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const outDir = process.argv[2] ?? DEFAULT_OUT_DIR;
  const files = generate(outDir);
  process.stdout.write(
    `proto-gen: ${files.length} files in ${path.relative(process.cwd(), path.resolve(outDir)) || '.'}\n`,
  );
}
