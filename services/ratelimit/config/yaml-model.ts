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
}
