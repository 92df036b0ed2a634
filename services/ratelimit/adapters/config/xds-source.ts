// CONFIG_TYPE=GRPC_XDS_SOTW: each response converted (config/xds.ts) and loaded once; one that does
// not load is NACKed with the loader's message, neither applied nor counted (as the reference).

import { rateLimitConfigToFile } from '../../config/xds.ts';
import type { ConfigSource } from '../../ports.ts';
import type { ConfigLoader } from './config-loader.ts';
import { startXdsClient, type XdsClient, type XdsClientOptions } from './xds-client.ts';

export function createXdsConfigSource(options: {
  client: Omit<XdsClientOptions, 'onResources'>;
  mergeDomainConfig: boolean;
  loader: ConfigLoader;
}): ConfigSource {
  const { loader, mergeDomainConfig } = options;
  let client: XdsClient | undefined;
  let stopped = false;
  return {
    async start(onConfig) {
      client = startXdsClient({
        ...options.client,
        onResources(resources) {
          if (stopped) return 'stopping';
          let files: ReturnType<typeof rateLimitConfigToFile>[];
          try {
            files = resources.map(rateLimitConfigToFile);
          } catch (error) {
            return `cannot decode a RateLimitConfig resource: ${(error as Error).message}`;
          }
          const loaded = loader.loadOrExplain(files, mergeDomainConfig);
          if (typeof loaded === 'string') return loaded;
          onConfig({ config: loaded, source: 'xds', mergeDomainConfig });
          return undefined;
        },
      });
    },
    async stop() {
      stopped = true;
      await client?.stop();
    },
  };
}
