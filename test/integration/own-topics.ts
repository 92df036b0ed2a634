// A setup file of the integration project: names the file's own experiment topics and groups
// (test/helpers/file-topics.ts) before the file is loaded, and deletes those topics after its last
// hook, so that the tests' broker does not gather every run's topics.
import { afterAll, expect, inject } from 'vitest';
import { nameTopicsOfFile, usedTopicPrefix } from '../helpers/file-topics.ts';

const filepath = expect.getState().testPath ?? '';
if (!filepath.endsWith('.test.ts')) throw new Error('own-topics: the worker names no test file');
nameTopicsOfFile(filepath);

afterAll(async () => {
  const prefix = usedTopicPrefix();
  if (prefix === undefined) return;
  const { openTestBus } = await import('../helpers/kafka.ts');
  const bus = openTestBus(inject('infra').KAFKA_BROKERS);
  try {
    const mine = (await bus.client.listTopics()).filter((topic) => topic.startsWith(prefix));
    if (mine.length > 0) await bus.client.deleteTopics(mine);
  } finally {
    await bus.close();
  }
}, 60_000);
