import type { Match } from './match.ts';
import { statsKeyOf } from './stats-key.ts';
import type { RateLimitRule, RequestDescriptor, RequestEntry } from './types.ts';

/** The rule for a configured limit matched by a request. */
export function ruleFromMatch(domain: string, entries: readonly RequestEntry[], match: Match): RateLimitRule {
  const { limit, levels } = match;
  const shared = levels.some((level) => level.sharedValue !== '');
  const rule: RateLimitRule = {
    fullKey: limit.fullKey,
    statsKey: statsKeyOf(domain, match),
    requestsPerUnit: limit.requestsPerUnit,
    // An unlimited limit has no unit; the runtime never counts it against a window.
    unit: limit.unit === 'UNKNOWN' ? 'SECOND' : limit.unit,
    unlimited: limit.unlimited,
    shadowMode: limit.shadowMode,
    quotaMode: limit.quotaMode,
    name: limit.name,
    replaces: limit.replaces,
    cacheKeyEntries: shared
      ? entries.map((entry, index) => {
          const sharedValue = levels[index]?.sharedValue ?? '';
          return sharedValue === '' ? entry : { key: entry.key, value: sharedValue };
        })
      : entries,
    ...(limit.metadata === undefined ? {} : { metadata: limit.metadata }),
  };
  // Only descriptors with limits beyond the reference's carry them (the reference's rules keep their shape).
  return limit.limits === undefined ? rule : { ...rule, limits: limit.limits };
}

/**
 * A request's own limit (RLS `descriptor.limit`): applies whenever the domain is known, whatever the
 * configuration says, keyed `<domain>.<k1>[_<v1>]...` (empty values omitted), never shadowed.
 */
export function overrideRule(domain: string, descriptor: RequestDescriptor): RateLimitRule | undefined {
  const { limit, entries } = descriptor;
  if (limit === undefined) return undefined;
  const key = `${domain}.${entries.map((entry) => (entry.value === '' ? entry.key : `${entry.key}_${entry.value}`)).join('.')}`;
  return {
    fullKey: key,
    statsKey: key,
    requestsPerUnit: limit.requestsPerUnit,
    unit: limit.unit,
    unlimited: false,
    shadowMode: false,
    quotaMode: false,
    name: '',
    replaces: [],
    cacheKeyEntries: entries,
  };
}
