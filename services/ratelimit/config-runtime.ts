// The configuration in force: a set of files is loaded whole or not at all; a clean load replaces
// the previous configuration in one assignment (a request in flight keeps the one it started
// with), an invalid one keeps the last good one and counts `config_load_error`.
import type { Logger } from '../../shared/logger.ts';
import { type ConfigFile, isConfigError, loadConfig, type RateLimitConfig } from './config/index.ts';
import { SERVICE_STATS, type StatsStore } from './domain/stats.ts';

export interface ConfigRuntime {
  current(): RateLimitConfig | undefined;
  /** Loads and applies `files`; the loaded configuration, or undefined when they did not load. */
  apply(
    files: readonly ConfigFile[],
    source: string,
    mergeDomainConfig: boolean,
  ): RateLimitConfig | undefined;
  /** Resolves with the first configuration applied. */
  readonly first: Promise<RateLimitConfig>;
}

export function createConfigRuntime(deps: {
  stats: StatsStore;
  logger: Logger;
  /** Called after every clean load (health's `config` component, publishing). */
  onApplied?: (config: RateLimitConfig, source: string) => void;
}): ConfigRuntime {
  const { stats, logger } = deps;
  const loadSuccess = stats.counter(SERVICE_STATS.configLoadSuccess);
  const loadError = stats.counter(SERVICE_STATS.configLoadError);
  let current: RateLimitConfig | undefined;
  let resolveFirst: (config: RateLimitConfig) => void = () => {};
  const first = new Promise<RateLimitConfig>((resolve) => {
    resolveFirst = resolve;
  });

  return {
    current: () => current,
    first,
    apply(files, source, mergeDomainConfig) {
      let loaded: RateLimitConfig;
      try {
        loaded = loadConfig(files, { mergeDomainConfig });
      } catch (error) {
        loadError.value++;
        if (isConfigError(error))
          logger.error({ source }, `Error loading new configuration: ${error.message}`);
        else logger.error({ source, err: error }, 'Error loading new configuration: unexpected failure');
        return undefined;
      }
      current = loaded;
      loadSuccess.value++;
      logger.info(
        { source, version: loaded.version, files: files.map((f) => f.name), domains: loaded.domains },
        'applied rate limit configuration',
      );
      logger.debug(`loaded descriptors:\n${loaded.dump()}`);
      deps.onApplied?.(loaded, source);
      resolveFirst(loaded);
      return loaded;
    },
  };
}
