import { ConfigError } from './config-error.ts';
import { dumpDomains } from './dump.ts';
import { configFromData } from './from-data.ts';
import { readDocument } from './read-document.ts';
import { buildDomains } from './tree.ts';
import type { ConfigFile, LoadOptions, RateLimitConfig } from './types.ts';
import { configVersion } from './version.ts';

export { ConfigError } from './config-error.ts';
export { configFromData } from './from-data.ts';
export type {
  Algorithm,
  ConfigData,
  ConfigFile,
  DescriptorNode,
  LimitLookup,
  LimitSpec,
  LoadOptions,
  MetadataValue,
  RateLimitConfig,
  RateLimitRule,
  RequestDescriptor,
  RequestEntry,
  Unit,
} from './types.ts';
export { ALGORITHMS, UNITS } from './types.ts';
export { configVersion } from './version.ts';

/**
 * Loads a set of YAML configuration files (in the given order, as the reference's provider does)
 * into an immutable configuration. Throws ConfigError with the reference's exact message; a
 * configuration is either loaded whole or not at all.
 */
export function loadConfig(files: readonly ConfigFile[], options: LoadOptions): RateLimitConfig {
  const documents = files.map((file) => ({ fileName: file.name, root: readDocument(file.name, file.text) }));
  const domains = buildDomains(documents, options.mergeDomainConfig);
  return configFromData({
    version: configVersion(files),
    files,
    domains,
    dump: dumpDomains(domains),
  });
}

/** True when `error` is a configuration the reference would reject (as opposed to a bug). */
export function isConfigError(error: unknown): error is ConfigError {
  return error instanceof ConfigError;
}
