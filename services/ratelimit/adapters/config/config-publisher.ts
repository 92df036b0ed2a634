// CONFIG_KAFKA_PUBLISH: what the runtime folder or the xDS server gave, once loaded, published
// whole on the compacted ratelimit.config topic under the fleet's key (CONFIG_KAFKA_KEY).
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { type EventProducer, TOPICS } from '../../../../shared/bus/index.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { ConfigFile } from '../../config/index.ts';

export const CONFIG_PUBLISHED = 'RateLimitConfigPublished' as const;

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
