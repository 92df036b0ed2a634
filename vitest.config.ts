import { defineConfig } from 'vitest/config';
import { LateFilesSequencer } from './test/late-files-sequencer.ts';

export default defineConfig({
  test: {
    sequence: { sequencer: LateFilesSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          // A ceiling that catches a hang, not a slow machine: a CI run may share two cores with a bench.
          testTimeout: 30_000,
          // Pure logic, no process state between files: one module graph per worker, not one per
          // file, halves the project's time (89 s -> 44 s here; passes in shuffled file orders).
          isolate: false,
          // Its own group (projects of one group share one maxWorkers): before the integration
          // files, while the integration set-up prepares in the background.
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/integration/global-setup.ts'],
          // Locks, then the file's own experiment topics (test/integration/own-topics.ts).
          setupFiles: ['test/integration/hold-exclusive.ts', 'test/integration/own-topics.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // Two files at a time: most of a file's time is spent waiting on servers (group joins,
          // session timeouts, etcd elections), so two share the 2-core machine well. Files that
          // share what there is one of hold its lock (test/integration/exclusive-files.ts).
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
