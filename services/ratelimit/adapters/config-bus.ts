// The fleet's configuration on Kafka: a configuration that loaded cleanly is published whole on
// the compacted `ratelimit.config` topic, keyed by fleet (CONFIG_KAFKA_KEY), and every instance
// reads the topic from the beginning in a group of its own, so each sees every configuration and
// applies the latest of its fleet at once.

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';
import type { EventCatalog } from '../../../shared/avro/catalog.ts';
import { type ConsumedEvent, startWorker, type Worker } from '../../../shared/bus/consumer.ts';
import type { EventProducer } from '../../../shared/bus/producer.ts';
import { TOPICS } from '../../../shared/bus/topics.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { ConfigFile } from '../config/index.ts';

export const CONFIG_PUBLISHED = 'RateLimitConfigPublished';

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
  producer: EventProducer;
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

/** The payload of a consumed RateLimitConfigPublished, or undefined when it is another fleet's. */
export function publishedConfigOf(event: ConsumedEvent, fleet: string): PublishedConfig | undefined {
  if (event.eventType !== CONFIG_PUBLISHED) return undefined;
  const p = event.payload as {
    fleet: string;
    version: string;
    publisher: string;
    merge_domain_config: boolean;
    published_at: Date;
    files: Array<{ name: string; text: string }>;
  };
  if (p.fleet !== fleet) return undefined;
  return {
    version: p.version,
    files: p.files.map((f) => ({ name: f.name, text: f.text })),
    mergeDomainConfig: p.merge_domain_config,
    publisher: p.publisher,
    publishedAt: p.published_at,
  };
}

/**
 * Follows the topic and calls `apply` with the latest configuration of the fleet in each batch
 * (older ones in the same batch are superseded). `apply` must not throw for a configuration that
 * does not load: that is counted and logged by the caller, not a poison message.
 */
export async function subscribeToConfigs(options: {
  kafka: Kafka;
  catalog: EventCatalog;
  producer: EventProducer;
  fleet: string;
  logger: Logger;
  registry?: Registry;
  topic?: string;
  apply: (config: PublishedConfig) => void;
}): Promise<Worker> {
  return startWorker({
    kafka: options.kafka,
    catalog: options.catalog,
    producer: options.producer,
    logger: options.logger,
    registry: options.registry,
    groupId: `ratelimit-config-${options.fleet}-${hostname()}-${randomUUID()}`,
    topics: [options.topic ?? TOPICS.ratelimitConfig.name],
    fromBeginning: true,
    maxWaitTimeInMs: 500,
    handle: async (events) => {
      let latest: PublishedConfig | undefined;
      for (const event of events) latest = publishedConfigOf(event, options.fleet) ?? latest;
      if (latest !== undefined) options.apply(latest);
    },
  });
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
