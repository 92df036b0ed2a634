import type { WildcardPattern } from './wildcard.ts';

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

/** How a limit counts (`algorithm`): fixed_window is envoyproxy/ratelimit's, and the default. */
export const ALGORITHMS = Object.freeze(['fixed_window', 'sliding_window', 'token_bucket'] as const);
export type Algorithm = (typeof ALGORITHMS)[number];

/**
 * One limit of a descriptor that uses `unit_multiplier`, `algorithm`, `burst` or `rate_limits`
 * (a descriptor without them keeps the reference's single fixed-window limit and its cache key).
 */
export interface LimitSpec {
  readonly requestsPerUnit: number;
  readonly unit: Unit;
  readonly unitMultiplier: number;
  readonly algorithm: Algorithm;
  /** token_bucket: the bucket's capacity (the most admitted at once); 0 for the other algorithms. */
  readonly burst: number;
  /** `name`, '' when none: another descriptor's `replaces` may drop this limit alone. */
  readonly name: string;
  readonly replaces: readonly string[];
  /** unit × unit_multiplier, in seconds: the window (token_bucket: the refill period). */
  readonly windowSeconds: number;
  /** Ends this limit's cache key, telling it from the descriptor's other limits: `f300`, `s60`, `t1`. */
  readonly keyTag: string;
}

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
  /**
   * The descriptor's limits when it uses unit_multiplier, algorithm, burst or rate_limits (then
   * `requestsPerUnit`, `unit` and `name` are the first one's, `replaces` all of theirs); undefined
   * for the reference's single fixed-window limit.
   */
  readonly limits?: readonly LimitSpec[];
}

export type LimitLookup =
  | { readonly kind: 'domain-not-found' }
  /** Whitelisted, unmatched, or the request is deeper/shallower than the config. */
  | { readonly kind: 'no-limit' }
  | { readonly kind: 'limit'; readonly rule: RateLimitRule };

/** A limit as configured on one descriptor node. */
export interface ConfiguredLimit {
  /** `<domain>.<k1>[_<v1>]...`, the config path (wildcards keep their pattern). */
  readonly fullKey: string;
  readonly requestsPerUnit: number;
  /** UNKNOWN only on unlimited limits, which need no unit (the reference shows it in /rlconfig). */
  readonly unit: Unit | 'UNKNOWN';
  readonly unlimited: boolean;
  readonly shadowMode: boolean;
  readonly quotaMode: boolean;
  readonly name: string;
  readonly replaces: readonly string[];
  readonly detailedMetric: boolean;
  readonly metadata: { readonly [key: string]: MetadataValue } | undefined;
  /** As RateLimitRule.limits: set only when the descriptor uses the keys beyond the reference's. */
  readonly limits?: readonly LimitSpec[];
}

/** One level of the configuration tree: children by `key` or `key_value`, wildcard children in config order. */
export interface DescriptorNode {
  /** The descriptor's `key` and `value` ('' for a domain's root, and for a node without value). */
  readonly key: string;
  readonly value: string;
  readonly children: Map<string, DescriptorNode>;
  readonly wildcards: WildcardPattern[];
  readonly limit: ConfiguredLimit | undefined;
  readonly valueToMetric: boolean;
  /** The `key_value` pattern whose matches share one counter (share_threshold), '' when off. */
  readonly sharedPattern: string;
}

/**
 * A loaded configuration as plain data (Maps, arrays, plain objects): what structured clone carries
 * to another process or thread, which rebuilds the configuration from it without parsing again.
 */
export interface ConfigData {
  readonly version: string;
  readonly files: readonly ConfigFile[];
  /** The descriptor tree of each domain, in load order. */
  readonly domains: ReadonlyMap<string, DescriptorNode>;
  /** The `/rlconfig` body. */
  readonly dump: string;
}

export interface RateLimitConfig {
  /** Stable identifier of this configuration: sha256 over the sorted file names and texts. */
  readonly version: string;
  /** What was loaded, in load order (broadcast as is; other instances load them again). */
  readonly files: readonly ConfigFile[];
  /** Domains in load order. */
  readonly domains: readonly string[];
  /** This configuration as data, for the decision units of the instance (configFromData). */
  readonly data: ConfigData;
  getLimit(domain: string, descriptor: RequestDescriptor): LimitLookup;
  /** The `/rlconfig` body. */
  dump(): string;
}

export interface LoadOptions {
  /** MERGE_DOMAIN_CONFIG: several files may add descriptors to one domain. */
  readonly mergeDomainConfig: boolean;
}
