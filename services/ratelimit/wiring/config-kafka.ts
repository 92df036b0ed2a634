// Kafka for the configuration (CONFIG_TYPE=KAFKA or CONFIG_KAFKA_PUBLISH): one bus, a producer made
// when first needed (so FILE mode without a reachable Kafka still serves), the publisher of what
// this instance loads, and the ratelimit.config source. Imported only when Kafka is used.
import {
  createBus,
  createEventProducer,
  dlqOf,
  type EventProducer,
  TOPICS,
} from '../../../shared/bus/index.ts';
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { ConfigLoader } from '../adapters/config/config-loader.ts';
import {
  createConfigPublisher,
  createLatestConfigPublisher,
  type LatestConfigPublisher,
} from '../adapters/config/config-publisher.ts';
import { createKafkaConfigSource, type KafkaConfigSource } from '../adapters/config/kafka-source.ts';
import type { RatelimitSettings } from '../settings/index.ts';

export interface ConfigKafka {
  /** Publishes (in the background, latest first) what it is offered. */
  startPublisher(): LatestConfigPublisher;
  /** The ratelimit.config follower of this fleet (the topic declared before it is read). */
  createSource(loader: ConfigLoader, lastVersion: () => string | undefined): KafkaConfigSource;
  /** Whether Kafka answers now (fails at once while the link finds no broker). */
  ping(): Promise<void>;
  /** Called when Kafka is found lost or back; returns the function that removes the listener. */
  onLinkChange(listener: () => void): () => void;
}

export function openConfigKafka(options: {
  settings: RatelimitSettings;
  logger: Logger;
  lifecycle: Lifecycle;
}): ConfigKafka {
  const { settings, logger, lifecycle } = options;
  const bus = createBus({
    brokers: settings.kafkaBrokers,
    clientId: settings.kafkaClientId,
    client: settings.kafkaClient,
    failpoints: settings.kafkaFailpoints,
    logger,
  });
  lifecycle.onStop('kafka', () => bus.close());
  let producer: Promise<EventProducer> | undefined;
  const connectProducer = (): Promise<EventProducer> => {
    producer ??= (async () => {
      await bus.ensureTopics([TOPICS.ratelimitConfig, dlqOf(TOPICS.ratelimitConfig)]);
      return createEventProducer(bus);
    })().catch((error: unknown) => {
      producer = undefined;
      throw error;
    });
    return producer;
  };
  lifecycle.onStop('kafka producer', async () => {
    if (producer !== undefined) await (await producer.catch(() => undefined))?.disconnect();
  });

  return {
    startPublisher() {
      const publisher = createLatestConfigPublisher({
        connect: async () =>
          createConfigPublisher({ producer: await connectProducer(), fleet: settings.configKafkaKey }),
        logger,
        retryMs: 2_000,
      });
      lifecycle.onStop('config publisher', () => publisher.stop());
      return publisher;
    },
    createSource: (loader, lastVersion) =>
      createKafkaConfigSource({
        bus,
        fleet: settings.configKafkaKey,
        beforeStart: connectProducer, // declares the topic
        loader,
        logger,
        lastVersion,
      }),
    ping: () => bus.ping(),
    onLinkChange: (listener) => bus.link.onChange(() => listener()),
  };
}
