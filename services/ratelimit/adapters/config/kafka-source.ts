// CONFIG_TYPE=KAFKA: follows the compacted ratelimit.config topic from its beginning (in a group
// of its own), loading only the latest of the fleet's configurations read together.
import type { RateLimitConfigPublishedV1 } from '../../../../schemas/gen/events.ts';
import { type Bus, readTopic, TOPICS } from '../../../../shared/bus/index.ts';
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

export function createKafkaConfigSource(options: {
  bus: Bus;
  fleet: string;
  topic?: string;
  /** Called before the topic is read (declares it when missing). */
  beforeStart?: () => Promise<unknown>;
  loader: ConfigLoader;
  logger: Logger;
}): ConfigSource {
  const { loader, logger } = options;
  let reader: { stop(): Promise<void> } | undefined;
  let stopped = false;
  return {
    async start(onConfig) {
      await options.beforeStart?.();
      let latest: PublishedConfig | undefined;
      let scheduled = false;
      // After the events in hand (setImmediate runs once the current fetch has been handed over).
      const loadLatest = (): void => {
        scheduled = false;
        const published = latest;
        latest = undefined;
        if (published === undefined || stopped) return;
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
