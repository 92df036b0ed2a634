import type { MetadataValue } from './types.ts';

/** The typed configuration document (envoyproxy/ratelimit `YamlRoot` and friends). */
export interface YamlRoot {
  readonly domain: string;
  readonly descriptors: readonly YamlDescriptor[];
}

export interface YamlDescriptor {
  readonly key: string;
  readonly value: string;
  readonly rateLimit: YamlRateLimit | undefined;
  /** `rate_limits`: several limits on one descriptor (undefined when absent, [] when empty or null). */
  readonly rateLimits: readonly YamlRateLimit[] | undefined;
  /** Keys that belong in a rate limit but were written on the descriptor itself (`algorithm`, ...). */
  readonly misplaced: readonly string[];
  readonly descriptors: readonly YamlDescriptor[];
  readonly shadowMode: boolean;
  readonly quotaMode: boolean;
  readonly detailedMetric: boolean;
  readonly valueToMetric: boolean;
  readonly shareThreshold: boolean;
  readonly metadata: { readonly [key: string]: MetadataValue } | undefined;
}

export interface YamlRateLimit {
  readonly requestsPerUnit: number;
  readonly unit: string;
  readonly unlimited: boolean;
  readonly name: string;
  readonly replaces: readonly string[];
  /** undefined when absent (then 1). */
  readonly unitMultiplier: number | undefined;
  /** '' when absent (then fixed_window). */
  readonly algorithm: string;
  /** undefined when absent. */
  readonly burst: number | undefined;
}
