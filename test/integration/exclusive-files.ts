// Integration files run two at a time (vitest.config.ts). Most make their own topics, groups and
// servers; these share something of which there is one on the machine, and hold its lock for the
// whole file (test/helpers/exclusive.ts, taken by test/integration/hold-exclusive.ts):
// - experiment-topics: the experiment service's fixed topics on the tests' broker. Two services at
//   once would each judge, persist and answer for the other's experiments (two early-stopping
//   judges in two groups both stop a trial).
// - kafka-cluster: the tests' three-broker cluster, started, broken and stopped by the file.
// test/unit/test-rules.test.ts checks that every file using the experiment topics is listed here.
export const EXCLUSIVE_FILES: Readonly<Record<string, readonly string[]>> = {
  'experiment-topics': [
    'build',
    'container-experiment',
    'controller-state-store',
    'dbmanager-python',
    'dbmanager',
    'earlystopping-pruners',
    'earlystopping-python',
    'earlystopping',
    'experiment-instances',
    'experiment-run',
    'http-gateway',
    'kafka-cluster', // its control instance runs on the tests' broker
    'nas-suggestion',
    'pareto-api',
    'persistence-consumer',
    'report-backpressure',
    'startup-retries',
    'suggestion',
    'web-page-objectives',
    'web-page-scale',
    'web-page',
  ],
  'kafka-cluster': ['kafka-cluster', 'kvupgrade-kafka-loss', 'ratelimit-kafka-cluster'],
};

/** The locks a test file holds, in one order for every file (so that two files never deadlock). */
export function locksOf(filepath: string): string[] {
  const file = /([^/]+)\.test\.ts$/.exec(filepath)?.[1];
  return Object.keys(EXCLUSIVE_FILES)
    .filter((lock) => file !== undefined && EXCLUSIVE_FILES[lock]!.includes(file))
    .sort();
}
