// proto/gen/ is what `npm run proto:gen` makes of the current .proto files, byte for byte, so the
// generated types never drift from the protos; and nothing imports it except as types.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addTsExtensions, DEFAULT_OUT_DIR, generatorArgs, REPO_ROOT } from '../../../scripts/proto-gen.ts';

const SCRIPT = path.join(REPO_ROOT, 'scripts', 'proto-gen.ts');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

const scratch = mkdtempSync(path.join(tmpdir(), 'proto-gen-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('npm run proto:gen', () => {
  it('runs proto-loader-gen-types with the load options of shared/grpc.ts', () => {
    expect(generatorArgs('OUT')).toEqual([
      '--keepCase',
      '--longs=String',
      '--enums=String',
      '--defaults',
      '--oneofs',
      '--grpcLib=@grpc/grpc-js',
      '--includeDirs',
      'proto',
      '--outDir',
      'OUT',
      'api/v1beta1/api.proto',
      'grpc/health/v1/health.proto',
    ]);
  });

  it('adds .ts to relative import specifiers only', () => {
    const source = [
      "import type * as grpc from '@grpc/grpc-js'",
      "import type { A as _a } from '../../../api/v1/beta1/A';",
      "import type { B } from './api/v1/beta1/B.ts';",
    ].join('\n');
    expect(addTsExtensions(source).split('\n')).toEqual([
      "import type * as grpc from '@grpc/grpc-js'",
      "import type { A as _a } from '../../../api/v1/beta1/A.ts';",
      "import type { B } from './api/v1/beta1/B.ts';",
    ]);
  });

  it('regenerates proto/gen/ byte for byte', { timeout: 60_000 }, () => {
    const outDir = path.join(scratch, 'gen');
    execFileSync(process.execPath, [SCRIPT, outDir], { cwd: scratch, stdio: 'pipe' });
    const committed = filesUnder(DEFAULT_OUT_DIR);
    const fresh = filesUnder(outDir);
    expect(fresh, 'files in proto/gen/ differ from a fresh run; run `npm run proto:gen`').toEqual(committed);
    expect(fresh).toContain(path.join('api', 'v1', 'beta1', 'ReportObservationLogRequest.ts'));
    for (const file of fresh) {
      const actual = readFileSync(path.join(DEFAULT_OUT_DIR, file));
      const expected = readFileSync(path.join(outDir, file));
      expect(actual.equals(expected), `proto/gen/${file} is stale; run \`npm run proto:gen\``).toBe(true);
    }
  });
});

describe('imports of proto/gen/', () => {
  const ROOTS = ['services', 'shared', 'scripts', 'test', 'bench'];
  const IMPORT = /^\s*(?:import|export)\s+(type\s+)?[^;]*?\sfrom\s+['"]([^'"]+)['"]/gm;

  it('are type-only everywhere', () => {
    const offenders: string[] = [];
    for (const root of ROOTS) {
      const dir = path.join(REPO_ROOT, root);
      let files: string[];
      try {
        files = filesUnder(dir).filter((file) => file.endsWith('.ts'));
      } catch {
        continue;
      }
      for (const file of files) {
        const source = readFileSync(path.join(dir, file), 'utf8');
        for (const match of source.matchAll(IMPORT)) {
          const [statement, typeOnly, specifier] = match;
          if (specifier?.includes('proto/gen/') && typeOnly === undefined) {
            offenders.push(`${root}/${file}: ${statement.trim()}`);
          }
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});
