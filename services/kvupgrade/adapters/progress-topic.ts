import { type Bus, type EventProducer, readTopic } from '../../../shared/bus/index.ts';
import { PROGRESS_EVENT_TYPE, type UpgradeProgress } from '../domain/progress.ts';
import type { ProgressLog } from '../ports.ts';

/** kv.upgrade-progress through the shared bus: Avro single-object values, keyed by cluster. */
export function createProgressTopic(options: {
  readonly bus: Bus;
  /** May still be connecting: publishing waits for it. */
  readonly producer: Pick<EventProducer, 'publish'> | Promise<Pick<EventProducer, 'publish'>>;
  readonly topic: string;
}): ProgressLog {
  const { bus, producer, topic } = options;
  return {
    async publish(events) {
      if (events.length === 0) return;
      await (await producer).publish(
        topic,
        events.map((payload) => ({
          eventType: PROGRESS_EVENT_TYPE,
          key: payload.cluster,
          payload,
          correlationId: payload.run_id ?? payload.session_id,
        })),
      );
    },
    read: (cluster) => readProgressEvents(bus, topic, cluster),
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
