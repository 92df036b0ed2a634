import {
  type Bus,
  createEventProducer,
  type EventProducer,
  readTopic,
  type TopicDeclaration,
} from '../../../shared/bus/index.ts';
import { PROGRESS_EVENT_TYPE, type UpgradeProgress } from '../domain/progress.ts';
import type { ProgressLog } from '../ports.ts';

/** kv.upgrade-progress through the shared bus: Avro single-object values, keyed by cluster. */
export function createProgressTopic(options: {
  readonly bus: Bus;
  readonly topic: TopicDeclaration;
}): ProgressLog & { close(): Promise<void> } {
  const { bus, topic } = options;
  let producer: Promise<EventProducer> | undefined;
  // Made once Kafka answers; a failed attempt is made again by the next publish (Kafka may be back).
  const connect = (): Promise<EventProducer> => {
    if (producer) return producer;
    const work = (async () => {
      await bus.ensureTopics([topic]);
      return createEventProducer(bus);
    })();
    const made = bus.link.guard(`connecting a producer for ${topic.name}`, () => work);
    producer = made;
    made.catch(() => {
      if (producer === made) producer = undefined;
      // Given up on while Kafka was lost: the producer it may still make is closed.
      void work.then((p) => p.disconnect()).catch(() => {});
    });
    return made;
  };
  // It gets ready while the events and the cluster are read.
  connect().catch(() => {});
  return {
    async publish(events) {
      if (events.length === 0) return;
      await (await connect()).publish(
        topic.name,
        events.map((payload) => ({
          eventType: PROGRESS_EVENT_TYPE,
          key: payload.cluster,
          payload,
          correlationId: payload.run_id ?? payload.session_id,
        })),
      );
    },
    read: (cluster) => readProgressEvents(bus, topic.name, cluster),
    async close() {
      await producer?.then((p) => p.disconnect()).catch(() => {});
    },
  };
}

/** Every event of `cluster` up to the topic's end when called (none when the topic does not exist yet). */
export async function readProgressEvents(
  bus: Bus,
  topic: string,
  cluster: string,
): Promise<UpgradeProgress[]> {
  if (!(await bus.topicExists(topic))) return [];
  const events: UpgradeProgress[] = [];
  const reader = await readTopic(bus, {
    topic,
    from: 'beginning',
    until: 'end',
    key: cluster,
    // One key lives on one partition, so its events arrive in order.
    onEvent: (event) => {
      if (event.eventType === PROGRESS_EVENT_TYPE) events.push(event.payload);
    },
  });
  await reader.done;
  return events;
}
