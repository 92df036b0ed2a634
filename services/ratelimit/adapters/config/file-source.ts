// CONFIG_TYPE=FILE: the runtime folder's configuration files, loaded at start and again after
// every change the watch sees (./file-provider.ts), each set of files loaded once.
import type { Logger } from '../../../../shared/logger.ts';
import type { ConfigSource } from '../../ports.ts';
import type { ConfigLoader } from './config-loader.ts';
import { createFileProvider, type FileProviderOptions } from './file-provider.ts';

export function createFileConfigSource(options: {
  folder: Omit<FileProviderOptions, 'logger'>;
  mergeDomainConfig: boolean;
  loader: ConfigLoader;
  logger: Logger;
}): ConfigSource {
  const { loader, logger, mergeDomainConfig } = options;
  const files = createFileProvider({ ...options.folder, logger });
  let stopWatching: (() => void) | undefined;
  let stopped = false;
  return {
    async start(onConfig) {
      const reload = (): void => {
        files.read().then(
          (found) => {
            if (stopped) return;
            const config = loader.load(found, 'files', mergeDomainConfig);
            if (config !== undefined) onConfig({ config, source: 'files', mergeDomainConfig });
          },
          (error: unknown) =>
            logger.error({ err: error }, 'Error loading new configuration: cannot read the files'),
        );
      };
      stopWatching = files.watch(reload);
      reload();
    },
    async stop() {
      stopped = true;
      stopWatching?.();
    },
  };
}
