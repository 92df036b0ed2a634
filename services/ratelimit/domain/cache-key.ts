import type { RateLimitRule } from '../config/index.ts';
import { UNIT_SECONDS, windowStart } from './window.ts';

export interface CacheKey {
  readonly key: string;
  /** SECOND limits may live in their own store (REDIS_PERSECOND). */
  readonly perSecond: boolean;
  /** Window length: the counter's time to live before jitter, and the local cache's. */
  readonly windowSeconds: number;
}

/**
 * `<prefix><domain>_<k1>_<v1>_<k2>_<v2>_<window start>` (envoyproxy/ratelimit limiter/cache_key.go):
 * the rule's cache-key entries are the request's values, or the share_threshold pattern where
 * one applies, so every value matching the pattern shares one counter.
 */
export function cacheKey(prefix: string, domain: string, rule: RateLimitRule, nowSeconds: number): CacheKey {
  let key = `${prefix}${domain}_`;
  for (const entry of rule.cacheKeyEntries) key += `${entry.key}_${entry.value}_`;
  key += windowStart(rule.unit, nowSeconds);
  return { key, perSecond: rule.unit === 'SECOND', windowSeconds: UNIT_SECONDS[rule.unit] };
}
