// The live streams' pump: one reader per topic per process (readTopic from the end, following),
// each event turned into what the page shows and handed to the hub (./live-hub.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { type Bus, readTopic, type TopicReader } from '../../../../shared/bus/index.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { ExperimentTopics } from '../../common/bus-names.ts';
import { toLiveMessage } from '../live-messages.ts';
import type { LiveHub } from './live-hub.ts';

/**
 * The hub fed from Kafka: one reader per topic, from the topics' ends. A reader that cannot start or
 * fails later is started again (from the end it then has) after a growing pause: the page works
 * without live updates meanwhile, and the service never fails for want of them.
 */
export function startLiveStream(options: {
  bus: Bus;
  topics: Pick<
    ExperimentTopics,
    'observations' | 'trialStatus' | 'earlyStoppingRules' | 'suggestions' | 'experiments'
  >;
  hub: LiveHub;
  logger: Logger;
}): {
  /** Resolves once every reader started once (it may have failed and be retrying since). */
  readonly started: Promise<void>;
  stop(): Promise<void>;
} {
  const { observations, trialStatus, earlyStoppingRules, suggestions, experiments } = options.topics;
  const topics = [observations, trialStatus, earlyStoppingRules, suggestions, experiments];
  const stopping = new AbortController();
  const readers = new Set<TopicReader>();
  const starts: Promise<void>[] = [];

  const follow = async (topic: string, startedOnce: () => void): Promise<void> => {
    for (let attempt = 0; !stopping.signal.aborted; attempt++) {
      try {
        const reader = await readTopic(options.bus, {
          topic,
          from: 'end',
          until: 'follow',
          onEvent: (event) => {
            const message = toLiveMessage(event);
            if (message) options.hub.publish(message);
          },
        });
        readers.add(reader);
        startedOnce();
        if (stopping.signal.aborted) await reader.stop();
        await reader.done.finally(() => readers.delete(reader));
        if (stopping.signal.aborted) return;
        attempt = 0;
      } catch (error) {
        if (stopping.signal.aborted) return;
        options.logger.warn({ err: error, topic, attempt }, 'a live stream reader failed; starting it again');
      }
      const pauseMs = Math.min(30_000, 500 * 2 ** attempt);
      await sleep(pauseMs, undefined, { signal: stopping.signal }).catch(() => undefined);
    }
  };
  const running = topics.map((topic) => {
    let startedOnce = (): void => {};
    starts.push(new Promise<void>((resolve) => (startedOnce = resolve)));
    return follow(topic.name, startedOnce);
  });

  return {
    started: Promise.all(starts).then(() => undefined),
    stop: async () => {
      stopping.abort();
      await Promise.all([...readers].map((r) => r.stop()));
      await Promise.allSettled(running);
      await options.hub.stop();
    },
  };
}
