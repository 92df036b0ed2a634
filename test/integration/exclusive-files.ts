// Integration files run two at a time (vitest.config.ts). Most make their own topics, groups and
// servers; these share something of which there is one on the machine, and hold its lock for the
// whole file (test/helpers/exclusive.ts, taken by test/integration/hold-exclusive.ts):
// - experiment-topics: the experiment service's fixed topic and group names on the tests' broker
//   (KAFKA_TOPIC_PREFIX empty). Two services on them at once would each judge, persist and answer
//   for the other's experiments. No file needs them now: every experiment service a test starts
//   has the file's own prefix (test/helpers/file-topics.ts), and tests read its topics by its
//   names (`server.topics`, `fileTopics()`). A file that must use the fixed names (one testing the
//   empty prefix on the tests' broker, say) goes here.
// - kafka-cluster: the tests' three-broker cluster, started, broken and stopped by the file.
// test/unit/structure/exclusive-files.test.ts checks that every file using the fixed experiment
// names is listed under experiment-topics, and that only such files are.
export const EXCLUSIVE_FILES: Readonly<Record<string, readonly string[]>> = {
  'experiment-topics': [],
  'kafka-cluster': ['kafka-cluster', 'kvupgrade-kafka-loss', 'ratelimit-kafka-cluster'],
};

/** The locks a test file holds, in one order for every file (so that two files never deadlock). */
export function locksOf(
  filepath: string,
  table: Readonly<Record<string, readonly string[]>> = EXCLUSIVE_FILES,
): string[] {
  const file = /([^/]+)\.test\.ts$/.exec(filepath)?.[1];
  return Object.keys(table)
    .filter((lock) => file !== undefined && table[lock]!.includes(file))
    .sort();
}
