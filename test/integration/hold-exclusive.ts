// A setup file of the integration project: before a file's own hooks, it takes the locks the file
// needs (test/integration/exclusive-files.ts) and gives them back after its last hook.
import { afterAll, beforeAll } from 'vitest';
import { holdExclusive, releaseExclusive } from '../helpers/exclusive.ts';
import { locksOf } from './exclusive-files.ts';

let held: string[] = [];

// The ceiling covers waiting for the other worker's file that holds a lock, however long it runs.
// biome-ignore lint/correctness/noEmptyPattern: vitest reads which fixtures a hook takes from this pattern; the suite is the second argument
beforeAll(async ({}, suite) => {
  const filepath = 'filepath' in suite ? String(suite.filepath) : '';
  if (!filepath.endsWith('.test.ts')) throw new Error('hold-exclusive: the suite names no test file');
  for (const lock of locksOf(filepath)) {
    const waitedMs = await holdExclusive(lock);
    held.push(lock);
    if (waitedMs > 1_000)
      process.stdout.write(
        `[lock] ${filepath.split('/').pop()} waited ${(waitedMs / 1000).toFixed(0)} s for ${lock}\n`,
      );
  }
}, 25 * 60_000);

afterAll(() => {
  for (const lock of held.reverse()) releaseExclusive(lock);
  held = [];
});
