// The documents the walk reads and the order it walks them: README.md, then docs/, the documents
// whose commands build on what earlier ones did first (the instances before the HTTP API, whose
// reports the topic readers read back; kvupgrade's resume and rollback after the README's run),
// then every other Markdown file under docs/, by name.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type ReadmeCommand, readmeCommands } from './readme-commands.ts';

export const WALK_FIRST = [
  'README.md',
  'docs/operations.md',
  'docs/web.md',
  'docs/replay.md',
  'docs/ratelimit.md',
  'docs/kvupgrade.md',
] as const;

function markdownUnder(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(root, path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** README.md and every docs/**\/*.md, relative to `root`, in walk order. */
export function walkedDocuments(root: string): string[] {
  const docs = markdownUnder(root, 'docs').map((p) => relative(root, join(root, p)));
  const first = WALK_FIRST.filter((f) => f === 'README.md' || docs.includes(f));
  return [...first, ...docs.filter((d) => !(first as string[]).includes(d)).sort()];
}

/** Every command of every walked document, in walk order. */
export function walkedCommands(root: string): ReadmeCommand[] {
  return walkedDocuments(root).flatMap((file) =>
    readmeCommands(readFileSync(join(root, file), 'utf8'), file),
  );
}
