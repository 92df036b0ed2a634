import { createHash } from 'node:crypto';
import type { ConfigFile } from './types.ts';

/**
 * A configuration's identity: sha256 over the files sorted by name, each name and text
 * length-prefixed so that no two different file sets hash alike. Load order does not matter.
 */
export function configVersion(files: readonly ConfigFile[]): string {
  const hash = createHash('sha256');
  const sorted = files.toSorted((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const { name, text } of sorted) {
    for (const part of [name, text]) {
      const bytes = Buffer.from(part, 'utf8');
      hash.update(`${bytes.length}:`);
      hash.update(bytes);
    }
  }
  return hash.digest('hex');
}
