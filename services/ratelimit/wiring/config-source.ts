// The configuration source CONFIG_TYPE names, started for one process, with the Kafka publisher of
// what the runtime folder or the xDS server gives (CONFIG_KAFKA_PUBLISH).
import type { Registry } from 'prom-client';
import type { Lifecycle } from '../../../shared/lifecycle.ts';
import type { Logger } from '../../../shared/logger.ts';
import { createConfigLoader, type LoadFiles } from '../adapters/config/config-loader.ts';
import type { XdsClientOptions } from '../adapters/config/xds-client.ts';
import type { StatsStore } from '../domain/stats.ts';
import type { ConfigSource, SourcedConfig } from '../ports.ts';
import type { RatelimitSettings } from '../settings/index.ts';
import type { HealthSetter } from './messages.ts';

/**
 * Starts the source: every configuration it loads (once) goes to `onConfig`, then to the publisher
 * when there is one. Resolves once the source runs.
 */
export async function startConfigSource(options: {
  settings: RatelimitSettings;
  logger: Logger;
  lifecycle: Lifecycle;
  stats: StatsStore;
  onConfig: (loaded: SourcedConfig) => void;
  /** loadConfig; tests count the loads through it. */
  loadFiles?: LoadFiles;
  /** CONFIG_TYPE=KAFKA: where the follower's component_running goes (/metrics). */
  registry?: Registry;
  /** CONFIG_TYPE=KAFKA: where the follower's health (`ratelimit.config`) goes. */
  health?: HealthSetter;
}): Promise<void> {
  const { settings, logger, lifecycle } = options;
  const loader = createConfigLoader({ stats: options.stats, logger, loadFiles: options.loadFiles });
  const kafka =
    settings.configType === 'KAFKA' || settings.configKafkaPublish
      ? (await import('./config-kafka.ts')).openConfigKafka({ settings, logger, lifecycle })
      : undefined;
  const publisher =
    kafka !== undefined && settings.configType !== 'KAFKA' && settings.configKafkaPublish
      ? kafka.startPublisher()
      : undefined;

  let source: ConfigSource;
  let name: string;
  // Each source is loaded only when used: a FILE instance never loads grpc-js (xDS) or kafkajs.
  if (settings.configType === 'FILE') {
    name = 'file watch';
    const { createFileConfigSource } = await import('../adapters/config/file-source.ts');
    source = createFileConfigSource({
      folder: {
        root: settings.runtimeRoot,
        subdirectory: settings.runtimeSubdirectory,
        appDirectory: settings.runtimeAppDirectory,
        watchRoot: settings.runtimeWatchRoot,
        ignoreDotFiles: settings.runtimeIgnoreDotFiles,
      },
      mergeDomainConfig: settings.mergeDomainConfig,
      loader,
      logger,
    });
  } else if (settings.configType === 'GRPC_XDS_SOTW') {
    name = 'xDS client';
    const { createXdsConfigSource } = await import('../adapters/config/xds-source.ts');
    source = createXdsConfigSource({
      client: xdsClientOptions(settings, logger),
      mergeDomainConfig: settings.mergeDomainConfig,
      loader,
    });
  } else {
    name = 'config follower';
    const { createSupervisedFollower } = await import('./config-follower.ts');
    source = createSupervisedFollower({
      kafka: kafka!,
      loader,
      logger,
      lifecycle,
      registry: options.registry,
      health: options.health ?? { setStatus: () => {} },
      giveUpAfterMs: settings.configKafkaGiveUpMs,
    });
  }
  lifecycle.onStop(name, () => source.stop());
  await source.start((loaded) => {
    options.onConfig(loaded);
    publisher?.offer({
      version: loaded.config.version,
      files: loaded.config.files,
      mergeDomainConfig: loaded.mergeDomainConfig,
    });
  });
}

/** The xDS client as the CONFIG_GRPC_XDS_* and XDS_CLIENT_* settings describe it. */
function xdsClientOptions(
  settings: RatelimitSettings,
  logger: Logger,
): Omit<XdsClientOptions, 'onResources'> {
  return {
    serverUrl: settings.xdsServerUrl,
    nodeId: settings.xdsNodeId,
    nodeMetadata: settings.xdsNodeMetadata,
    additionalHeaders: settings.xdsClientAdditionalHeaders,
    tls: settings.xdsServerUseTls
      ? {
          caFile: settings.xdsServerTlsCacert,
          certFile: settings.xdsClientTlsCert,
          keyFile: settings.xdsClientTlsKey,
          san: settings.xdsServerTlsSan,
        }
      : undefined,
    connectRetryIntervalMs: settings.xdsServerConnectRetryIntervalMs,
    backoff: {
      initialMs: settings.xdsBackoffInitialMs,
      maxMs: settings.xdsBackoffMaxMs,
      factor: settings.xdsBackoffRandomFactor,
      jitter: settings.xdsBackoffJitter,
    },
    maxMessageBytes: settings.xdsMaxMsgSizeBytes,
    logger: logger.child({ source: 'xds' }),
  };
}
