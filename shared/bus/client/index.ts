import { withFailpoints } from './failpoints.ts';
import type { KafkaClientName } from './names.ts';
import type { ClientOptions, KafkaClient } from './types.ts';

export { FAILPOINT_METHODS, type Failpoint, parseFailpoints, RETRIABLE_KAFKA_ERRORS } from './failpoints.ts';
export { KAFKA_CLIENTS, type KafkaClientName } from './names.ts';
export type * from './types.ts';

// A library is loaded only when a client of it is opened: loading @platformatic/kafka costs a
// process ~70 MiB of RSS (kafkajs ~17 MiB), which a process on the other library should not pay.
const LOADERS: Record<KafkaClientName, () => Promise<(options: ClientOptions) => KafkaClient>> = {
  kafkajs: async () => (await import('./kafkajs.ts')).createKafkajsClient,
  platformatic: async () => (await import('./platformatic.ts')).createPlatformaticClient,
};

/** The client of library `name`; the library loads on the first call. */
export function openKafkaClient(name: KafkaClientName, options: ClientOptions): KafkaClient {
  const loaded = LOADERS[name]().then((create) => withFailpoints(create(options), options.failpoints ?? []));
  loaded.catch(() => undefined); // each call reports a failure to load
  const client = (): Promise<KafkaClient> => loaded;
  return {
    name,
    listTopics: async () => (await client()).listTopics(),
    createTopics: async (declarations) => (await client()).createTopics(declarations),
    deleteTopics: async (names) => (await client()).deleteTopics(names),
    addPartitions: async (topic, count) => (await client()).addPartitions(topic, count),
    partitionCounts: async (names) => (await client()).partitionCounts(names),
    watermarks: async (topic) => (await client()).watermarks(topic),
    partitionStates: async (topic) => (await client()).partitionStates(topic),
    offsetsAtTime: async (topic, ms) => (await client()).offsetsAtTime(topic, ms),
    committedOffsets: async (groupId, topic) => (await client()).committedOffsets(groupId, topic),
    setCommittedOffsets: async (groupId, topic, offsets) =>
      (await client()).setCommittedOffsets(groupId, topic, offsets),
    deleteGroups: async (groupIds) => (await client()).deleteGroups(groupIds),
    ping: async () => (await client()).ping(),
    createProducer: async () => (await client()).createProducer(),
    sendInTransaction: async (records) => (await client()).sendInTransaction(records),
    consume: async (options) => (await client()).consume(options),
    close: async () => (await client()).close(),
  };
}
