// The experiment topics and groups of one integration test file. Every experiment service a file
// starts (test/helpers/experiment-server.ts) puts the file's own KAFKA_TOPIC_PREFIX before its
// topic and group names, so two files running at once on the tests' one broker never read each
// other's events. The setup file test/integration/own-topics.ts names the file before the file is
// loaded, and deletes the file's topics after its last hook.
import { basename } from 'node:path';
import { type ExperimentTopics, experimentTopics } from '../../services/experiment/common/bus-names.ts';

// One module instance per test file (vitest isolates files): set once by the setup file.
let prefix: string | undefined;
let used = false;

/** `test-<file>-<pid>.`: the file's name, and the pid, which two files running at once never share. */
export function topicPrefixOf(filepath: string, pid: number): string {
  const file = basename(filepath)
    .replace(/\.test\.ts$/, '')
    .replaceAll(/[^a-zA-Z0-9-]/g, '-');
  return `test-${file}-${pid}.`;
}

/** Called by the setup file, before the test file is loaded. */
export function nameTopicsOfFile(filepath: string): void {
  prefix = topicPrefixOf(filepath, process.pid);
}

/**
 * This file's prefix. Outside vitest (a bench starts servers with these helpers) there is none:
 * the service's own names, on a broker of the bench's own.
 */
export function fileTopicPrefix(): string {
  if (prefix === undefined) {
    if (process.env.VITEST)
      throw new Error(
        'fileTopicPrefix: the setup file test/integration/own-topics.ts has not named this file',
      );
    return '';
  }
  used = true;
  return prefix;
}

/** The experiment topics under this file's prefix, as its experiment services name them. */
export const fileTopics = (): ExperimentTopics => experimentTopics(fileTopicPrefix());

/** The prefix whose topics the setup file deletes at the end: none when the file never used it. */
export const usedTopicPrefix = (): string | undefined => (used ? prefix : undefined);
