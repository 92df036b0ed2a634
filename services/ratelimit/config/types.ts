/** Units a configured limit may use (the RLS v3 `RateLimitResponse.RateLimit.Unit` names, without UNKNOWN). */
export type Unit = 'SECOND' | 'MINUTE' | 'HOUR' | 'DAY' | 'WEEK' | 'MONTH' | 'YEAR';

export const UNITS: readonly Unit[] = Object.freeze([
  'SECOND',
  'MINUTE',
  'HOUR',
  'DAY',
  'WEEK',
  'MONTH',
  'YEAR',
]);

/** One configuration file; `name` is already in the reference's form (e.g. `config.basic.yaml`). */
export interface ConfigFile {
  readonly name: string;
  readonly text: string;
}

export interface RequestEntry {
  readonly key: string;
  readonly value: string;
}

export interface RequestDescriptor {
  readonly entries: readonly RequestEntry[];
  /** The request's limit override (RLS `RateLimitDescriptor.limit`). */
  readonly limit?: { readonly requestsPerUnit: number; readonly unit: Unit };
}

/** What a descriptor's YAML `metadata` becomes (a google.protobuf.Struct in the reference). */
export type MetadataValue =
  | null
  | boolean
  | number
  | string
  | readonly MetadataValue[]
  | { readonly [key: string]: MetadataValue };

export interface RateLimitRule {
  /** Config path, e.g. `dom.k1_v1.k2` (a wildcard level carries its pattern: `dom.wild_foo*`). */
  readonly fullKey: string;
  /** Key the per-descriptor stats are counted under (detailed_metric / value_to_metric / share_threshold applied); not yet sanitised for statsd. */
  readonly statsKey: string;
  readonly requestsPerUnit: number;
  /** Meaningless when `unlimited` (an unlimited rule never has a valid unit; the reference shows UNKNOWN). */
  readonly unit: Unit;
  readonly unlimited: boolean;
  readonly shadowMode: boolean;
  readonly quotaMode: boolean;
  /** `rate_limit.name`, '' when none. */
  readonly name: string;
  readonly replaces: readonly string[];
  /** Entries for the cache key: the request's, with the share_threshold pattern in place of the value where it applies. */
  readonly cacheKeyEntries: readonly RequestEntry[];
  /** The matched descriptor's YAML `metadata`, when it has one (for response dynamic metadata). */
  readonly metadata?: { readonly [key: string]: MetadataValue };
}

export type LimitLookup =
  | { readonly kind: 'domain-not-found' }
  /** Whitelisted, unmatched, or the request is deeper/shallower than the config. */
  | { readonly kind: 'no-limit' }
  | { readonly kind: 'limit'; readonly rule: RateLimitRule };

export interface RateLimitConfig {
  /** Stable identifier of this configuration: sha256 over the sorted file names and texts. */
  readonly version: string;
  /** What was loaded, in load order (broadcast as is; receivers call loadConfig again). */
  readonly files: readonly ConfigFile[];
  /** Domains in load order. */
  readonly domains: readonly string[];
  getLimit(domain: string, descriptor: RequestDescriptor): LimitLookup;
  /** The `/rlconfig` body. */
  dump(): string;
}

export interface LoadOptions {
  /** MERGE_DOMAIN_CONFIG: several files may add descriptors to one domain. */
  readonly mergeDomainConfig: boolean;
}
