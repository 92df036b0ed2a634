import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { infraRows } from '../../../scripts/docs-settings/infra.ts';
import { settingsPages } from '../../../scripts/docs-settings/pages.ts';
import { defaultCell, settingsTable, specRows } from '../../../scripts/docs-settings/render.ts';
import { documented, int, str } from '../../../shared/settings.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');

describe('the settings pages (docs/settings/)', () => {
  const pages = settingsPages(ROOT);

  it('has a page per service and one for the infrastructure scripts', () => {
    expect(pages.map((p) => p.path)).toEqual([
      'docs/settings/experiment.md',
      'docs/settings/ratelimit.md',
      'docs/settings/kvupgrade.md',
      'docs/settings/replay.md',
      'docs/settings/infra.md',
    ]);
  });

  it.each(pages.map((p) => [p.path, p.text]))('%s is what npm run docs:settings writes', (path, text) => {
    let committed: string;
    try {
      committed = readFileSync(join(ROOT, path), 'utf8');
    } catch {
      committed = '(missing)';
    }
    // On a difference: run `npm run docs:settings` and commit the pages it writes.
    expect(committed).toBe(text);
  });
});

describe('specRows', () => {
  it('gives variable, default, allowed and meaning, as Markdown cells', () => {
    const spec = documented(
      { port: int('A_PORT', 80, { min: 1, max: 9 }), name: str('A_NAME', '', 'a <name>') },
      { port: 'the port', name: 'the name' },
    );
    expect(specRows(spec, 'x.ts')).toEqual([
      { variable: '`A_PORT`', default: '`80`', allowed: 'an integer from 1 to 9', meaning: 'the port' },
      { variable: '`A_NAME`', default: '(empty)', allowed: 'a &lt;name&gt;', meaning: 'the name' },
    ]);
  });

  it('refuses a setting without a meaning, naming it and where to add one', () => {
    const spec = documented({ port: int('A_PORT', 80), name: str('A_NAME') }, { port: 'the port' });
    expect(() => specRows(spec, 'services/a/settings.ts')).toThrow(
      'A_NAME (services/a/settings.ts) has no meaning: add it to the documented(...) call there',
    );
  });
});

describe('defaultCell', () => {
  it.each([
    [undefined, '(required)'],
    ['', '(empty)'],
    ['6789', '`6789`'],
    ['-Xms256m -Xmx512m', '`-Xms256m -Xmx512m`'],
    ['true when EXPERIMENT_SERVICES has dbmanager', 'true when EXPERIMENT_SERVICES has dbmanager'],
    ['the cores available (`n`)', 'the cores available (`n`)'],
  ])('%j → %s', (text, cell) => {
    expect(defaultCell(text)).toBe(cell);
  });
});

describe('settingsTable', () => {
  it('escapes a | in any cell', () => {
    expect(settingsTable([{ variable: '`A`', default: '`x|y`', allowed: 'a', meaning: 'as `|#k:v`' }])).toBe(
      '| variable | default | allowed | meaning |\n|---|---|---|---|\n| `A` | `x\\|y` | a | as `\\|#k:v` |',
    );
  });
});

describe('infraRows', () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  function scripts(infraSh: string, part = '', bench = ''): string {
    root = mkdtempSync(join(tmpdir(), 'docs-settings-'));
    mkdirSync(join(root, 'scripts', 'infra'), { recursive: true });
    writeFileSync(join(root, 'scripts', 'infra.sh'), infraSh);
    writeFileSync(join(root, 'scripts', 'infra', 'stores.sh'), part);
    writeFileSync(join(root, 'scripts', 'bench-infra.sh'), bench);
    return root;
  }

  it("reads the scripts' variables, with each profile's shift spelled out", () => {
    const dir = scripts(
      [
        '  product) PORT_SHIFT=0; PROFILE_HOME=$ROOT/.infra ;;',
        '  test) PORT_SHIFT=10000; PROFILE_HOME=$ROOT/.infra/test ;;',
        'PORT_SHIFT=${INFRA_PORT_SHIFT:-$PORT_SHIFT}',
        'KAFKA_PORT=${KAFKA_PORT:-$((9092 + PORT_SHIFT))}',
        'echo ${1:-status}',
      ].join('\n'),
      'd=${POSTGRES_DATA_DIR:-}',
    );
    const meanings = { INFRA_PORT_SHIFT: 'shift', KAFKA_PORT: 'broker', POSTGRES_DATA_DIR: 'folder' };
    expect(infraRows(dir, meanings).map((r) => [r.variable, r.default, r.meaning])).toEqual([
      ['`INFRA_PORT_SHIFT`', "the profile's: `0` (product), `10000` (test)", 'shift'],
      ['`KAFKA_PORT`', '`9092` + the port shift', 'broker'],
      ['`POSTGRES_DATA_DIR`', '(unset)', 'folder'],
    ]);
  });

  it('refuses a variable without a meaning', () => {
    const dir = scripts('X=${NEW_THING:-1}');
    expect(() => infraRows(dir, {})).toThrow(
      'NEW_THING (read by the infrastructure scripts) has no meaning in scripts/docs-settings/infra.ts',
    );
  });

  it('refuses a meaning whose variable no script reads any more', () => {
    const dir = scripts('X=${KAFKA_PORT:-1}', '', 'k=${BENCH_KEEP_INFRA:-}');
    expect(() =>
      infraRows(dir, { KAFKA_PORT: 'broker', BENCH_KEEP_INFRA: 'keep', OLD_THING: 'gone' }),
    ).toThrow('scripts/docs-settings/infra.ts has meanings for OLD_THING, which no script reads');
  });
});
