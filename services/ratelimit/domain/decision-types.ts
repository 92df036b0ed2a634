// The shapes a decision is made of: the request, each descriptor's check against the store and its
// status, the answer. Apart from decision.ts so the limit-set and algorithm modules can name them.
import type { LimitSpec, MetadataValue, RateLimitRule, RequestDescriptor, Unit } from '../config/index.ts';
import type { CacheKey } from './cache-key.ts';
import type { RuleStats } from './stats.ts';

export interface LimitPart {
  readonly spec: LimitSpec;
  /** `<prefix><domain>_<k1>_<v1>_..._<keyTag>`, fixed windows then `_<window start>`. */
  readonly key: string;
  /** A SECOND limit (any multiplier): kept in the per-second store when there is one. */
  readonly perSecond: boolean;
}

export const MAX_UINT32 = 4_294_967_295;

export interface DescriptorInput extends RequestDescriptor {
  /** The descriptor's own hits_addend when the request set it (0 included), else undefined. */
  readonly hitsAddend: number | undefined;
}

export interface DecisionRequest {
  readonly domain: string;
  readonly descriptors: readonly DescriptorInput[];
  /** The request's hits_addend; 0 counts as 1. */
  readonly hitsAddend: number;
}

export type Code = 'OK' | 'OVER_LIMIT';

export interface CurrentLimit {
  readonly requestsPerUnit: number;
  readonly unit: Unit;
  readonly name: string;
}

export interface DescriptorStatus {
  code: Code;
  readonly currentLimit: CurrentLimit | undefined;
  readonly limitRemaining: number;
  readonly secondsUntilReset: number | undefined;
}

export interface Header {
  readonly key: string;
  readonly value: string;
}

export interface Decision {
  readonly overallCode: Code;
  readonly statuses: readonly DescriptorStatus[];
  readonly headers: readonly Header[];
  /** RESPONSE_DYNAMIC_METADATA: the response's dynamic_metadata Struct. */
  readonly dynamicMetadata?: { readonly [key: string]: MetadataValue };
}

/** What one descriptor asks of the counter store, once its rule is known. */
export type Check =
  | { readonly kind: 'none' }
  | { readonly kind: 'unlimited' }
  | {
      readonly kind: 'limit';
      readonly rule: RateLimitRule;
      readonly stats: RuleStats;
      readonly key: CacheKey;
      readonly addend: number;
    }
  /** A descriptor with several limits, or one beyond the reference's (RateLimitRule.limits). */
  | {
      readonly kind: 'limits';
      readonly rule: RateLimitRule;
      readonly stats: RuleStats;
      /** Its limits that no matched `replaces` dropped, each with its cache key. */
      readonly parts: readonly LimitPart[];
      readonly addend: number;
    };
