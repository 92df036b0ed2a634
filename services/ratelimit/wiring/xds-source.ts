// CONFIG_TYPE=GRPC_XDS_SOTW: the xDS source as the CONFIG_GRPC_XDS_* and XDS_CLIENT_* settings
// describe it.
import type { Logger } from '../../../shared/logger.ts';
import type { ConfigLoader } from '../adapters/config/config-loader.ts';
import { createXdsConfigSource } from '../adapters/config/xds-source.ts';
import type { ConfigSource } from '../ports.ts';
import type { RatelimitSettings } from '../settings/index.ts';

export function xdsConfigSource(options: {
  settings: RatelimitSettings;
  logger: Logger;
  loader: ConfigLoader;
}): ConfigSource {
  const { settings, logger } = options;
  return createXdsConfigSource({
    client: {
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
    },
    mergeDomainConfig: settings.mergeDomainConfig,
    loader: options.loader,
  });
}
