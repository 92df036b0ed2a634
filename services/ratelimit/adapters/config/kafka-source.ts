// CONFIG_TYPE=KAFKA: follows the compacted ratelimit.config topic from its beginning (in a group
// of its own), loading only the latest of the fleet's configurations read together, and not again
// the version it last handed over (a follower started again reads the topic from its beginning).
import type { RateLimitConfigPublishedV1 } from '../../../../schemas/gen/events.ts';
import { type Bus, readTopic, TOPICS, type TopicReader } from '../../../../shared/bus/index.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { ConfigFile } from '../../config/index.ts';
import type { ConfigSource } from '../../ports.ts';
import type { ConfigLoader } from './config-loader.ts';
import { CONFIG_PUBLISHED } from './config-publisher.ts';

export interface PublishedConfig {
  readonly version: string;
  readonly files: readonly ConfigFile[];
  readonly mergeDomainConfig: boolean;
  readonly publisher: string;
  readonly publishedAt: Date;
}

/** The configuration an event carries, or undefined when it is another fleet's. */
export function publishedConfigOf(
  payload: RateLimitConfigPublishedV1,
  fleet: string,
): PublishedConfig | undefined {
  if (payload.fleet !== fleet) return undefined;
  return {
    version: payload.version,
    files: payload.files.map((f) => ({ name: f.name, text: f.text })),
    mergeDomainConfig: payload.merge_domain_config,
    publisher: payload.publisher,
    publishedAt: payload.published_at,
  };
}

export interface KafkaConfigSource extends ConfigSource {
  /** Once started: rejects when the follower stops on an error (its consumer failed), resolves when stopped. */
  ended(): Promise<void>;
}

export function createKafkaConfigSource(options: {
  bus: Bus;
  fleet: string;
  topic?: string;
  /** Called before the topic is read (declares it when missing). */
  beforeStart?: () => Promise<unknown>;
  loader: ConfigLoader;
  logger: Logger;
  /** The version an earlier follower of this process handed over last, if any. */
  lastVersion?: () => string | undefined;
}): KafkaConfigSource {
  const { loader, logger } = options;
  let reader: TopicReader | undefined;
  let stopped = false;
  return {
    ended: () => reader?.done ?? Promise.reject(new Error('the configuration follower has not started')),
    async start(onConfig) {
      await options.beforeStart?.();
      let latest: PublishedConfig | undefined;
      let scheduled = false;
      // After the events in hand (setImmediate runs once the current fetch has been handed over).
      const loadLatest = (): void => {
        scheduled = false;
        const published = latest;
        latest = undefined;
        if (published === undefined || stopped || published.version === options.lastVersion?.()) return;
        const source = `kafka:${published.publisher}`;
        const config = loader.load(published.files, source, published.mergeDomainConfig);
        if (config === undefined) return;
        if (config.version !== published.version)
          logger.warn(
            { published: published.version, loaded: config.version },
            'configuration version differs from the published one',
          );
        onConfig({ config, source, mergeDomainConfig: published.mergeDomainConfig });
      };
      reader = await readTopic(options.bus, {
        topic: options.topic ?? TOPICS.ratelimitConfig.name,
        from: 'beginning',
        until: 'follow',
        maxWaitMs: 500,
        onEvent: (event) => {
          if (event.eventType !== CONFIG_PUBLISHED) return;
          latest = publishedConfigOf(event.payload, options.fleet) ?? latest;
          if (!scheduled) {
            scheduled = true;
            setImmediate(loadLatest);
          }
        },
      });
    },
    async stop() {
      stopped = true;
      await reader?.stop();
    },
  };
}
