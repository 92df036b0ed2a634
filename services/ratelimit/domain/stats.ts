// In-memory counters under envoyproxy/ratelimit's statsd names. Decisions add to them; the statsd
// and Prometheus sinks read them. A rule's counters are looked up once per stats key and reused.

/** A named monotonic counter; sinks remember what they already sent. */
export interface Counter {
  readonly name: string;
  value: number;
}

/** Where a per-limit counter belongs on Prometheus (statsd_exporter's default ratelimit mapping). */
export interface RuleCounter extends Counter {
  readonly stat: RuleStatName;
  readonly domain: string;
  /** The stats key after the domain: first level, and the rest joined with '.'. */
  readonly key1: string;
  readonly key2: string;
}

export const RULE_STATS = [
  'total_hits',
  'over_limit',
  'near_limit',
  'within_limit',
  'over_limit_with_local_cache',
  'shadow_mode',
] as const;
export type RuleStatName = (typeof RULE_STATS)[number];

export interface RuleStats {
  readonly totalHits: RuleCounter;
  readonly overLimit: RuleCounter;
  readonly nearLimit: RuleCounter;
  readonly withinLimit: RuleCounter;
  readonly overLimitWithLocalCache: RuleCounter;
  readonly shadowMode: RuleCounter;
}

export const RATE_LIMIT_PREFIX = 'ratelimit.service.rate_limit.';

/** Counters of the service itself (envoyproxy/ratelimit stats/manager_impl.go). */
export const SERVICE_STATS = Object.freeze({
  configLoadSuccess: 'ratelimit.service.config_load_success',
  configLoadError: 'ratelimit.service.config_load_error',
  globalShadowMode: 'ratelimit.service.global_shadow_mode',
  redisError: 'ratelimit.service.call.should_rate_limit.redis_error',
  serviceError: 'ratelimit.service.call.should_rate_limit.service_error',
  shouldRateLimitTotal: 'ratelimit_server.ShouldRateLimit.total_requests',
});

const IPV4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)/g;

/** statsd-safe key: `:` and `|` become `_`, and so do the dots of IPv4 addresses (stats/manager_impl.go). */
export function sanitizeStatsKey(key: string): string {
  return key.replace(/[:|]/g, '_').replace(IPV4, '$1_$2_$3_$4');
}

export interface StatsStore {
  counter(name: string): Counter;
  /** The six counters of a limit's stats key (`<domain>.<k1>_<v1>...`), created on first use. */
  rule(statsKey: string): RuleStats;
  /** `ratelimit.service.rate_limit.<domain>.domain_not_found`. */
  domainNotFound(domain: string): Counter;
  counters(): Iterable<Counter>;
  ruleCounters(): Iterable<RuleCounter>;
}

export function createStatsStore(): StatsStore {
  const counters = new Map<string, Counter>();
  const rules = new Map<string, RuleStats>();
  const ruleCounters: RuleCounter[] = [];

  const counter = (name: string): Counter => {
    let found = counters.get(name);
    if (found === undefined) {
      found = { name, value: 0 };
      counters.set(name, found);
    }
    return found;
  };

  const createRule = (statsKey: string): RuleStats => {
    const key = sanitizeStatsKey(statsKey);
    const dot = key.indexOf('.');
    const domain = dot < 0 ? key : key.slice(0, dot);
    const path = dot < 0 ? '' : key.slice(dot + 1);
    const pathDot = path.indexOf('.');
    const key1 = pathDot < 0 ? path : path.slice(0, pathDot);
    const key2 = pathDot < 0 ? '' : path.slice(pathDot + 1);
    const make = (stat: RuleStatName): RuleCounter => {
      const name = `${RATE_LIMIT_PREFIX}${key}.${stat}`;
      const existing = counters.get(name) as RuleCounter | undefined;
      if (existing !== undefined) return existing;
      const created: RuleCounter = { name, value: 0, stat, domain, key1, key2 };
      counters.set(name, created);
      ruleCounters.push(created);
      return created;
    };
    return {
      totalHits: make('total_hits'),
      overLimit: make('over_limit'),
      nearLimit: make('near_limit'),
      withinLimit: make('within_limit'),
      overLimitWithLocalCache: make('over_limit_with_local_cache'),
      shadowMode: make('shadow_mode'),
    };
  };

  return {
    counter,
    rule(statsKey) {
      let found = rules.get(statsKey);
      if (found === undefined) {
        found = createRule(statsKey);
        rules.set(statsKey, found);
      }
      return found;
    },
    domainNotFound: (domain) => counter(`${RATE_LIMIT_PREFIX}${sanitizeStatsKey(domain)}.domain_not_found`),
    counters: () => counters.values(),
    ruleCounters: () => ruleCounters,
  };
}

/** The counters and gauges of one decision unit's stats store, for /stats. */
export function* statsLines(
  stats: StatsStore,
  gauges: () => Iterable<[string, number]>,
): Iterable<[string, number]> {
  for (const counter of stats.counters()) yield [counter.name, counter.value];
  yield* gauges();
}

const RULE_FIELD: Readonly<Record<RuleStatName, keyof RuleStats>> = {
  total_hits: 'totalHits',
  over_limit: 'overLimit',
  near_limit: 'nearLimit',
  within_limit: 'withinLimit',
  over_limit_with_local_cache: 'overLimitWithLocalCache',
  shadow_mode: 'shadowMode',
};

/**
 * A stats store holding the sum of `lines` (several decision units' counters, by name): a limit's
 * counters come back as the rule counters they were, with their domain and keys.
 */
export function sumStatsLines(lines: Iterable<readonly [string, number]>): StatsStore {
  const store = createStatsStore();
  for (const [name, value] of lines) {
    const dot = name.lastIndexOf('.');
    const stat = name.slice(dot + 1) as RuleStatName;
    if (name.startsWith(RATE_LIMIT_PREFIX) && Object.hasOwn(RULE_FIELD, stat))
      store.rule(name.slice(RATE_LIMIT_PREFIX.length, dot))[RULE_FIELD[stat]].value += value;
    else store.counter(name).value += value;
  }
  return store;
}
