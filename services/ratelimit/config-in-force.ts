// The configuration in force where decisions are made (the main thread's also serves /rlconfig): a new
// one replaces it in one assignment, so a request in flight keeps the one it started with.
import type { Logger } from '../../shared/logger.ts';
import type { RateLimitConfig } from './config/index.ts';
import type { SourcedConfig } from './ports.ts';

export interface ConfigInForce {
  current(): RateLimitConfig | undefined;
  /** Puts a loaded configuration in force. */
  apply(loaded: SourcedConfig): void;
  /** Resolves with the first configuration put in force. */
  readonly first: Promise<RateLimitConfig>;
}

export function createConfigInForce(deps: {
  logger: Logger;
  /** Called after each configuration is put in force (health's `config` component). */
  onApplied?: (config: RateLimitConfig) => void;
}): ConfigInForce {
  const { logger } = deps;
  let current: RateLimitConfig | undefined;
  const { promise: first, resolve: resolveFirst } = Promise.withResolvers<RateLimitConfig>();
  return {
    current: () => current,
    first,
    apply({ config, source }) {
      current = config;
      logger.info(
        { source, version: config.version, files: config.files.map((f) => f.name), domains: config.domains },
        'applied rate limit configuration',
      );
      logger.debug(`loaded descriptors:\n${config.dump()}`);
      deps.onApplied?.(config);
      resolveFirst(config);
    },
  };
}
