// `npm run docs:settings`: writes docs/settings/<service>.md from the settings declarations (see
// scripts/docs-settings/pages.ts). Run it after adding or changing a setting; the unit test
// test/unit/scripts/docs-settings.test.ts fails until the committed pages match.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { settingsPages } from './docs-settings/pages.ts';

const root = join(import.meta.dirname, '..');
for (const { path, text } of settingsPages(root)) {
  const file = join(root, path);
  let before: string | undefined;
  try {
    before = readFileSync(file, 'utf8');
  } catch {
    before = undefined;
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  process.stdout.write(`${before === text ? 'unchanged' : 'written  '} ${path}\n`);
}
