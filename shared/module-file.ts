import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The file of a module next to the caller, given without extension: `.ts` when the caller runs from
 * the sources, `.js` when it runs from the build (`dist/`), for what is loaded by path (worker
 * threads, cluster workers) rather than imported.
 */
export function moduleFile(callerUrl: string, relativeWithoutExtension: string): string {
  return fileURLToPath(new URL(`${relativeWithoutExtension}${extname(fileURLToPath(callerUrl))}`, callerUrl));
}
