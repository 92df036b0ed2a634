import { describe, expect, it } from 'vitest';
import { circles, importGraph, importsOf, sourceFiles } from './import-graph.ts';

describe('import graph', () => {
  it('has no circle among the sources, scripts, benches and tests', () => {
    const graph = importGraph(sourceFiles(['services', 'shared', 'scripts', 'bench', 'test']));
    expect(graph.size).toBeGreaterThan(200);
    expect(circles(graph)).toEqual([]);
  });

  it('finds a two-file circle, a longer one and a self-import, and nothing in a chain', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['a.ts']],
      ['c.ts', ['d.ts']],
      ['d.ts', ['e.ts']],
      ['e.ts', ['c.ts', 'f.ts']],
      ['f.ts', []],
      ['g.ts', ['g.ts']],
      ['h.ts', ['f.ts']],
    ]);
    expect(circles(graph)).toEqual([['a.ts', 'b.ts'], ['c.ts', 'd.ts', 'e.ts'], ['g.ts']]);
  });

  it('reads imports and re-exports across lines, type-only ones included, and skips packages and comments', () => {
    const text = [
      "import { a } from './a.ts';",
      'import {',
      '  type B,',
      "} from '../b/b.ts';",
      "export { c } from './c.ts';",
      "export type { D } from './d.ts';",
      "import './side-effect.ts';",
      "const lazy = await import('./lazy.ts');",
      "import { e } from 'node:fs';",
      "// import { f } from './commented.ts';",
    ].join('\n');
    expect(importsOf('x/y/file.ts', text)).toEqual([
      'x/y/a.ts',
      'x/b/b.ts',
      'x/y/c.ts',
      'x/y/d.ts',
      'x/y/side-effect.ts',
      'x/y/lazy.ts',
    ]);
  });
});
