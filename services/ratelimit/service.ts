// ShouldRateLimit, transport-free: the configuration in force picks the limits, the local cache
// and the counter store count, the domain decides. gRPC and /json both call this.
import type { Clock } from '../../shared/clock.ts';
import { AppError } from '../../shared/errors.ts';
import type { RateLimitConfig } from './config/index.ts';
import {
  assembleDecision,
  type Check,
  type Decision,
  type DecisionOptions,
  type DecisionRequest,
  type DescriptorStatus,
  NO_LIMIT_STATUS,
  planChecks,
  statusFromLocalCache,
  UNLIMITED_STATUS,
  validateRequest,
} from './domain/decision.ts';
import { dynamicMetadata } from './domain/dynamic-metadata.ts';
import type { OverLimitCache } from './domain/local-cache.ts';
import { type Counter, SERVICE_STATS, type StatsStore } from './domain/stats.ts';
import { countedStatus, countWithLimitSets, type LimitSetContext } from './limit-set-counting.ts';
import type { CounterIncrement, CounterStore } from './ports.ts';

export interface RateLimitService {
  shouldRateLimit(request: DecisionRequest): Promise<Decision>;
}

export interface RateLimitServiceDeps {
  readonly config: () => RateLimitConfig | undefined;
  readonly store: CounterStore;
  /** undefined when LOCAL_CACHE_SIZE_IN_BYTES is 0. */
  readonly localCache: OverLimitCache | undefined;
  readonly stats: StatsStore;
  readonly clock: Clock;
  readonly options: DecisionOptions;
  /**
   * STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT (Redis): a request that would take one of its limits
   * over adds only to the counters it takes over; the others are read (INCRBY 0), so a limit that
   * refuses does not consume the other limits' quota. Costs a read round trip first.
   */
  readonly stopIncrementWhenOverLimit?: boolean;
  /** RESPONSE_DYNAMIC_METADATA: answers carry the request and the limits' metadata. */
  readonly dynamicMetadata?: boolean;
}

type LimitCheck = Extract<Check, { kind: 'limit' }>;

export function createRateLimitService(deps: RateLimitServiceDeps): RateLimitService {
  const { store, localCache, stats, clock, options } = deps;
  const serviceErrors: Counter = stats.counter(SERVICE_STATS.serviceError);
  const redisErrors: Counter = stats.counter(SERVICE_STATS.redisError);
  const globalShadowMode: Counter = stats.counter(SERVICE_STATS.globalShadowMode);
  const limitSetContext: LimitSetContext = {
    store,
    localCache,
    nearLimitRatio: options.nearLimitRatio,
    stopIncrementWhenOverLimit: deps.stopIncrementWhenOverLimit ?? false,
  };

  return {
    async shouldRateLimit(request) {
      const nowMs = clock.now();
      const nowSeconds = Math.floor(nowMs / 1000);
      let checks: Check[];
      try {
        const config = validateRequest(request, deps.config());
        checks = planChecks(request, config, stats, options, nowSeconds);
      } catch (error) {
        if (error instanceof AppError) serviceErrors.value++;
        throw error;
      }

      const statuses: DescriptorStatus[] = new Array(checks.length);
      let toCount: LimitCheck[] | undefined;
      let cachedOverLimit = false;
      let limitSets = false;
      for (let i = 0; i < checks.length; i++) {
        const check = checks[i]!;
        if (check.kind === 'none') statuses[i] = NO_LIMIT_STATUS;
        else if (check.kind === 'unlimited') statuses[i] = UNLIMITED_STATUS;
        else if (check.kind === 'limits') limitSets = true;
        else if (localCache?.has(check.key.key, nowMs)) {
          statuses[i] = statusFromLocalCache(check, nowSeconds);
          cachedOverLimit = true;
        } else {
          toCount ??= [];
          toCount.push(check);
        }
      }

      if (limitSets) {
        try {
          await countWithLimitSets(limitSetContext, checks, statuses, cachedOverLimit, nowMs);
        } catch (error) {
          redisErrors.value++;
          throw error;
        }
      } else if (toCount !== undefined) {
        const increments: CounterIncrement[] = toCount.map((check) => ({
          key: check.key.key,
          addend: check.addend,
          windowSeconds: check.key.windowSeconds,
          perSecond: check.key.perSecond,
        }));
        let counts: readonly number[];
        try {
          counts = deps.stopIncrementWhenOverLimit
            ? await incrementUnlessOverLimit(store, toCount, increments, cachedOverLimit)
            : await store.increment(increments);
        } catch (error) {
          redisErrors.value++;
          throw error;
        }
        let next = 0;
        for (let i = 0; i < checks.length; i++) {
          if (statuses[i] !== undefined) continue;
          const check = checks[i] as LimitCheck;
          statuses[i] = countedStatus(check, counts[next++]!, options.nearLimitRatio, nowMs, localCache);
        }
      }
      const decision = assembleDecision(checks, statuses, options, globalShadowMode);
      if (!deps.dynamicMetadata) return decision;
      return { ...decision, dynamicMetadata: dynamicMetadata(request, checks, decision.statuses) };
    },
  };
}

/**
 * envoyproxy/ratelimit's STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: with a key already over in the
 * local cache nothing is added; otherwise the counters are read first, and when some would go over
 * with this request only those are added to. Resolves with each counter as the decision reads it.
 * (One more round trip than a plain decision, as in the reference's GET pipeline.)
 */
async function incrementUnlessOverLimit(
  store: CounterStore,
  checks: readonly LimitCheck[],
  increments: readonly CounterIncrement[],
  cachedOverLimit: boolean,
): Promise<readonly number[]> {
  const reads = increments.map((item) => (item.addend === 0 ? item : { ...item, addend: 0 }));
  if (cachedOverLimit) return store.increment(reads);
  const current = await store.increment(reads);
  const over = checks.map((check, i) => current[i]! + check.addend > check.rule.requestsPerUnit);
  if (!over.includes(true)) return store.increment(increments);
  // A counter only read keeps its remaining (the reference reads it as the count after the request).
  return store.increment(increments.map((item, i) => (over[i] ? item : reads[i]!)));
}
