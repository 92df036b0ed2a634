// Loaded with --import into the rate limit service under test (every thread runs it): a worker
// thread throws an uncaught error, as a bug would, once a file named crash-<its threadId> appears in
// RATELIMIT_TEST_CRASH_DIR. The tests use it to lose one decision thread of an instance.
import { watch } from 'node:fs';
import { isMainThread, threadId } from 'node:worker_threads';

const dir = process.env.RATELIMIT_TEST_CRASH_DIR;
if (!isMainThread && dir !== undefined) {
  watch(dir, { persistent: false }, (_, name) => {
    if (name === `crash-${threadId}`)
      setImmediate(() => {
        throw new Error(`test: decision thread ${threadId} crashed on purpose`);
      });
  });
}
