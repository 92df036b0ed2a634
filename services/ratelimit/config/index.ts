import { ConfigError } from './config-error.ts';
import { dumpDomains } from './dump.ts';
import { findLimit } from './match.ts';
import { readDocument } from './read-document.ts';
import { overrideRule, ruleFromMatch } from './rule.ts';
import { buildDomains } from './tree.ts';
import type {
  ConfigData,
  ConfigFile,
  LimitLookup,
  LoadOptions,
  RateLimitConfig,
  RequestDescriptor,
} from './types.ts';
import { configVersion } from './version.ts';

export { ConfigError } from './config-error.ts';
export type {
  ConfigData,
  ConfigFile,
  LimitLookup,
  LoadOptions,
  MetadataValue,
  RateLimitConfig,
  RateLimitRule,
  RequestDescriptor,
  RequestEntry,
  Unit,
} from './types.ts';
export { UNITS } from './types.ts';
export { configVersion } from './version.ts';

const NO_LIMIT: LimitLookup = Object.freeze({ kind: 'no-limit' });
const DOMAIN_NOT_FOUND: LimitLookup = Object.freeze({ kind: 'domain-not-found' });

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

/** The configuration `data` describes (one loadConfig gave, carried here by structured clone): no parsing, no checks. */
export function configFromData(data: ConfigData): RateLimitConfig {
  const { domains, dump } = data;
  const files = Object.freeze(data.files.map((file) => Object.freeze({ name: file.name, text: file.text })));
  const frozen: ConfigData = Object.freeze({ version: data.version, files, domains, dump });
  return Object.freeze({
    version: data.version,
    files,
    domains: Object.freeze([...domains.keys()]),
    data: frozen,
    getLimit(domain: string, descriptor: RequestDescriptor): LimitLookup {
      const root = domains.get(domain);
      if (root === undefined) return DOMAIN_NOT_FOUND;
      const override = overrideRule(domain, descriptor);
      if (override !== undefined) return { kind: 'limit', rule: override };
      const match = findLimit(root, descriptor.entries);
      return match === undefined
        ? NO_LIMIT
        : { kind: 'limit', rule: ruleFromMatch(domain, descriptor.entries, match) };
    },
    dump: () => dump,
  });
}

/** True when `error` is a configuration the reference would reject (as opposed to a bug). */
export function isConfigError(error: unknown): error is ConfigError {
  return error instanceof ConfigError;
}
