// The decision of envoyproxy/ratelimit (service/ratelimit.go, limiter/base_limiter.go) as pure
// functions: which limits a request checks, the status a counter value gives, and the overall
// answer. Time comes in as Unix seconds; counters come from the store through the caller.
import { AppError } from '../../../shared/errors.ts';
import type { RateLimitConfig, RateLimitRule } from '../config/index.ts';
import { cacheKey } from './cache-key.ts';
import {
  type Check,
  type Code,
  type CurrentLimit,
  type Decision,
  type DecisionRequest,
  type DescriptorStatus,
  type Header,
  MAX_UINT32,
} from './decision-types.ts';
import { limitParts } from './limit-set.ts';
import { nearLimitThreshold } from './near-limit.ts';
import type { StatsStore } from './stats.ts';
import { secondsUntilReset } from './window.ts';

export type {
  Check,
  Code,
  CurrentLimit,
  Decision,
  DecisionRequest,
  DescriptorInput,
  DescriptorStatus,
  Header,
} from './decision-types.ts';
export { MAX_UINT32 } from './decision-types.ts';

export interface DecisionOptions {
  readonly cacheKeyPrefix: string;
  readonly nearLimitRatio: number;
  /** SHADOW_MODE: an overall OVER_LIMIT is answered OK. */
  readonly globalShadowMode: boolean;
  /** QUOTA_MODE: every descriptor is a quota descriptor. */
  readonly globalQuotaMode: boolean;
  /** LIMIT_RESPONSE_HEADERS_ENABLED and the three header names; undefined when disabled. */
  readonly headers:
    | { readonly limit: string; readonly remaining: string; readonly reset: string }
    | undefined;
}

/** A request the service refuses; gRPC status UNKNOWN with the reference's message, HTTP 400. */
export const serviceError = (message: string): AppError => new AppError('UNKNOWN', message);

/** Rejects what envoyproxy/ratelimit rejects, in its order, plus entries without a key. */
export function validateRequest(
  request: DecisionRequest,
  config: RateLimitConfig | undefined,
): RateLimitConfig {
  if (request.domain === '') throw serviceError('rate limit domain must not be empty');
  if (request.descriptors.length === 0) throw serviceError('rate limit descriptor list must not be empty');
  request.descriptors.forEach((descriptor, d) => {
    descriptor.entries.forEach((entry, e) => {
      if (entry.key === '')
        throw new AppError('INVALID_ARGUMENT', `descriptors[${d}].entries[${e}].key must not be empty`);
    });
  });
  if (config === undefined) throw serviceError('no rate limit configuration loaded');
  return config;
}

/**
 * The check of every descriptor: its rule (a rule named in another matched rule's `replaces`
 * gives none), its cache key and hits; counts `domain_not_found` and `total_hits`.
 */
export function planChecks(
  request: DecisionRequest,
  config: RateLimitConfig,
  stats: StatsStore,
  options: Pick<DecisionOptions, 'cacheKeyPrefix'>,
  nowSeconds: number,
): Check[] {
  const { domain, descriptors } = request;
  const rules: Array<RateLimitRule | undefined> = new Array(descriptors.length);
  let replaced: Set<string> | undefined;
  for (let i = 0; i < descriptors.length; i++) {
    const lookup = config.getLimit(domain, descriptors[i]!);
    if (lookup.kind === 'limit') {
      rules[i] = lookup.rule;
      if (lookup.rule.replaces.length > 0) {
        replaced ??= new Set();
        for (const name of lookup.rule.replaces) replaced.add(name);
      }
    } else if (lookup.kind === 'domain-not-found') {
      stats.domainNotFound(domain).value++;
    }
  }
  const requestAddend = Math.max(1, request.hitsAddend);
  const checks: Check[] = new Array(descriptors.length);
  for (let i = 0; i < descriptors.length; i++) {
    const rule = rules[i];
    if (rule?.limits !== undefined) {
      const addend = descriptors[i]!.hitsAddend ?? requestAddend;
      checks[i] = limitSetCheck(
        rule,
        rule.limits,
        replaced,
        addend,
        stats,
        options.cacheKeyPrefix,
        domain,
        nowSeconds,
      );
    } else if (
      rule === undefined ||
      (replaced !== undefined && rule.name !== '' && replaced.has(rule.name))
    ) {
      checks[i] = NONE;
    } else if (rule.unlimited) {
      checks[i] = UNLIMITED;
    } else {
      const addend = descriptors[i]!.hitsAddend ?? requestAddend;
      const ruleStats = stats.rule(rule.statsKey);
      ruleStats.totalHits.value += addend;
      checks[i] = {
        kind: 'limit',
        rule,
        stats: ruleStats,
        key: cacheKey(options.cacheKeyPrefix, domain, rule, nowSeconds),
        addend,
      };
    }
  }
  return checks;
}

/** The check of a descriptor with limits beyond the reference's: those no `replaces` names, with their keys. */
function limitSetCheck(
  rule: RateLimitRule,
  specs: NonNullable<RateLimitRule['limits']>,
  replaced: Set<string> | undefined,
  addend: number,
  stats: StatsStore,
  cacheKeyPrefix: string,
  domain: string,
  nowSeconds: number,
): Check {
  const kept = replaced === undefined ? specs : specs.filter((s) => s.name === '' || !replaced.has(s.name));
  if (kept.length === 0) return NONE;
  const ruleStats = stats.rule(rule.statsKey);
  ruleStats.totalHits.value += addend;
  const parts = limitParts(cacheKeyPrefix, domain, rule, kept, nowSeconds);
  return { kind: 'limits', rule, stats: ruleStats, parts, addend };
}

const NONE: Check = Object.freeze({ kind: 'none' });
const UNLIMITED: Check = Object.freeze({ kind: 'unlimited' });

const currentLimit = (rule: RateLimitRule): CurrentLimit => ({
  requestsPerUnit: rule.requestsPerUnit,
  unit: rule.unit,
  name: rule.name,
});

export { nearLimitThreshold };

/**
 * The status a counter gives once `addend` hits were added and it reads `after`; adds to the
 * near/over/within/shadow counters as base_limiter.go does. Shadow mode answers OK.
 */
export function statusFromCount(
  check: Extract<Check, { kind: 'limit' }>,
  after: number,
  nearLimitRatio: number,
  nowSeconds: number,
): DescriptorStatus {
  const { rule, stats, addend } = check;
  const limit = rule.requestsPerUnit;
  const before = after - addend;
  const near = nearLimitThreshold(limit, nearLimitRatio);
  const reset = secondsUntilReset(rule.unit, nowSeconds);
  let status: DescriptorStatus;
  if (after > limit) {
    status = {
      code: 'OVER_LIMIT',
      currentLimit: currentLimit(rule),
      limitRemaining: 0,
      secondsUntilReset: reset,
    };
    if (before >= limit) {
      stats.overLimit.value += addend;
    } else {
      stats.overLimit.value += after - limit;
      stats.nearLimit.value += limit - Math.max(near, before);
    }
  } else {
    status = {
      code: 'OK',
      currentLimit: currentLimit(rule),
      limitRemaining: limit - after,
      secondsUntilReset: reset,
    };
    if (after > near) stats.nearLimit.value += before >= near ? addend : after - near;
    stats.withinLimit.value += addend;
  }
  if (rule.shadowMode && status.code === 'OVER_LIMIT') {
    stats.shadowMode.value += addend;
    status.code = 'OK';
  }
  return status;
}

/** The status of a key found in the local over-limit cache: the store was not asked. */
export function statusFromLocalCache(
  check: Extract<Check, { kind: 'limit' }>,
  nowSeconds: number,
): DescriptorStatus {
  const { rule, stats, addend } = check;
  stats.overLimit.value += addend;
  stats.overLimitWithLocalCache.value += addend;
  if (rule.shadowMode) stats.shadowMode.value += addend;
  return {
    code: rule.shadowMode ? 'OK' : 'OVER_LIMIT',
    currentLimit: currentLimit(rule),
    limitRemaining: 0,
    secondsUntilReset: secondsUntilReset(rule.unit, nowSeconds),
  };
}

export const NO_LIMIT_STATUS: DescriptorStatus = Object.freeze({
  code: 'OK',
  currentLimit: undefined,
  limitRemaining: 0,
  secondsUntilReset: undefined,
});

export const UNLIMITED_STATUS: DescriptorStatus = Object.freeze({
  code: 'OK',
  currentLimit: undefined,
  limitRemaining: MAX_UINT32,
  secondsUntilReset: undefined,
});

/**
 * The overall answer: OVER_LIMIT when a descriptor outside quota mode is over, or when every quota
 * descriptor is; global shadow mode then answers OK (and counts it). Headers describe the
 * descriptor closest to its limit, or the last one over it.
 */
export function assembleDecision(
  checks: readonly Check[],
  statuses: readonly DescriptorStatus[],
  options: DecisionOptions,
  globalShadowModeCounter: { value: number },
): Decision {
  let overall: Code = 'OK';
  let quotaDescriptors = 0;
  let quotaOver = 0;
  let chosen: DescriptorStatus | undefined;
  let chosenRemaining = MAX_UINT32;
  for (let i = 0; i < statuses.length; i++) {
    const status = statuses[i]!;
    const check = checks[i]!;
    if (status.currentLimit !== undefined && status.limitRemaining < chosenRemaining) {
      chosen = status;
      chosenRemaining = status.limitRemaining;
    }
    if (check.kind === 'unlimited') continue;
    const quota =
      options.globalQuotaMode ||
      ((check.kind === 'limit' || check.kind === 'limits') && check.rule.quotaMode);
    if (quota) {
      quotaDescriptors++;
      if (status.code === 'OVER_LIMIT') quotaOver++;
    } else if (status.code === 'OVER_LIMIT') {
      overall = 'OVER_LIMIT';
      chosen = status;
      chosenRemaining = 0;
    }
  }
  if (quotaDescriptors > 0 && quotaOver === quotaDescriptors) overall = 'OVER_LIMIT';
  const headers =
    options.headers !== undefined && chosen !== undefined ? limitHeaders(chosen, options.headers) : [];
  if (overall === 'OVER_LIMIT' && options.globalShadowMode) {
    overall = 'OK';
    globalShadowModeCounter.value++;
  }
  return { overallCode: overall, statuses, headers };
}

function limitHeaders(status: DescriptorStatus, names: NonNullable<DecisionOptions['headers']>): Header[] {
  return [
    { key: names.limit, value: String(status.currentLimit!.requestsPerUnit) },
    { key: names.remaining, value: String(status.limitRemaining) },
    { key: names.reset, value: String(status.secondsUntilReset ?? 0) },
  ];
}
