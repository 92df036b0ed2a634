// Reads a topic's decoded events from the beginning, for assertions about what a service published.
import type { Kafka } from 'kafkajs';
import { loadCatalog } from '../../shared/avro/catalog.ts';
import { uniqueName } from './kafka.ts';
import { waitFor } from './wait-for.ts';

export interface TopicEvent {
  readonly key: string;
  readonly eventType: string;
  readonly payload: Record<string, unknown>;
}

const catalog = loadCatalog();

/**
 * Every event of `topic` whose key passes `keep`, read from the beginning until `enough` holds for
 * what was collected (or the wait times out with a message naming the topic).
 */
export async function readEvents(
  kafka: Kafka,
  topic: string,
  keep: (key: string) => boolean,
  enough: (events: readonly TopicEvent[]) => boolean,
  timeoutMs = 30_000,
): Promise<TopicEvent[]> {
  const consumer = kafka.consumer({ groupId: uniqueName('test-read-events'), maxWaitTimeInMs: 100 });
  const events: TopicEvent[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ message }) => {
        const key = message.key?.toString('utf8') ?? '';
        if (!keep(key) || !message.value) return;
        const { eventType, payload } = catalog.decode(message.value);
        events.push({ key, eventType, payload });
      },
    });
    await waitFor(`events on ${topic}`, () => enough(events), { timeoutMs });
    return events;
  } finally {
    await consumer.disconnect();
  }
}
