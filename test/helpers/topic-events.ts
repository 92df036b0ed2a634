// Reads a topic's decoded events from the beginning, for assertions about what a service published.
import { type Bus, type ConsumedEvent, readTopic } from '../../shared/bus/index.ts';
import { waitFor } from './wait-for.ts';

/**
 * Every event of `topic` whose key passes `keep`, read from the beginning until `enough` holds for
 * what was collected (or the wait times out with a message naming the topic).
 */
export async function readEvents(
  bus: Bus,
  topic: string,
  keep: (key: string) => boolean,
  enough: (events: readonly ConsumedEvent[]) => boolean,
  timeoutMs = 30_000,
): Promise<ConsumedEvent[]> {
  const events: ConsumedEvent[] = [];
  const reader = await readTopic(bus, {
    topic,
    from: 'beginning',
    until: 'follow',
    maxWaitMs: 100,
    onEvent: (event) => {
      if (keep(event.key ?? '')) events.push(event);
    },
  });
  try {
    await waitFor(`events on ${topic}`, () => enough(events), { timeoutMs });
    return events;
  } finally {
    await reader.stop();
  }
}

/** Every event of `topic` whose key passes `keep`, from the beginning to the end it had when asked. */
export async function readAllEvents(
  bus: Bus,
  topic: string,
  keep: (key: string) => boolean,
): Promise<ConsumedEvent[]> {
  const events: ConsumedEvent[] = [];
  const reader = await readTopic(bus, {
    topic,
    from: 'beginning',
    until: 'end',
    maxWaitMs: 100,
    onEvent: (event) => {
      if (keep(event.key ?? '')) events.push(event);
    },
  });
  await reader.done;
  return events;
}
