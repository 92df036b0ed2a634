// The fleet's configuration on Kafka: a configuration that loaded cleanly is published whole on
// the compacted `ratelimit.config` topic, keyed by fleet (CONFIG_KAFKA_KEY), and every instance
// reads the topic from the beginning in a group of its own, so each sees every configuration and
// applies the latest of its fleet at once.

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { RateLimitConfigPublishedV1 } from '../../../../schemas/gen/events.ts';
import { type Bus, type EventProducer, readTopic, TOPICS } from '../../../../shared/bus/index.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { ConfigFile } from '../../config/index.ts';

export const CONFIG_PUBLISHED = 'RateLimitConfigPublished' as const;

export interface PublishedConfig {
  readonly version: string;
  readonly files: readonly ConfigFile[];
  readonly mergeDomainConfig: boolean;
  readonly publisher: string;
  readonly publishedAt: Date;
}

export interface ConfigPublisher {
  /** Resolves once the broker acknowledged the configuration. */
  publish(config: {
    version: string;
    files: readonly ConfigFile[];
    mergeDomainConfig: boolean;
  }): Promise<void>;
}

export function createConfigPublisher(options: {
  producer: Pick<EventProducer, 'publish'>;
  fleet: string;
  topic?: string;
}): ConfigPublisher {
  const publisher = `${hostname()}/${process.pid}`;
  return {
    async publish(config) {
      await options.producer.publish(options.topic ?? TOPICS.ratelimitConfig.name, [
        {
          eventType: CONFIG_PUBLISHED,
          key: options.fleet,
          payload: {
            event_id: randomUUID(),
            published_at: new Date(),
            fleet: options.fleet,
            version: config.version,
            publisher,
            merge_domain_config: config.mergeDomainConfig,
            files: config.files.map((f) => ({ name: f.name, text: f.text })),
          },
        },
      ]);
    },
  };
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

export interface ConfigSubscription {
  stop(): Promise<void>;
}

/**
 * Follows the topic from its beginning and calls `apply` with the latest configuration of the
 * fleet: configurations read together (a start's backlog, a burst) are superseded by the last one,
 * so only that one is loaded. `apply` must not throw for a configuration that does not load: that
 * is counted and logged by the caller.
 */
export async function subscribeToConfigs(options: {
  bus: Bus;
  fleet: string;
  topic?: string;
  apply: (config: PublishedConfig) => void;
}): Promise<ConfigSubscription> {
  let latest: PublishedConfig | undefined;
  let scheduled = false;
  // After the events in hand (setImmediate runs once the current fetch has been handed over).
  const applyLatest = () => {
    scheduled = false;
    const config = latest;
    latest = undefined;
    if (config !== undefined) options.apply(config);
  };
  const reader = await readTopic(options.bus, {
    topic: options.topic ?? TOPICS.ratelimitConfig.name,
    from: 'beginning',
    until: 'follow',
    maxWaitMs: 500,
    onEvent: (event) => {
      if (event.eventType !== CONFIG_PUBLISHED) return;
      latest = publishedConfigOf(event.payload, options.fleet) ?? latest;
      if (!scheduled) {
        scheduled = true;
        setImmediate(applyLatest);
      }
    },
  });
  return { stop: () => reader.stop() };
}

export interface LatestConfigPublisher {
  /** Publishes `config` soon; a newer offer replaces one not yet sent. */
  offer(config: { version: string; files: readonly ConfigFile[]; mergeDomainConfig: boolean }): void;
  /** Resolves once the configurations offered so far were acknowledged (tests, shutdown). */
  idle(): Promise<void>;
  stop(): void;
}

/**
 * Publishing must never hold decisions back: configurations are sent in the background, the
 * latest one wins, and a Kafka outage is retried every `retryMs` until it passes.
 */
export function createLatestConfigPublisher(options: {
  connect: () => Promise<ConfigPublisher>;
  logger: Logger;
  retryMs: number;
  onPublished?: (version: string) => void;
}): LatestConfigPublisher {
  const { logger } = options;
  type Offer = Parameters<LatestConfigPublisher['offer']>[0];
  let pending: Offer | undefined;
  let publisher: Promise<ConfigPublisher> | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  const run = async (): Promise<void> => {
    while (pending !== undefined && !stopped) {
      const offer = pending;
      try {
        publisher ??= options.connect();
        await (await publisher).publish(offer);
        if (pending === offer) pending = undefined;
        logger.info({ version: offer.version }, 'published rate limit configuration');
        options.onPublished?.(offer.version);
      } catch (error) {
        publisher = undefined;
        logger.error(
          { err: error, retryInMs: options.retryMs },
          'publishing the configuration failed; retrying',
        );
        await new Promise((resolve) => setTimeout(resolve, options.retryMs).unref());
      }
    }
  };

  const kick = (): void => {
    running ??= run().finally(() => {
      running = undefined;
      if (pending !== undefined && !stopped) kick();
    });
  };

  return {
    offer(config) {
      pending = config;
      kick();
    },
    idle: async () => {
      while (running !== undefined) await running;
    },
    stop() {
      stopped = true;
    },
  };
}
