// Where configurations come from: the runtime folder (watched; published on Kafka unless
// CONFIG_KAFKA_PUBLISH=false) or the Kafka broadcast (CONFIG_TYPE=KAFKA). Every set of files found is
// handed to `deliver`; the caller applies it (one process) or forwards it to the workers. Kafka is
// loaded only when this module's caller uses it.
import type { EventProducer } from '../../../shared/bus/index.ts';
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import { createFileProvider } from '../adapters/config/file-provider.ts';
import type { ConfigFile, RateLimitConfig } from '../config/index.ts';
import type { RatelimitSettings } from '../settings/index.ts';

export interface FoundConfig {
  readonly files: readonly ConfigFile[];
  /** `files`, `xds`, or `kafka:<publisher>`. */
  readonly source: string;
  readonly mergeDomainConfig: boolean;
  /** The version the publisher loaded (Kafka only), to warn when ours differs. */
  readonly publishedVersion?: string;
}

/**
 * Starts watching (or subscribing); every set of files found goes to `apply`, which loads it and
 * returns the configuration (undefined when it did not load); a clean load of the folder's files is
 * then published when configured to.
 */
export async function startConfigSource(options: {
  settings: RatelimitSettings;
  logger: Logger;
  lifecycle: Lifecycle;
  apply: (found: FoundConfig) => RateLimitConfig | undefined;
}): Promise<void> {
  const { settings, logger, lifecycle } = options;
  const usesKafka = settings.configType === 'KAFKA' || settings.configKafkaPublish;

  // Kafka (loaded only when used): the producer is made only when first needed, so FILE mode
  // without Kafka still serves.
  const kafka = usesKafka
    ? {
        ...(await import('../../../shared/bus/index.ts')),
        ...(await import('../adapters/config/config-bus.ts')),
      }
    : undefined;
  let connectProducer: () => Promise<EventProducer> = () => Promise.reject(new Error('Kafka is not used'));
  const bus = kafka
    ? kafka.createBus({
        brokers: settings.kafkaBrokers,
        clientId: settings.kafkaClientId,
        client: settings.kafkaClient,
        logger,
      })
    : undefined;
  if (kafka !== undefined && bus !== undefined) {
    const { TOPICS, dlqOf, createEventProducer } = kafka;
    lifecycle.onStop('kafka', () => bus.close());
    let producer: Promise<EventProducer> | undefined;
    connectProducer = () => {
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
  }

  const publisher =
    kafka !== undefined && settings.configType !== 'KAFKA' && settings.configKafkaPublish
      ? kafka.createLatestConfigPublisher({
          connect: async () =>
            kafka.createConfigPublisher({
              producer: await connectProducer(),
              fleet: settings.configKafkaKey,
            }),
          logger,
          retryMs: 2_000,
        })
      : undefined;
  if (publisher !== undefined) lifecycle.onStop('config publisher', () => publisher.stop());

  const deliver = (found: FoundConfig): void => {
    const config = options.apply(found);
    if (config === undefined) return;
    if (found.publishedVersion !== undefined && config.version !== found.publishedVersion)
      logger.warn(
        { published: found.publishedVersion, loaded: config.version },
        'configuration version differs from the published one',
      );
    if (publisher !== undefined && (found.source === 'files' || found.source === 'xds'))
      publisher.offer({
        version: config.version,
        files: config.files,
        mergeDomainConfig: found.mergeDomainConfig,
      });
  };

  if (settings.configType === 'FILE') {
    const files = createFileProvider({
      root: settings.runtimeRoot,
      subdirectory: settings.runtimeSubdirectory,
      appDirectory: settings.runtimeAppDirectory,
      watchRoot: settings.runtimeWatchRoot,
      ignoreDotFiles: settings.runtimeIgnoreDotFiles,
      logger,
    });
    const reload = (): void => {
      files.read().then(
        (found) => deliver({ files: found, source: 'files', mergeDomainConfig: settings.mergeDomainConfig }),
        (error: unknown) =>
          logger.error({ err: error }, 'Error loading new configuration: cannot read the files'),
      );
    };
    lifecycle.onStop('file watch', files.watch(reload));
    reload();
  } else if (settings.configType === 'GRPC_XDS_SOTW') {
    const { startXdsSource } = await import('./xds-source.ts');
    const xds = startXdsSource({ settings, logger, deliver });
    lifecycle.onStop('xDS client', () => xds.stop());
  } else if (kafka !== undefined && bus !== undefined) {
    await connectProducer(); // declares the topic
    const subscription = await kafka.subscribeToConfigs({
      bus,
      fleet: settings.configKafkaKey,
      apply: (published) =>
        deliver({
          files: published.files,
          source: `kafka:${published.publisher}`,
          mergeDomainConfig: published.mergeDomainConfig,
          publishedVersion: published.version,
        }),
    });
    lifecycle.onStop('config subscription', () => subscription.stop());
  }
}
