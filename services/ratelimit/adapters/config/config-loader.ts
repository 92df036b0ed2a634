// How a source loads what it found: once, counting config_load_success or config_load_error as the
// reference does, logging a failure with the loader's message; the last good configuration stays.
import type { Logger } from '../../../../shared/logger.ts';
import {
  type ConfigFile,
  isConfigError,
  type LoadOptions,
  loadConfig,
  type RateLimitConfig,
} from '../../config/index.ts';
import { SERVICE_STATS, type StatsStore } from '../../domain/stats.ts';

export type LoadFiles = (files: readonly ConfigFile[], options: LoadOptions) => RateLimitConfig;

export interface ConfigLoader {
  /**
   * Parses and validates `files`: the configuration, or undefined when they do not load (counted,
   * and logged naming `source`).
   */
  load(files: readonly ConfigFile[], source: string, mergeDomainConfig: boolean): RateLimitConfig | undefined;
  /**
   * The same for a source that answers a failure itself (xDS sends it back in a NACK): the
   * configuration, or the loader's message, neither counted nor logged.
   */
  loadOrExplain(files: readonly ConfigFile[], mergeDomainConfig: boolean): RateLimitConfig | string;
}

export function createConfigLoader(deps: {
  stats: StatsStore;
  logger: Logger;
  /** loadConfig; tests count the loads through it. */
  loadFiles?: LoadFiles;
}): ConfigLoader {
  const { logger } = deps;
  const loadFiles = deps.loadFiles ?? loadConfig;
  const loadSuccess = deps.stats.counter(SERVICE_STATS.configLoadSuccess);
  const loadError = deps.stats.counter(SERVICE_STATS.configLoadError);
  return {
    load(files, source, mergeDomainConfig) {
      try {
        const loaded = loadFiles(files, { mergeDomainConfig });
        loadSuccess.value++;
        return loaded;
      } catch (error) {
        loadError.value++;
        if (isConfigError(error))
          logger.error({ source }, `Error loading new configuration: ${error.message}`);
        else logger.error({ source, err: error }, 'Error loading new configuration: unexpected failure');
        return undefined;
      }
    },
    loadOrExplain(files, mergeDomainConfig) {
      try {
        const loaded = loadFiles(files, { mergeDomainConfig });
        loadSuccess.value++;
        return loaded;
      } catch (error) {
        if (isConfigError(error)) return error.message;
        return `cannot load the configuration: ${(error as Error).message}`;
      }
    },
  };
}
