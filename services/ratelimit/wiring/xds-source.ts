// CONFIG_TYPE=GRPC_XDS_SOTW: the xDS client fed from the settings. A response's configurations are
// loaded here first (so a NACK carries the loader's message and nothing is applied), then handed
// to `deliver` like a set of files read from the runtime folder (source `xds`), which applies them
// and publishes them on ratelimit.config.
import type { Logger } from '../../../shared/logger.ts';
import { startXdsClient, type XdsClient } from '../adapters/config/xds-client.ts';
import { isConfigError, loadConfig } from '../config/index.ts';
import type { RatelimitSettings } from '../settings/index.ts';
import type { FoundConfig } from './config-source.ts';

export function startXdsSource(options: {
  settings: RatelimitSettings;
  logger: Logger;
  deliver: (found: FoundConfig) => void;
}): XdsClient {
  const { settings, logger } = options;
  return startXdsClient({
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
    onResources(files) {
      try {
        loadConfig(files, { mergeDomainConfig: settings.mergeDomainConfig });
      } catch (error) {
        if (isConfigError(error)) return error.message;
        return `cannot load the configuration: ${(error as Error).message}`;
      }
      options.deliver({ files, source: 'xds', mergeDomainConfig: settings.mergeDomainConfig });
      return undefined;
    },
  });
}
